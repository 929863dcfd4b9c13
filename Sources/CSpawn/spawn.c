// The GNU extensions a hook's spawn needs, which Swift's Glibc module does not declare.
#define _GNU_SOURCE
#include "cspawn.h"

#include <fcntl.h>
#include <unistd.h>

int cspawn_pipe_cloexec(int fds[2]) { return pipe2(fds, O_CLOEXEC); }

int cspawn_close_from(posix_spawn_file_actions_t *actions, int lowest) {
    return posix_spawn_file_actions_addclosefrom_np(actions, lowest);
}
