import Foundation

extension Ledger {
    /// Decodes stored events.
    static func logged(_ stored: [StoredEvent]) throws -> [LoggedEntry] {
        try stored.map { e in
            do {
                return LoggedEntry(
                    seq: e.seq, time: e.time, entry: try Entry.decode(kind: e.kind, payload: e.payload))
            } catch {
                throw LedgerOpenError.unreadableEvent(seq: e.seq, detail: "\(error)")
            }
        }
    }

    /// The seq of the latest snapshot in the file (written by any process), nil when there is none.
    public func latestSnapshotSeq() throws -> Int64? {
        try withLock {
            try store.latestSnapshotSeq(reducerVersion: DownloadList.reducerVersion, atOrBefore: nil)
        }
    }

    /// The seq of the snapshot this ledger's list was loaded from, or of the last one it saved; nil when none.
    /// Unlike `latestSnapshotSeq()` nothing is read (nor is the snapshot's seal checked a second time).
    public var snapshotSeq: Int64? { withLock { lastSnapshotSeq > 0 ? lastSnapshotSeq : nil } }

    /// A quick check of the chain's head (the last event's hash against the one before it): why it fails, or nil.
    /// Cheap enough for every read; `verify()` checks the whole log.
    public func checkHead() throws -> String? {
        try withLock { try (store as? SQLiteEventStore)?.checkHead() }
    }

    /// Events after `after` (a seq), at most `limit`, in order.
    public func log(after: Int64 = 0, limit: Int? = nil) throws -> [LoggedEntry] {
        try withLock { try Self.logged(try store.events(after: after, through: nil, limit: limit)) }
    }

    /// The last seq committed at or before `time` (ms since the Unix epoch).
    public func seq(atOrBefore time: Int64) throws -> Int64 {
        try withLock { try store.lastSeq(atOrBefore: time) }
    }

    /// The connections of each running transfer among `ids`, as the log last recorded them: the count of the last
    /// `transferConnections` fact after the task's last `transferStarted` (split, resumed in pieces, a connection
    /// dropped). Absent for a task with no such fact in its current attempt (one connection, or not known yet).
    /// What another process can know of a transfer's connections; the downloader's own activity has the live count.
    public func loggedConnections(of ids: [TaskID]) throws -> [TaskID: Int] {
        var counts: [TaskID: Int] = [:]
        for id in ids {
            for logged in try auditTrail(id).entries.reversed() {
                if case .transferStarted = logged.entry.event { break }
                if case .transferConnections(_, let count, _) = logged.entry.event {
                    counts[id] = count
                    break
                }
            }
        }
        return counts
    }

    /// Every event that touched one task, in order: its audit trail.
    public func audit(_ id: TaskID) throws -> [LoggedEntry] { try auditTrail(id).entries }

    /// The list exactly as it was after event `seq` (from the nearest snapshot at or before it, then the log).
    /// - Complexity: O(events between that snapshot and `seq`).
    public func replay(through seq: Int64) throws -> DownloadList {
        try withLock {
            var list = try Self.startingPoint(
                store, atOrBefore: seq, reader: Self.loggedEvents(store, lock: lock))
            try Self.fold(store, into: &list, through: seq)
            return list
        }
    }

    /// The list as it was at `time` (ms since the Unix epoch).
    public func replay(at time: Int64) throws -> DownloadList {
        try replay(through: try seq(atOrBefore: time))
    }

    /// Folds the events after the list's head (through `through`) into it; with `actions`, its undo history holds
    /// the actions by reference to the log (``DownloadList/apply(_:actionsLoggedIn:)``).
    /// - Returns: the replay work done (``work(of:payload:liveCount:)`` of each event).
    @discardableResult
    static func fold(
        _ store: EventStore, into list: inout DownloadList, through: Int64?,
        actionsLoggedIn actions: LoggedEventReader? = nil
    ) throws -> Int {
        var failure: LedgerOpenError?
        var work = 0
        try store.scan(after: list.head, through: through) { view in
            guard failure == nil else { return }
            do {
                let entry = try Entry.decode(kind: view.kind, payload: view.payload)
                list.apply(
                    LoggedEntry(seq: view.seq, time: view.time, entry: entry), actionsLoggedIn: actions)
                work += Self.work(of: entry.event, payload: view.payload.count, liveCount: list.liveCount)
            } catch {
                failure = .unreadableEvent(seq: view.seq, detail: "\(error)")
            }
        }
        if let failure { throw failure }
        return work
    }

    /// The latest readable snapshot at or before `seq` (nil: any), else the empty list: where a fold starts.
    /// A snapshot that cannot be read, or that disagrees with its own seq, is skipped: it is only a cache.
    /// Its undo steps read their logged actions back through `reader` (by default, from `store` directly).
    /// With `keepingOnly`, every other task is read as its id and state alone (``DownloadList/init(snapshot:reader:keepingOnly:statesOf:)``);
    /// with `tail` too, when the snapshot read is the one at `tail.after`, only the tasks `tail.names` (those the
    /// events to be folded onto it name) are kept so.
    static func startingPoint(
        _ store: EventStore, atOrBefore seq: Int64?, reader: LoggedEventReader? = nil,
        keepingOnly: TaskID? = nil, tail: (after: Int64, names: Set<TaskID>)? = nil
    ) throws -> DownloadList {
        let reader = reader ?? loggedEvents(store, lock: nil)
        let cached = try store.withLatestSnapshot(
            reducerVersion: DownloadList.reducerVersion, atOrBefore: seq
        ) {
            seq, bytes -> DownloadList? in
            let names = tail.flatMap { $0.after == seq ? $0.names : nil }
            guard
                let list = try? DownloadList(
                    snapshot: bytes, reader: reader, keepingOnly: keepingOnly, statesOf: names),
                list.head == seq
            else {
                return nil
            }
            return list
        }
        return (cached ?? nil) ?? DownloadList()
    }
}
