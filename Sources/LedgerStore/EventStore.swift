import LedgerCore

/// An append-only log of events with gapless seqs, a SHA-256 hash chain and a snapshot cache.
///
/// ```swift
/// let store = try SQLiteEventStore(path: "ledger.sqlite")
/// let head = try store.head()
/// let event = NewEvent(kind: "tasksAdded", version: 1, tasks: [7], payload: Array(#"{"id":7}"#.utf8))
/// do {
///     _ = try store.append([event], expectingHead: head, time: nowMilliseconds)
/// } catch StoreError.conflict(let newHead) {
///     // another writer got there first: re-read, re-validate, retry
/// }
/// try store.scan(after: 0, through: nil) { view in replay(view) }
/// ```
///
/// Implementations are not thread-safe: give each thread its own store (for SQLite, its own connection).
public protocol EventStore: AnyObject {
    /// The last seq, 0 when the log is empty.
    func head() throws -> Int64

    /// Appends `events` atomically after `expectingHead`, or nothing at all.
    ///
    /// The events get seqs `expectingHead + 1`… and commit time `time` (ms since the Unix epoch), raised to the
    /// head's time when earlier, so that times never decrease along the log.
    /// - Returns: the new head.
    /// - Throws: `StoreError.conflict(head:)` when the head is not `expectingHead` (nothing appended).
    /// - Complexity: O(events), one transaction.
    func append(_ events: [NewEvent], expectingHead: Int64, time: Int64) throws -> Int64

    /// Appends `events` as ``append(_:expectingHead:time:)`` does and, in the same transaction, stores the keys
    /// and deletes the keys `vault` names: the events and the keys their sealed credentials need commit together
    /// or not at all.
    /// - Throws: `StoreError.conflict(head:)` (nothing written), `.readOnly`.
    func append(_ events: [NewEvent], expectingHead: Int64, time: Int64, vault: VaultChange) throws -> Int64

    /// The vault key of `task`: nil when it has none (it never had a credential, or it was purged).
    func vaultKey(task: Int64) throws -> VaultKey?

    /// The tasks that have a vault key, in increasing order.
    func vaultTasks() throws -> [Int64]

    /// Calls `body` for each event with `after < seq <= through` (`nil`: to the end), in seq order.
    ///
    /// The view's buffers are borrowed: valid only during the call. Do not use the store from inside `body`.
    func scan(after: Int64, through: Int64?, _ body: (RawEventView) throws -> Void) throws

    /// The events with `after < seq <= through`, at most `limit` of them, in seq order.
    func events(after: Int64, through: Int64?, limit: Int?) throws -> [StoredEvent]

    /// Every event that touches `task`, in seq order (the task's audit trail).
    func events(touching task: Int64) throws -> [StoredEvent]

    /// The same events found without the audit index, from the tasks each event lists: for when the index is
    /// in doubt.
    /// - Complexity: O(n).
    func events(listing task: Int64) throws -> [StoredEvent]

    /// The events of ``events(touching:)`` (through the audit index), or of ``events(listing:)`` without `indexed`,
    /// read in place: `body` sees each one, valid only during the call, and whether the event's own list of tasks
    /// names `task` (an index row that does not). An add of a million tasks is neither copied nor split into ids.
    /// - Throws: `StoreError.corrupt` for a list of tasks that is not comma-separated ids.
    func scan(
        touching task: Int64, indexed: Bool, _ body: (_ event: RawEventView, _ listsTask: Bool) throws -> Void
    )
        throws

    /// ``scan(touching:indexed:_:)``, leaving out (with `leavingOutIndexedAdds`) the payload of each add that has an
    /// add index (``withAddIndex(seq:_:)``): `body` then sees an empty payload and `leftOut` true. A store without
    /// add indexes reads every payload.
    func scan(
        touching task: Int64, indexed: Bool, leavingOutIndexedAdds: Bool,
        _ body: (_ event: RawEventView, _ listsTask: Bool, _ leftOut: Bool) throws -> Void
    ) throws

    /// Saves the index of the add logged at `seq` (`AddIndex`'s bytes), sealed to the chain's hash there: a cache,
    /// like a snapshot. A store without add indexes (an older schema, read-only) does nothing.
    func saveAddIndex(seq: Int64, bytes: [UInt8]) throws

    /// The index of the add at `seq` when there is one whose seal holds: `body` sees its bytes, the length of that
    /// event's payload as stored, and a reader of the payload's bytes in a range (nil for a range past its end),
    /// which reads that part alone. Nil when there is none (or the store keeps none).
    func withAddIndex<T>(
        seq: Int64,
        _ body: (
            _ index: UnsafeRawBufferPointer, _ payloadLength: Int, _ piece: (Range<Int>) throws -> [UInt8]?
        ) throws -> T
    ) throws -> T?

    /// The seqs that have an add index saved, whether or not its seal holds (`verify` checks each).
    func addIndexSeqs() throws -> [Int64]

    /// The commit time of event `seq` (ms since the Unix epoch), nil when there is none; its payload is not read.
    func commitTime(of seq: Int64) throws -> Int64?

    /// The last seq committed at or before `time` (ms since the Unix epoch), 0 if none: replay "as of" a time.
    /// - Complexity: O(log n).
    func lastSeq(atOrBefore time: Int64) throws -> Int64

    /// Caches the state reduced from events `1...seq` by reducer version `reducerVersion`.
    ///
    /// Only the latest few snapshots per reducer version are kept; losing them costs only replay time. `summary`,
    /// when given, is a digest of the state small enough to read without `bytes` (`withLatestSummary`), sealed on
    /// its own.
    func saveSnapshot(seq: Int64, reducerVersion: Int, bytes: [UInt8], summary: [UInt8]?) throws

    /// Reads the snapshot with the largest seq (at or before `atOrBefore` when given) for `reducerVersion` in
    /// place: `body` sees its seq and bytes, valid only while it runs (no copy of a blob that may be tens of MB).
    /// Returns nil when there is none.
    ///
    /// A store may run `body` while the snapshot's seal is still being checked beside it, and drop what `body`
    /// returned (or threw) when the seal fails, then go on to an older snapshot: `body` must act on nothing but its
    /// result.
    func withLatestSnapshot<T>(
        reducerVersion: Int, atOrBefore seq: Int64?,
        _ body: (_ seq: Int64, _ bytes: UnsafeRawBufferPointer) throws -> T
    ) throws -> T?

    /// Reads the summary of the newest snapshot (at or before `atOrBefore`) that has one whose seal holds, without
    /// reading the snapshot's bytes: `body` sees its seq and summary, valid only while it runs. Nil when none.
    func withLatestSummary<T>(
        reducerVersion: Int, atOrBefore seq: Int64?,
        _ body: (_ seq: Int64, _ summary: UnsafeRawBufferPointer) throws -> T
    ) throws -> T?

    /// The seq of that snapshot alone, without reading its bytes.
    func latestSnapshotSeq(reducerVersion: Int, atOrBefore seq: Int64?) throws -> Int64?

    /// Whether the bytes `encoding` hands over in pieces (in order) are those of the usable snapshot of
    /// `reducerVersion` at exactly `seq`.
    func snapshotHolds(
        reducerVersion: Int, seq: Int64, encoding: (_ piece: (UnsafeRawBufferPointer) -> Void) -> Void
    ) throws -> Bool

    /// The stored snapshots of `reducerVersion` that are not loaded because their seal fails (edited, or not
    /// taken on this log), newest first; empty when every snapshot checks out.
    func snapshotProblems(reducerVersion: Int) throws -> [SnapshotProblem]

    /// Checks the audit index behind `events(touching:)` against the tasks every event lists; nil when they
    /// agree.
    /// - Complexity: O(n).
    func verifyIndex() throws -> IndexProblem?

    /// Recomputes the whole hash chain and reports the first row that breaks it.
    /// - Complexity: O(n).
    func verifyChain() throws -> ChainReport

    /// A token that changes whenever another connection or process commits (it may also change on own commits).
    ///
    /// Poll it cheaply; when it changes, read the events after the last seq you know.
    func changeToken() throws -> Int64

    /// How to wait for other connections' commits instead of polling ``changeToken()``: makes a listener, on the
    /// thread that will wait on it. Nil when the store has no such thing (poll the token then).
    func changeListener() -> (@Sendable () throws -> any ChangeListener)?

    /// A quick look at the end of the chain: the last event's hash against the one before it (two events read), so
    /// that a reader can warn on every open; ``verifyChain()`` checks every event.
    /// - Returns: why the head does not hold (a missing event before it, a hash that does not match), or nil when
    ///   it does or the log is empty.
    func checkHead() throws -> String?

    /// The event at `seq` when its link in the hash chain holds: it hashes, after the hash of the event before it,
    /// to the hash it is stored with. Nil when there is no such event or it was changed (what undo would read back
    /// is then not what was logged). Redo of a step a snapshot holds by reference reads its action through this.
    /// - Complexity: two events read, one SHA-256 over the event.
    func linkedEvent(at seq: Int64) throws -> StoredEvent?

    /// Every task the events with `after < seq <= through` name, from their lists of tasks (no payload read); nil
    /// when a stored list is not comma-separated ids.
    func tasksNamed(after: Int64, through: Int64) throws -> Set<Int64>?
}

extension EventStore {
    /// None by default: followers poll ``changeToken()``.
    public func changeListener() -> (@Sendable () throws -> any ChangeListener)? { nil }

    /// Every payload read (a store that keeps no add index).
    public func scan(
        touching task: Int64, indexed: Bool, leavingOutIndexedAdds: Bool,
        _ body: (_ event: RawEventView, _ listsTask: Bool, _ leftOut: Bool) throws -> Void
    ) throws {
        try scan(touching: task, indexed: indexed) { view, lists in try body(view, lists, false) }
    }

    /// Keeps no add index: every add is read whole.
    public func saveAddIndex(seq: Int64, bytes: [UInt8]) throws {}

    /// Keeps no add index.
    public func addIndexSeqs() throws -> [Int64] { [] }

    /// Keeps no add index.
    public func withAddIndex<T>(
        seq: Int64,
        _ body: (
            _ index: UnsafeRawBufferPointer, _ payloadLength: Int, _ piece: (Range<Int>) throws -> [UInt8]?
        ) throws -> T
    ) throws -> T? { nil }

    /// Caches a snapshot without a summary.
    public func saveSnapshot(seq: Int64, reducerVersion: Int, bytes: [UInt8]) throws {
        try saveSnapshot(seq: seq, reducerVersion: reducerVersion, bytes: bytes, summary: nil)
    }

    /// Whether the pieces `encoding` hands over are the bytes of the stored snapshot of `reducerVersion` at
    /// exactly `seq` (`verify` compares a replay's encoding with it without holding either whole).
    public func snapshotHolds(
        reducerVersion: Int, seq: Int64, encoding: (_ piece: (UnsafeRawBufferPointer) -> Void) -> Void
    ) throws -> Bool {
        try withLatestSnapshot(reducerVersion: reducerVersion, atOrBefore: seq) { found, stored in
            guard found == seq else { return false }
            // Each piece against the stored bytes at its place: the encoding is never collected.
            var offset = 0
            var same = true
            encoding { piece in
                guard same else { return }
                let end = offset + piece.count
                same = end <= stored.count && stored[offset..<end].elementsEqual(piece)
                offset = end
            }
            return same && offset == stored.count
        } ?? false
    }

    /// The event at `seq` when its link holds, from the two rows that end at it (the SQLite and PostgreSQL stores).
    public func linkedEvent(at seq: Int64) throws -> StoredEvent? {
        guard seq >= 1 else { return nil }
        let rows = try events(after: seq - 2, through: seq, limit: 2)
        guard let event = rows.last, event.seq == seq else { return nil }
        let hasher = ChainHasher()
        if seq > 1 {
            guard rows.count == 2, rows[0].seq == seq - 1 else { return nil }
            rows[0].hash.withUnsafeBytes { hasher.restart(from: $0) }
        } else {
            hasher.restart(from: nil)
        }
        Array(event.kind.utf8).withUnsafeBytes { kind in
            event.payload.withUnsafeBytes { payload in
                hasher.chain(
                    seq: seq, time: event.time, kind: kind, version: event.version, tasks: event.tasks,
                    payload: payload)
            }
        }
        return hasher.hash.elementsEqual(event.hash) ? event : nil
    }

    /// A copy of the snapshot with the largest seq (at or before `atOrBefore` when given) for `reducerVersion`.
    public func latestSnapshot(reducerVersion: Int, atOrBefore seq: Int64?) throws -> (
        seq: Int64, bytes: [UInt8]
    )? {
        try withLatestSnapshot(reducerVersion: reducerVersion, atOrBefore: seq) { ($0, Array($1)) }
    }
}

extension EventStore {
    /// Opens a credential sealed for `context` with the key of its task.
    /// - Throws: `VaultError.purged` when the key is gone (the task was purged), `.failedToOpen` when the tag does
    ///   not match (the value or the vault was altered); `StoreError` when the store cannot be read.
    public func openSecret(_ sealed: SealedSecret, context: String) throws -> [UInt8] {
        guard let key = try vaultKey(task: sealed.keyTask) else {
            throw VaultError.purged(task: sealed.keyTask)
        }
        return try key.open(sealed, context: context)
    }
}
