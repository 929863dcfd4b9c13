import CSQLite
import CWriteback

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// The two journal modes of a ledger file: WAL while a writer has it open (readers and the downloader never wait
/// for each other), rollback journal once the last writer has left it (its header then names no `-wal` or
/// `-shm`, so a copy opens anywhere, even read-only in a folder the reader cannot write).
extension SQLiteEventStore {
    /// Switches the file to WAL unless it is in WAL already. The switch rewrites the first bytes of the header in
    /// a rollback-journal transaction, written without syncs and then synced once here (with `syncing`): the file
    /// must say WAL on disk before a commit to the log is acknowledged, or a power cut would leave a header that
    /// ignores the log. Only bytes of the first sector change, which SQLite's power-safe overwrite assumes are
    /// written whole or not at all, so the journal needs no sync of its own.
    ///
    /// Two processes that open a quiet file at once both read it under a shared lock and then both ask to write
    /// its header: SQLite sees the deadlock and refuses one at once, without its busy handler. The refused one
    /// has let go of its lock by then, so it tries again (the other has usually switched the file by then), for as
    /// long as the busy timeout.
    ///
    /// The sync goes through SQLite's own descriptor of the file (``Database/syncMainFile()``), never one of ours:
    /// closing any descriptor of the file drops every POSIX lock this process holds on it, SQLite's included, and
    /// another process could then take the file for its own (fold and delete the log this one still writes to).
    static func enterWAL(_ db: Database, path: String, syncing: Bool) throws {
        let deadline = ContinuousClock.now + .milliseconds(Int(db.busyTimeout))
        var pause = 1_000
        while try db.journalMode() != "wal" {
            // Switched, or SQLite keeps the file in another mode (a file system without shared memory).
            if try switchToWAL(db, retryable: ContinuousClock.now < deadline) { break }
            usleep(useconds_t(Int.random(in: pause...(2 * pause))))
            pause = min(pause * 2, 50_000)
        }
        guard syncing, try db.journalMode() == "wal" else { return }
        let synced = db.syncMainFile()
        guard synced == SQLITE_OK else {
            throw StoreError.io(path, String(cString: sqlite3_errstr(synced)))
        }
    }

    /// One try at the switch to WAL: false when SQLite refused it for another connection's lock and `retryable`.
    private static func switchToWAL(_ db: Database, retryable: Bool) throws(DatabaseError) -> Bool {
        do {
            try db.execute("PRAGMA synchronous = OFF; PRAGMA journal_mode = WAL")
            return true
        } catch {
            guard retryable, [.busy, .locked].contains(error.code) else { throw error }
            return false
        }
    }

    /// Leaves the file quiet when this is the last connection to it: every committed event folded into the main
    /// file (a TRUNCATE checkpoint), then the file switched to rollback-journal mode, which removes its `-wal` and
    /// `-shm`. A copy of a quiet file is one file that any SQLite reads, read-only, without creating anything
    /// beside it. Never waits: while another connection (another process's reader or writer) has the file open,
    /// the switch is refused at once and the file stays in WAL for that connection, whose own last writer leaves it
    /// quiet. The store stays usable; a later write here runs in rollback-journal mode (and the next store opened
    /// to write switches the file back to WAL).
    ///
    /// Like the switch to WAL, the header's change is written without syncs: the events are already synced by the
    /// checkpoint, and a power cut that loses the change leaves a WAL file without a log, which reads the same.
    /// - Returns: whether the file is in rollback-journal mode now (false for a read-only store).
    @discardableResult
    public func leaveQuiet() -> Bool {
        guard !isReadOnly else { return false }
        guard db.checkpointTruncate() else { return false }
        csqlite_config_busy_timeout(db.handle, 0)
        defer { csqlite_config_busy_timeout(db.handle, db.busyTimeout) }
        guard let level = try? db.int64("PRAGMA synchronous") else { return false }
        defer { try? db.execute("PRAGMA synchronous = \(level)") }
        do {
            try db.execute("PRAGMA synchronous = OFF; PRAGMA journal_mode = DELETE")
            guard try db.journalMode() == "delete" else { return false }
            closeLogDescriptor()
            return true
        } catch {
            return false
        }
    }

    /// Hands the log's dirty pages to the kernel's writeback without waiting (`sync_file_range`), after commits
    /// that did not sync them (`synchronous=NORMAL`), once the log grew by ``logWritebackStep`` or
    /// ``logWritebackCommits`` commits went by (a log that started over after a checkpoint does not grow). The
    /// next checkpoint, which syncs the log before it copies it into the main file, then waits for the last step
    /// at most instead of every commit since the last checkpoint: the one that leaves a ledger quiet after a run
    /// of 200 downloads waited 3–5 ms for a 3.6 MB log. Handing each commit's few pages over on its own cost
    /// more: a write request (and a doorbell to a virtual disk) per commit.
    ///
    /// A hint only: nothing waits for it, and nothing depends on it. The `-wal` is opened read-only on its own
    /// descriptor, never following a link; SQLite holds no lock on that file (its locks are on the main file and
    /// the `-shm`), so closing this descriptor takes none of them away.
    func startLogWriteback() {
        if logDescriptor < 0 {
            logDescriptor = open(path + "-wal", O_RDONLY | O_CLOEXEC | O_NOFOLLOW | O_NONBLOCK)
            guard logDescriptor >= 0 else { return }
            logHandedOver = (size: 0, commitsSince: 0)
        }
        logHandedOver.commitsSince += 1
        var info = stat()
        guard fstat(logDescriptor, &info) == 0 else { return }
        let size = Int64(info.st_size)
        // Emptied by a TRUNCATE checkpoint meanwhile.
        if size < logHandedOver.size { logHandedOver.size = 0 }
        guard
            size - logHandedOver.size >= Self.logWritebackStep
                || logHandedOver.commitsSince >= Self.logWritebackCommits
        else { return }
        _ = cwriteback_start(logDescriptor, 0, 0)
        logHandedOver = (size: size, commitsSince: 0)
    }

    /// Log growth after which a commit hands the log to the kernel's writeback (``startLogWriteback()``).
    static let logWritebackStep: Int64 = 1 << 20
    /// Commits after which one hands the log over even if it did not grow by ``logWritebackStep``.
    static let logWritebackCommits = 64

    /// Closes the descriptor of the `-wal` (the log is gone, or the store is).
    func closeLogDescriptor() {
        guard logDescriptor >= 0 else { return }
        close(logDescriptor)
        logDescriptor = -1
    }

    /// The journal mode the file is in, as this connection sees it: `wal` or `delete` (lowercase).
    public func journalMode() throws -> String {
        try translatingErrors { try db.journalMode() }
    }
}
