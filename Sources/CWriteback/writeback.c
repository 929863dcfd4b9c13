// sync_file_range, SCHED_BATCH and pthread_setname_np for the Swift targets, which Swift's Glibc module does not
// declare (GNU extensions).
#define _GNU_SOURCE
#include "cwriteback.h"

#if defined(__linux__)
#include <fcntl.h>
#include <pthread.h>
#include <sched.h>
#include <string.h>

int cwriteback_name_thread(const char *name) {
    char cut[16];
    strncpy(cut, name, sizeof cut - 1);
    cut[sizeof cut - 1] = 0;
    return pthread_setname_np(pthread_self(), cut);
}

int cwriteback_background_thread(void) {
    struct sched_param param = {0};
    return sched_setscheduler(0, SCHED_BATCH, &param);
}

int cwriteback_foreground_thread(void) {
    struct sched_param param = {0};
    return sched_setscheduler(0, SCHED_OTHER, &param);
}

int cwriteback_start(int fd, long long offset, long long length) {
    return sync_file_range(fd, (off_t)offset, (off_t)length, SYNC_FILE_RANGE_WRITE);
}
#else
int cwriteback_background_thread(void) { return 0; }

int cwriteback_foreground_thread(void) { return 0; }

int cwriteback_name_thread(const char *name) {
    (void)name;
    return 0;
}

int cwriteback_start(int fd, long long offset, long long length) {
    (void)fd;
    (void)offset;
    (void)length;
    return 0;
}
#endif
