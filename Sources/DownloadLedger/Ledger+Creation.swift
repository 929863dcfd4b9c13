import Foundation

/// A new ledger appears whole or not at all: its file is written under a temporary name with the creation event
/// and the first command's events, then linked into place (`link` fails when the name is taken, so two processes
/// creating the same ledger never overwrite each other, and nothing that is not a ledger is ever taken over).
extension Ledger {
    /// Whether the ledger's file exists: false for a new ledger until its first command succeeds.
    public var isOnDisk: Bool { withLock { pendingCreation == nil } }

    /// Whether a ledger file is at `path`.
    /// - Throws: `StoreError.cannotOpen` for a directory, `.notALedger` for anything else that is not a regular file
    ///   (a FIFO, a device): neither is opened.
    static func checkExisting(_ path: String) throws -> Bool {
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

    /// Appends a user command's events after the head. On a ledger not yet on disk, writes its file first.
    /// Caller holds the lock.
    /// - Throws: `StoreError.conflict` when another process appended first (or created the ledger first: the
    ///   command is then decided again on that ledger).
    func appendCommand(_ events: [NewEvent], vault: VaultChange = .none, time: Int64) throws -> Int64 {
        guard let creation = pendingCreation else {
            try useFactDurability(false)
            return try store.append(events, expectingHead: state.head, time: time, vault: vault)
        }
        let created = try Self.createFile(at: path, events: [creation] + events, vault: vault, time: time)
        try openCreatedFile()
        guard created else { throw StoreError.conflict(head: state.head) }
        return Int64(1 + events.count)
    }

    /// Switches from the in-memory start to the file now at `path`. Caller holds the lock.
    func openCreatedFile() throws {
        let file = try SQLiteEventStore(path: path, existing: true)
        var list = try Self.startingPoint(file, atOrBefore: nil)
        lastSnapshotSeq = list.head
        workSinceSnapshot = try Self.fold(file, into: &list, through: nil)
        store = file
        state = list
        pendingCreation = nil
        factDurability = false
        lastToken = try file.changeToken()
    }

    /// Writes a ledger holding `events` at `path`, unless a file is there already.
    /// - Returns: false when `path` was taken (by another process creating it meanwhile): nothing was changed.
    static func createFile(at path: String, events: [NewEvent], vault: VaultChange = .none, time: Int64)
        throws
        -> Bool
    {
        let parent = (path as NSString).deletingLastPathComponent
        if !parent.isEmpty {
            try? FileManager.default.createDirectory(atPath: parent, withIntermediateDirectories: true)
        }
        let temporary = path + ".new-\(getpid())-\(UInt32.random(in: 0...UInt32.max))"
        defer {
            for suffix in ["", "-wal", "-shm", "-journal"] { unlink(temporary + suffix) }
        }
        do {
            // Closed at the end of the scope: the last connection folds its log into the file and removes it.
            let store = try SQLiteEventStore(path: temporary)
            _ = try store.append(events, expectingHead: 0, time: time, vault: vault)
        }
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
    public var isDownloaderRunning: Bool { RunLock.isHeld(ledgerPath: path) }

    /// Folds the write-ahead log into the main file when no other process still needs it, so that the main file
    /// alone (what users copy) holds every acknowledged event. Called when a command is done with the ledger.
    /// - Returns: whether the main file alone holds every event now.
    @discardableResult
    public func checkpoint() -> Bool {
        withLock { (store as? SQLiteEventStore)?.checkpoint() ?? false }
    }

    /// Writes a consistent, self-contained copy of the ledger to `destination` (one file, usable alone), while
    /// other processes may go on writing. Never overwrites: something at `destination` is an error.
    /// - Returns: the head (last seq) of the copy, read back from it.
    /// - Throws: `StoreError.cannotOpen` (destination exists or cannot be written); `LedgerOpenError.noLedger`
    ///   for a ledger not yet on disk.
    public func backup(to destination: String) throws -> Int64 {
        try withLock {
            guard pendingCreation == nil, let file = store as? SQLiteEventStore else {
                throw LedgerOpenError.noLedger(path)
            }
            return try file.backup(to: destination)
        }
    }
}
