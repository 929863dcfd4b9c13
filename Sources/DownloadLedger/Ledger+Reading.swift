/// The ledger's read calls: ``LedgerLog``'s reads, run on this ledger's own store under its mutex (a new ledger's
/// events are in that store alone until its first command writes the file). Reading a ledger without opening it
/// for writing is ``LedgerLog``'s own (`LedgerLog(path:)`, ``LedgerLog/verify(path:checkFiles:checksums:)``).
extension Ledger {
    /// A task's audit trail, and where it was read from (``LedgerLog/AuditTrail``).
    public typealias AuditTrail = LedgerLog.AuditTrail
    /// What `dledger stats` prints of a ledger (``LedgerLog/Stats``).
    public typealias Stats = LedgerLog.Stats

    /// The seq of the latest snapshot in the file (written by any process), nil when there is none.
    public func latestSnapshotSeq() throws -> Int64? {
        try core.withLock {
            try $0.store.latestSnapshotSeq(reducerVersion: DownloadList.reducerVersion, atOrBefore: nil)
        }
    }

    /// The seq of the snapshot this ledger's list was loaded from, or of the last one it saved; nil when none.
    /// Unlike `latestSnapshotSeq()` nothing is read (nor is the snapshot's seal checked a second time).
    public var snapshotSeq: Int64? { core.withLock { $0.lastSnapshotSeq > 0 ? $0.lastSnapshotSeq : nil } }

    /// A quick check of the chain's head (the last event's hash against the one before it): why it fails, or nil.
    /// Cheap enough for every read; `verify()` checks the whole log.
    public func checkHead() throws -> String? {
        try core.withLock { try $0.store.checkHead() }
    }

    /// Events after `after` (a seq), at most `limit`, in order.
    public func log(after: Int64 = 0, limit: Int? = nil) throws -> [LoggedEntry] {
        try core.withLock { try $0.events(after: after, limit: limit) }
    }

    /// The last seq committed at or before `time` (ms since the Unix epoch).
    public func seq(atOrBefore time: Int64) throws -> Int64 {
        try core.withLock { try $0.store.lastSeq(atOrBefore: time) }
    }

    /// The connections of each running transfer among `ids`, as the log last recorded them: the count of the last
    /// `transferConnections` fact after the task's last `transferStarted` (split, resumed in pieces, a connection
    /// dropped). Absent for a task with no such fact in its current attempt (one connection, or not known yet).
    /// What another process can know of a transfer's connections; the downloader's own activity has the live count.
    public func loggedConnections(of ids: [TaskID]) throws -> [TaskID: Int] {
        try core.withLock { try $0.loggedConnections(of: ids) }
    }

    /// Every event that touched one task, in order: its audit trail.
    public func audit(_ id: TaskID) throws -> [LoggedEntry] { try auditTrail(id).entries }

    /// Every event that touched one task, in order, read through the audit index when the index agrees with
    /// the log: it must return exactly as many events up to the list's head as the projection counted for the
    /// task, each of them naming it. Otherwise the events are scanned (O(n)).
    public func auditTrail(_ id: TaskID) throws -> AuditTrail {
        try core.withLock { try $0.auditTrail(id) }
    }

    /// The list exactly as it was after event `seq` (from the nearest snapshot at or before it, then the log).
    /// - Complexity: O(events between that snapshot and `seq`).
    public func replay(through seq: Int64) throws -> DownloadList {
        let reader = loggedEvents.reader
        return try core.withLock { try $0.list(through: seq, reader: reader) }
    }

    /// The list as it was at `time` (ms since the Unix epoch).
    public func replay(at time: Int64) throws -> DownloadList {
        try replay(through: try seq(atOrBefore: time))
    }

    /// Checks everything the log promises: the hash chain holds and every seq is present; the audit index
    /// records exactly the tasks each event lists; every snapshot's seal holds (tied to the chain, unedited);
    /// replay from zero equals the latest snapshot and the live projection; finished tasks' files exist with their size
    /// (and, with `checksums`, their SHA-256).
    ///
    /// Holds the mutex throughout (it reads the store the ledger writes through): writers wait for it.
    public func verify(checkFiles: Bool = true, checksums: Bool = false) throws -> VerifyReport {
        try core.withLock {
            try $0.verify(checkFiles: checkFiles, checksums: checksums)
        }
    }

    /// ``LedgerLog/verify(path:checkFiles:checksums:)``: the ledger at `path` checked without opening it to write.
    public static func verify(
        path: String, checkFiles: Bool = true, checksums: Bool = false, host: String? = nil
    ) throws
        -> VerifyReport
    {
        try LedgerLog.verify(path: path, checkFiles: checkFiles, checksums: checksums, host: host)
    }

    /// ``LedgerLog/stats(path:)``: the summary of the ledger at `path`, opened read-only.
    public static func stats(path: String) throws -> Stats {
        try LedgerLog.stats(path: path)
    }
}

/// ``LedgerLog``'s reads on the ledger's store, with the mutex held.
extension Ledger.State {
    func events(after: Int64, limit: Int?) throws -> [LoggedEntry] {
        try LedgerLog.events(in: store, after: after, limit: limit)
    }

    func loggedConnections(of ids: [TaskID]) throws -> [TaskID: Int] {
        try LedgerLog.loggedConnections(of: ids, in: store, list: list)
    }

    func auditTrail(_ id: TaskID) throws -> LedgerLog.AuditTrail {
        try LedgerLog.auditTrail(id, in: store, head: list.head, counted: list.eventCounts[id])
    }

    func list(through seq: Int64, reader: LoggedEventReader) throws -> DownloadList {
        try LedgerLog.list(in: store, through: seq, reader: reader)
    }

    func verify(checkFiles: Bool, checksums: Bool) throws -> VerifyReport {
        try LedgerLog.verify(store, checkFiles: checkFiles, checksums: checksums, opening: false)
    }
}
