// sync_file_range for the Swift targets, which Swift's Glibc module does not declare (a GNU extension).
#define _GNU_SOURCE
#include "cwriteback.h"

#if defined(__linux__)
#include <fcntl.h>

int cwriteback_start(int fd, long long offset, long long length) {
    return sync_file_range(fd, (off_t)offset, (off_t)length, SYNC_FILE_RANGE_WRITE);
}
#else
int cwriteback_start(int fd, long long offset, long long length) {
    (void)fd;
    (void)offset;
    (void)length;
    return 0;
}
#endif
