import Foundation

/// What `verify` found. Valid only when `problems` is empty.
public struct VerifyReport: Sendable {
    public var events: Int64
    public var head: Int64
    public var snapshotSeq: Int64?
    public var filesChecked: Int
    public var problems: [String]

    public var isValid: Bool { problems.isEmpty }
}

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

    /// Folds the events after the list's head (through `through`) into it.
    /// - Returns: the replay work done: payload bytes plus `eventWork` per event.
    @discardableResult
    static func fold(_ store: EventStore, into list: inout DownloadList, through: Int64?) throws -> Int {
        var failure: LedgerOpenError?
        var work = 0
        try store.scan(after: list.head, through: through) { view in
            guard failure == nil else { return }
            work += view.payload.count + eventWork
            do {
                let entry = try Entry.decode(kind: view.kind, payload: view.payload)
                list.apply(LoggedEntry(seq: view.seq, time: view.time, entry: entry))
            } catch {
                failure = .unreadableEvent(seq: view.seq, detail: "\(error)")
            }
        }
        if let failure { throw failure }
        return work
    }

    /// Checks everything the log promises: the hash chain holds and every seq is present; the audit index
    /// records exactly the tasks each event lists; every snapshot's seal holds (tied to the chain, unedited);
    /// replay from zero equals the latest snapshot and the live projection; finished tasks' files exist with their size
    /// (and, with `checksums`, their SHA-256).
    public func verify(checkFiles: Bool = true, checksums: Bool = false) throws -> VerifyReport {
        try withLock { try Self.verify(store, checkFiles: checkFiles, checksums: checksums, opening: false) }
    }

    /// ``verify(checkFiles:checksums:)`` of the ledger at `path`, opened read-only without its projection: the
    /// replay and the live projection are each held alone, and compared by the digest of their encoding
    /// (`dledger verify` of 100,000 tasks holds one list at a time).
    /// - Throws: `LedgerOpenError.noLedger` when there is no file; `StoreError` when it is not a ledger;
    ///   `LedgerOpenError.unreadableEvent` when its projection cannot be computed, as opening it would.
    public static func verify(path: String, checkFiles: Bool = true, checksums: Bool = false) throws
        -> VerifyReport
    {
        guard try checkExisting(path) else { throw LedgerOpenError.noLedger(path) }
        let store = try SQLiteEventStore(path: path, readOnly: true, existing: true)
        return try verify(store, checkFiles: checkFiles, checksums: checksums, opening: true)
    }

    /// `opening`: the store was opened for this check alone; a live projection that cannot be computed is then the
    /// error opening the ledger gives (an open ledger has one: a failure now is a problem found).
    static func verify(_ store: EventStore, checkFiles: Bool, checksums: Bool, opening: Bool) throws
        -> VerifyReport
    {
        // The live projection first (latest snapshot plus tail), kept only as the digest of its encoding.
        let opened = opening ? FileDigest.sha256(try liveProjection(store).snapshotBytes()) : nil
        var problems: [String] = []
        let chain = try store.verifyChain()
        if let p = chain.firstProblem {
            problems.append("hash chain broken at event #\(p.seq): \(p.reason)")
        }
        if let index = try store.verifyIndex() { problems.append("\(index)") }
        problems += try store.snapshotProblems(reducerVersion: DownloadList.reducerVersion).map(\.description)
        let version = DownloadList.reducerVersion
        let snapshotSeq = try store.latestSnapshotSeq(reducerVersion: version, atOrBefore: nil)
        var replayed = DownloadList()
        do {
            let live = try opened ?? FileDigest.sha256(liveProjection(store).snapshotBytes())
            if let snapshotSeq {
                try fold(store, into: &replayed, through: snapshotSeq)
                // The replay encodes to the sealed bytes (the usual case), or is compared as a list: another
                // encoding of the same list is no problem.
                if try !store.snapshotHolds(
                    replayed.snapshotBytes(), reducerVersion: version, seq: snapshotSeq)
                {
                    let cached = try store.withLatestSnapshot(
                        reducerVersion: version, atOrBefore: snapshotSeq
                    ) {
                        seq, bytes in seq == snapshotSeq ? try? DownloadList(snapshot: bytes) : nil
                    }
                    if let cached = cached ?? nil {
                        if cached != replayed {
                            problems.append("snapshot at #\(snapshotSeq) differs from the replay of the log")
                        }
                    } else {
                        problems.append("snapshot at #\(snapshotSeq) cannot be read")
                    }
                }
                let summary = try store.withLatestSummary(reducerVersion: version, atOrBefore: snapshotSeq) {
                    seq, bytes in seq == snapshotSeq ? try? ListSummary(encoded: bytes) : nil
                }
                if let summary = summary ?? nil, summary != ListSummary(replayed) {
                    problems.append(
                        "the summary of snapshot #\(snapshotSeq) differs from the replay of the log")
                }
            }
            try fold(store, into: &replayed, through: nil)
            if FileDigest.sha256(replayed.snapshotBytes()) != live, try replayed != liveProjection(store) {
                problems.append("replay from zero differs from the live projection")
            }
        } catch {
            problems.append("\(error)")
        }
        var checked = 0
        if checkFiles {
            for id in replayed.tasks.keys.sorted() {
                guard let t = replayed.tasks[id], t.state == .finished, let path = t.filePath else {
                    continue
                }
                checked += 1
                problems.append(contentsOf: Self.checkFile(t, path: path, checksum: checksums))
            }
        }
        return VerifyReport(
            events: chain.rowCount, head: chain.head, snapshotSeq: snapshotSeq, filesChecked: checked,
            problems: problems)
    }

    /// The projection as an open ledger computes it: latest snapshot plus tail.
    static func liveProjection(_ store: EventStore) throws -> DownloadList {
        var list = try startingPoint(store, atOrBefore: nil)
        try fold(store, into: &list, through: nil)
        return list
    }

    /// The latest readable snapshot at or before `seq` (nil: any), else the empty list: where a fold starts.
    /// A snapshot that cannot be read, or that disagrees with its own seq, is skipped: it is only a cache.
    /// Its undo steps read their logged actions back through `reader` (by default, from `store` directly).
    /// With `keepingOnly`, every other task is read as its id and state alone (``DownloadList/init(snapshot:reader:keepingOnly:keepingOthers:)``),
    /// and not kept at all when the snapshot is at `foldedTo`, the seq the list is to be folded to (nothing to fold).
    static func startingPoint(
        _ store: EventStore, atOrBefore seq: Int64?, reader: LoggedEventReader? = nil,
        keepingOnly: TaskID? = nil, foldedTo: Int64? = nil
    ) throws -> DownloadList {
        let reader = reader ?? loggedEvents(store, lock: nil)
        let cached = try store.withLatestSnapshot(
            reducerVersion: DownloadList.reducerVersion, atOrBefore: seq
        ) {
            seq, bytes -> DownloadList? in
            let others = foldedTo.map { seq < $0 } ?? true
            guard
                let list = try? DownloadList(
                    snapshot: bytes, reader: reader, keepingOnly: keepingOnly, keepingOthers: others),
                list.head == seq
            else {
                return nil
            }
            return list
        }
        return (cached ?? nil) ?? DownloadList()
    }

    private static func checkFile(_ t: DownloadTask, path: String, checksum: Bool) -> [String] {
        guard let attributes = try? FileManager.default.attributesOfItem(atPath: path) else {
            return ["task #\(t.id): file missing: \(path)"]
        }
        let size = (attributes[.size] as? NSNumber)?.int64Value ?? -1
        guard size == t.bytes else {
            return ["task #\(t.id): \(path) has \(size) bytes, the log says \(t.bytes)"]
        }
        if checksum, let expected = t.sha256, let actual = try? FileDigest.sha256(path: path),
            actual != expected
        {
            return ["task #\(t.id): \(path) SHA-256 \(actual) differs from the log's \(expected)"]
        }
        return []
    }
}
