#ifndef CWRITEBACK_H
#define CWRITEBACK_H

/// Starts the kernel's writeback of the dirty pages of `fd` in `offset ..< offset + length` (`length` 0: to the
/// end of the file) without waiting for it: sync_file_range with SYNC_FILE_RANGE_WRITE, which glibc declares only
/// with _GNU_SOURCE. A later fsync then finds little left to write. A hint: 0, or -1 with errno (ignored by callers).
/// The partial files (LedgerTransfer) and the ledger's log (LedgerStore) use it; elsewhere than Linux it does
/// nothing.
int cwriteback_start(int fd, long long offset, long long length);

/// Puts the calling thread in Linux's SCHED_BATCH policy: it keeps its fair share of the CPU, but its wake-ups no
/// longer preempt the thread that is running. The hash worker and the completion threads take it, so a chunk
/// handed over or a file to sync does not interrupt the transfer loop's receive and write on a busy core (on two
/// cores they preempted the loop 264–424 times in a 200-file run, 28–82 times with it). 0, or -1 with errno
/// (ignored by callers: the thread then runs as before); elsewhere than Linux it does nothing.
int cwriteback_background_thread(void);

/// Puts the calling thread back in the normal policy (SCHED_OTHER). A thread inherits its policy from the thread
/// that starts it, so a completion thread leaves SCHED_BATCH while it delivers an event, which can start a thread
/// (a dispatch thread for the consumer's task, when none is idle). 0, or -1 with errno.
int cwriteback_foreground_thread(void);

/// Names the calling thread as `top -H` and /proc/PID/task/TID/comm show it (at most 15 bytes, longer names are
/// cut). Foundation's `Thread.name` names the OS thread only when it is set on the thread after its start, and
/// its own check races with the start. 0, or an error number (ignored by callers).
int cwriteback_name_thread(const char *name);

#endif
