#ifndef CSPAWN_H
#define CSPAWN_H

#include <spawn.h>

/// pipe2(fds, O_CLOEXEC): both ends close on exec, atomically (glibc declares pipe2 only with _GNU_SOURCE).
int cspawn_pipe_cloexec(int fds[2]);

/// posix_spawn_file_actions_addclosefrom_np: the child closes every descriptor from `lowest` up.
int cspawn_close_from(posix_spawn_file_actions_t *actions, int lowest);

#endif
