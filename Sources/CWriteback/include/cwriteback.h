#ifndef CWRITEBACK_H
#define CWRITEBACK_H

/// Starts the kernel's writeback of the dirty pages of `fd` in `offset ..< offset + length` (`length` 0: to the
/// end of the file) without waiting for it: sync_file_range with SYNC_FILE_RANGE_WRITE, which glibc declares only
/// with _GNU_SOURCE. A later fsync then finds little left to write. A hint: 0, or -1 with errno (ignored by callers).
/// The partial files (LedgerTransfer) and the ledger's log (LedgerStore) use it; elsewhere than Linux it does
/// nothing.
int cwriteback_start(int fd, long long offset, long long length);

#endif
