import Foundation

/// A new ledger appears whole or not at all: its file is written under a temporary name with the creation event
/// and the first command's events, then linked into place (`link` fails when the name is taken, so two processes
/// creating the same ledger never overwrite each other, and nothing that is not a ledger is ever taken over).
extension Ledger {
    /// Whether the ledger's file exists: false for a new ledger until its first command succeeds.
    public var isOnDisk: Bool { core.withLock { $0.pendingCreation == nil } }

    /// Whether a ledger file is at `path`.
    /// - Throws: `StoreError.cannotOpen` for a directory, `.notALedger` for anything else that is not a regular file
    ///   (a FIFO, a device): neither is opened.
    static func checkExisting(_ path: String) throws -> Bool {
        if PostgresLocation.isPostgres(path) { return try EventStoreLocation.postgresLedgerExists(path) }
        var info = stat()
        guard stat(path, &info) == 0 else {
            if errno == ENOENT { return false }
            throw StoreError.cannotOpen(path, String(cString: strerror(errno)))
        }
        switch info.st_mode & S_IFMT {
        case S_IFREG: return true
        case S_IFDIR: throw StoreError.cannotOpen(path, "it is a directory")
        default: throw StoreError.notALedger(path)
        }
    }

    /// Writes a ledger holding `events` at `path`, unless a file is there already.
    /// - Returns: false when `path` was taken (by another process creating it meanwhile): nothing was changed.
    static func createFile(at path: String, events: [NewEvent], vault: VaultChange = .none, time: Int64)
        throws
        -> Bool
    {
        if PostgresLocation.isPostgres(path) {
            return try StoreFactory.createInPostgres(uri: path, events: events, vault: vault, time: time)
        }
        let parent = (path as NSString).deletingLastPathComponent
        if !parent.isEmpty {
            try? FileManager.default.createDirectory(atPath: parent, withIntermediateDirectories: true)
        }
        let temporary = path + ".new-\(getpid())-\(UInt32.random(in: 0...UInt32.max))"
        defer {
            for suffix in ["", "-wal", "-shm", "-journal"] { unlink(temporary + suffix) }
        }
        do {
            // No one sees the temporary file before it is linked: it is written in place without a sync (no log
            // beside it), and then the file is synced once (then the folder, once linked). Two fsyncs for a new
            // ledger, not nine; nothing is acknowledged before both.
            try StoreFactory.createUnsynced(at: temporary, events: events, vault: vault, time: time)
        }
        try syncFile(temporary, for: path)
        guard link(temporary, path) == 0 else {
            if errno == EEXIST { return false }
            guard [EPERM, ENOTSUP, EXDEV, EMLINK].contains(errno) else {
                throw StoreError.cannotOpen(path, String(cString: strerror(errno)))
            }
            // A file system without hard links: a rename, after a last look.
            guard !(try checkExisting(path)) else { return false }
            guard rename(temporary, path) == 0 else {
                throw StoreError.cannotOpen(path, String(cString: strerror(errno)))
            }
            syncDirectory(parent)
            return true
        }
        syncDirectory(parent)
        return true
    }

    /// Removes what a creation that died between writing its temporary ledger and linking it left beside `path`:
    /// files named exactly `<name>.new-<pid>-<number>` (or that with `-wal`, `-shm`, `-journal`), regular files
    /// of this user (never a link), whose pid is no longer running. Anything else is left alone.
    static func removeStaleTemporaries(of path: String) {
        let parent = (path as NSString).deletingLastPathComponent
        let prefix = (path as NSString).lastPathComponent + ".new-"
        let dirFD = open(parent.isEmpty ? "." : parent, O_RDONLY | O_DIRECTORY | O_CLOEXEC)
        guard dirFD >= 0 else { return }
        defer { close(dirFD) }
        guard let names = try? FileManager.default.contentsOfDirectory(atPath: parent.isEmpty ? "." : parent)
        else { return }
        for name in names where name.hasPrefix(prefix) {
            guard let pid = creatorPID(String(name.dropFirst(prefix.count))), kill(pid, 0) != 0,
                errno == ESRCH
            else { continue }
            var info = stat()
            guard fstatat(dirFD, name, &info, AT_SYMLINK_NOFOLLOW) == 0, info.st_mode & S_IFMT == S_IFREG,
                info.st_uid == geteuid()
            else { continue }
            unlinkat(dirFD, name, 0)
        }
    }

    /// The pid in the rest of a temporary's name (`<pid>-<number>` and an optional SQLite suffix), nil when the
    /// rest is not exactly that.
    static func creatorPID(_ rest: String) -> pid_t? {
        var rest = Substring(rest)
        for suffix in ["-wal", "-shm", "-journal"] where rest.hasSuffix(suffix) {
            rest = rest.dropLast(suffix.count)
            break
        }
        let parts = rest.split(separator: "-", omittingEmptySubsequences: false)
        guard parts.count == 2,
            parts.allSatisfy({ !$0.isEmpty && $0.count <= 10 && $0.allSatisfy(\.isASCII) }),
            let pid = Int32(parts[0]), pid > 0, UInt32(parts[1]) != nil,
            parts.allSatisfy({ $0.allSatisfy(\.isNumber) })
        else { return nil }
        return pid
    }

    /// Pushes the file at `temporary` (the ledger that becomes `path`) to the disk.
    /// - Throws: `StoreError.cannotOpen(path, …)` when it cannot be opened or synced.
    private static func syncFile(_ temporary: String, for path: String) throws {
        let fd = open(temporary, O_RDONLY | O_CLOEXEC | O_NOFOLLOW)
        guard fd >= 0 else { throw StoreError.cannotOpen(path, String(cString: strerror(errno))) }
        defer { close(fd) }
        guard fsync(fd) == 0 else { throw StoreError.cannotOpen(path, String(cString: strerror(errno))) }
    }

    private static func syncDirectory(_ parent: String) {
        let fd = open(parent.isEmpty ? "." : parent, O_RDONLY | O_DIRECTORY | O_CLOEXEC)
        guard fd >= 0 else { return }
        fsync(fd)
        close(fd)
    }
}

extension Ledger {
    /// Whether a downloader (`Scheduler.run`, in this or another process) holds this ledger's run lock now. A task
    /// the list says is downloading while none does was interrupted (a kill, a crash): it resumes with the next run.
    /// On PostgreSQL the server is asked on this ledger's store connection.
    public var isDownloaderRunning: Bool { runLockHeld(host: nil) }

    /// The pid of the downloader that holds this ledger's run lock now: as written in `<ledger>.lock`, or for a
    /// PostgreSQL ledger as its session names it (a pid on the host it runs on). Nil when none holds it or its pid
    /// cannot be told. For a PostgreSQL ledger this connects to the server: ask it seldom.
    public var downloaderPid: Int32? { RunLock.holder(ledgerPath: path) }
    /// Whether the downloader of `host` holds this ledger's run lock now: on a PostgreSQL ledger, where several
    /// host names run together, that host's; on a SQLite ledger, the one downloader's (``isDownloaderRunning``).
    public func isDownloaderRunning(host: String) -> Bool { runLockHeld(host: host) }

    /// The run lock (of `host` when given) as ``RunLock/isHeld(ledgerPath:host:)`` tells it; a PostgreSQL ledger
    /// open on its store asks on that connection instead of making one for the look. False when it cannot be told.
    private func runLockHeld(host: String?) -> Bool {
        let asked = core.withLock { state -> Bool? in
            guard let store = state.store as? PostgresEventStore else { return nil }
            return (try? store.isRunLockHeld(host: host)) ?? false
        }
        return asked ?? RunLock.isHeld(ledgerPath: path, host: host)
    }

    /// Folds the write-ahead log into the main file when no other process still needs it, so that the main file
    /// alone (what users copy) holds every acknowledged event. Called when a command is done with the ledger.
    /// - Returns: whether the main file alone holds every event now.
    @discardableResult
    public func checkpoint() -> Bool {
        core.withLock { $0.store.checkpoint() }
    }

    /// The process is done writing to this ledger: the write-ahead log is folded into the main file and, when no
    /// other process has the file open, the file is left in rollback-journal mode, without a `-wal` or `-shm`, so
    /// that any copy of it opens in the plain `sqlite3` shell, even read-only in a folder the reader cannot write.
    /// Never waits; the next process that opens it to write switches it back to WAL. The ledger stays usable.
    /// - Returns: whether the file is quiet (rollback-journal mode) now.
    @discardableResult
    public func leaveQuiet() -> Bool {
        core.withLock { $0.store.leaveQuiet() }
    }

    /// Writes a consistent, self-contained copy of the ledger to `destination` (one file, usable alone), while
    /// other processes may go on writing. Never overwrites: something at `destination` is an error.
    /// - Returns: the head (last seq) of the copy, read back from it.
    /// - Throws: `StoreError.cannotBackUp` (destination exists or cannot be written); `LedgerOpenError.noLedger`
    ///   for a ledger not yet on disk.
    public func backup(to destination: String) throws -> Int64 {
        try core.withLock { state in
            guard state.pendingCreation == nil else {
                throw LedgerOpenError.noLedger(EventStoreLocation.shown(path))
            }
            return try state.store.backup(to: destination)
        }
    }
}

extension Ledger.State {
    /// Appends a user command's entries after the head and applies them to the list as they were written (what
    /// was just written is not read back and decoded: an add of a million URLs is a payload of 100 MB). On a
    /// ledger not yet on disk, writes its file first.
    /// - Returns: the seq of the last entry and the commit time of all of them.
    /// - Throws: `StoreError.conflict` when another process appended first (or created the ledger first: the
    ///   command is then decided again on that ledger).
    mutating func appendCommand(_ entries: [Entry], vault: VaultChange = .none, time: Int64) throws -> (
        last: Int64, time: Int64
    ) {
        let events = entries.map(Ledger.newEvent)
        let last: Int64
        if let creation = pendingCreation {
            guard try Ledger.createFile(at: path, events: [creation] + events, vault: vault, time: time)
            else {
                try openCreatedFile()
                throw StoreError.conflict(head: list.head)
            }
            try openCreatedFile(through: 1)
            last = Int64(1 + events.count)
        } else {
            try useFactDurability(false)
            last = try store.append(events, expectingHead: list.head, time: time, vault: vault)
        }
        let committed = try store.commitTime(of: last) ?? time
        for (n, entry) in entries.enumerated() {
            let seq = last - Int64(entries.count - 1 - n)
            list.apply(LoggedEntry(seq: seq, time: committed, entry: entry))
            workSinceSnapshot += Ledger.work(
                of: entry.event, payload: events[n].payload.count, liveCount: list.liveCount)
            // A big add's index, so that `audit` of one of its tasks reads that task's part alone. A cache: if it
            // is not saved, the add is read whole.
            if events[n].payload.count >= AddIndex.minimumPayload,
                let index = events[n].payload.withUnsafeBytes({ AddIndex(entry: entry, payload: $0) })
            {
                try? store.saveAddIndex(seq: seq, bytes: index.encoded())
            }
        }
        return (last, committed)
    }

    /// Switches from the in-memory start to the file now at `path`, folding its events (through `through`: the
    /// caller applies the rest itself).
    mutating func openCreatedFile(through: Int64? = nil) throws {
        let file = try StoreFactory.open(path: path)
        var opened = try LedgerLog.startingPoint(file, atOrBefore: through, reader: reader)
        lastSnapshotSeq = opened.head
        workSinceSnapshot = try LedgerLog.fold(file, into: &opened, through: through)
        store = file
        list = opened
        pendingCreation = nil
        factDurability = false
        lastToken = try file.changeToken()
    }
}
