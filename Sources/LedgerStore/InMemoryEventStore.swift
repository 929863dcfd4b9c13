/// The reference `EventStore`: the same semantics as `SQLiteEventStore`, kept in arrays (tests, previews, and a
/// new ledger before its first command writes its file). Its upkeep (``EventStoreUpkeep``) has nothing to do:
/// nothing is on disk.
public final class InMemoryEventStore: EventStoreUpkeep {
    private var log: [StoredEvent] = []
    private var snapshots: [Int: [(seq: Int64, bytes: [UInt8], summary: [UInt8]?)]] = [:]
    private var appendCount: Int64 = 0
    private var keys: [Int64: VaultKey] = [:]
    private let hasher = ChainHasher()

    public init() {}

    public func head() throws -> Int64 { log.last?.seq ?? 0 }

    /// Counts appends: there is no other connection, so every change comes through this instance.
    public func changeToken() throws -> Int64 { appendCount }

    public func append(_ events: [NewEvent], expectingHead: Int64, time: Int64) throws -> Int64 {
        try append(events, expectingHead: expectingHead, time: time, vault: .none)
    }

    public func append(_ events: [NewEvent], expectingHead: Int64, time: Int64, vault: VaultChange) throws
        -> Int64
    {
        let head = try head()
        guard head == expectingHead else { throw StoreError.conflict(head: head) }
        let removed = Set(vault.removed)
        for key in vault.added where keys[key.task] != nil && !removed.contains(key.task) {
            throw VaultError.malformed("task #\(key.task) already has a vault key")
        }
        for task in vault.removed { keys[task] = nil }
        for key in vault.added { keys[key.task] = key }
        let commitTime = max(time, log.last?.time ?? time)
        if let last = log.last {
            last.hash.withUnsafeBytes { hasher.restart(from: $0) }
        } else {
            hasher.restart(from: nil)
        }
        var seq = head
        for event in events {
            seq += 1
            log.append(
                StoredEvent(
                    seq: seq, time: commitTime, kind: event.kind, version: event.version, tasks: event.tasks,
                    payload: event.payload, hash: chain(event, seq: seq, time: commitTime)))
        }
        if !events.isEmpty { appendCount += 1 }
        return seq
    }

    public func vaultKey(task: Int64) throws -> VaultKey? { keys[task] }

    public func vaultTasks() throws -> [Int64] { keys.keys.sorted() }

    public func scan(after: Int64, through: Int64?, _ body: (RawEventView) throws -> Void) throws {
        for event in try events(after: after, through: through, limit: nil) { try Self.view(event, body) }
    }

    /// `body` with a borrowed view of `event`.
    private static func view(_ event: StoredEvent, _ body: (RawEventView) throws -> Void) throws {
        var kind = event.kind
        try kind.withUTF8 { kindBytes in
            try event.payload.withUnsafeBytes { payload in
                try body(
                    RawEventView(
                        seq: event.seq, time: event.time, kind: UnsafeRawBufferPointer(kindBytes),
                        payload: payload))
            }
        }
    }

    public func events(after: Int64, through: Int64?, limit: Int?) throws -> [StoredEvent] {
        let head = log.last?.seq ?? 0
        let lower = min(max(after, 0), head)
        let upper = max(min(through ?? head, head), lower)
        let slice = log[Int(lower)..<Int(upper)]
        return Array(slice.prefix(max(limit ?? slice.count, 0)))
    }

    public func events(touching task: Int64) throws -> [StoredEvent] {
        log.filter { $0.tasks.contains(task) }
    }

    public func events(listing task: Int64) throws -> [StoredEvent] { try events(touching: task) }

    public func scan(
        touching task: Int64, indexed: Bool, _ body: (_ event: RawEventView, _ listsTask: Bool) throws -> Void
    ) throws {
        // No index apart from the events here: both ways are the events that list the task.
        for event in try events(touching: task) { try Self.view(event) { try body($0, true) } }
    }

    public func commitTime(of seq: Int64) throws -> Int64? {
        seq >= 1 && seq <= Int64(log.count) ? log[Int(seq - 1)].time : nil
    }

    public func lastSeq(atOrBefore time: Int64) throws -> Int64 {
        var low = 0
        var high = log.count
        while low < high {
            let middle = low + (high - low + 1) / 2
            if log[middle - 1].time <= time { low = middle } else { high = middle - 1 }
        }
        return Int64(low)
    }

    public func saveSnapshot(seq: Int64, reducerVersion: Int, bytes: [UInt8], summary: [UInt8]?) throws {
        let head = try head()
        guard seq <= head else { throw StoreError.snapshotBeyondHead(seq: seq, head: head) }
        var kept = snapshots[reducerVersion, default: []].filter { $0.seq != seq }
        kept.append((seq, bytes, summary))
        kept.sort { $0.seq < $1.seq }
        snapshots[reducerVersion] = Array(kept.suffix(Int(SQLiteEventStore.snapshotsKept)))
    }

    public func withLatestSnapshot<T>(
        reducerVersion: Int, atOrBefore seq: Int64?,
        _ body: (_ seq: Int64, _ bytes: UnsafeRawBufferPointer) throws -> T
    ) throws -> T? {
        guard let found = snapshots[reducerVersion]?.last(where: { $0.seq <= seq ?? Int64.max }) else {
            return nil
        }
        return try found.bytes.withUnsafeBytes { try body(found.seq, $0) }
    }

    public func withLatestSummary<T>(
        reducerVersion: Int, atOrBefore seq: Int64?,
        _ body: (_ seq: Int64, _ summary: UnsafeRawBufferPointer) throws -> T
    ) throws -> T? {
        guard
            let found = snapshots[reducerVersion]?.last(where: {
                $0.seq <= seq ?? Int64.max && $0.summary != nil
            }),
            let summary = found.summary
        else { return nil }
        return try summary.withUnsafeBytes { try body(found.seq, $0) }
    }

    public func latestSnapshotSeq(reducerVersion: Int, atOrBefore seq: Int64?) throws -> Int64? {
        snapshots[reducerVersion]?.last(where: { $0.seq <= seq ?? Int64.max })?.seq
    }

    /// Snapshots held in memory cannot be edited behind the store's back.
    public func snapshotProblems(reducerVersion: Int) throws -> [SnapshotProblem] { [] }

    /// `events(touching:)` filters the log itself: there is no separate index to disagree with it.
    public func verifyIndex() throws -> IndexProblem? { nil }

    public func verifyChain() throws -> ChainReport {
        hasher.restart(from: nil)
        var problem: ChainReport.Problem?
        for (index, event) in log.enumerated() where problem == nil {
            if event.seq != Int64(index + 1) {
                problem = .init(seq: event.seq, reason: .gap(expected: Int64(index + 1)))
                break
            }
            let unstored = NewEvent(
                kind: event.kind, version: event.version, tasks: event.tasks, payload: event.payload)
            if chain(unstored, seq: event.seq, time: event.time) != event.hash {
                problem = .init(seq: event.seq, reason: .hashMismatch)
            }
        }
        return ChainReport(
            rowCount: Int64(log.count), head: log.last?.seq ?? 0, headHash: log.last?.hash ?? [],
            firstProblem: problem)
    }

    public func checkHead() throws -> String? {
        guard let last = log.last else { return nil }
        guard last.seq == Int64(log.count) else { return "the events before #\(last.seq) are missing" }
        return try linkedEvent(at: last.seq) == nil ? "the hash of event #\(last.seq) does not match" : nil
    }

    public func linkedEvent(at seq: Int64) throws -> StoredEvent? {
        guard seq >= 1, seq <= Int64(log.count) else { return nil }
        let event = log[Int(seq - 1)]
        if seq > 1 {
            log[Int(seq - 2)].hash.withUnsafeBytes { hasher.restart(from: $0) }
        } else {
            hasher.restart(from: nil)
        }
        let unstored = NewEvent(
            kind: event.kind, version: event.version, tasks: event.tasks, payload: event.payload)
        return chain(unstored, seq: seq, time: event.time) == event.hash ? event : nil
    }

    public func tasksNamed(after: Int64, through: Int64) throws -> Set<Int64>? {
        Set(try events(after: after, through: through, limit: nil).flatMap(\.tasks))
    }

    /// Commits here are in memory: there is no durability to choose.
    public func setDurability(_ durability: CommitDurability) throws {}

    /// There is no file to fold a log into: false, nothing on disk holds the events.
    public func checkpoint() -> Bool { false }

    /// There is no write-ahead log: nil, nothing done.
    public func checkpointPassive() -> (logFrames: Int, folded: Int)? { nil }

    /// There is no file to leave for other readers: false.
    public func leaveQuiet() -> Bool { false }

    /// There is no file to copy.
    /// - Throws: `StoreError.cannotBackUp` always.
    public func backup(to destination: String) throws -> Int64 {
        throw StoreError.cannotBackUp(destination, "the ledger is held in memory, not in a file")
    }

    /// Chains `event` after the hasher's current hash and returns its hash.
    private func chain(_ event: NewEvent, seq: Int64, time: Int64) -> [UInt8] {
        hasher.clear()
        var kind = event.kind
        kind.withUTF8 { kindBytes in
            event.payload.withUnsafeBytes { payload in
                hasher.chain(
                    seq: seq, time: time, kind: UnsafeRawBufferPointer(kindBytes), version: event.version,
                    tasks: event.tasks, payload: payload)
            }
        }
        return Array(hasher.hash)
    }
}
