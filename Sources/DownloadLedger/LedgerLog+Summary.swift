import Foundation

extension LedgerLog {
    /// What `dledger stats` prints of a ledger: its summary, and the snapshot it was read or loaded from.
    public struct Stats: Sendable, Equatable {
        public var summary: ListSummary
        /// The seq of the snapshot an open loads (the newest whose seal holds; the summary may come from it or, when
        /// its bytes were edited, from its own sealed summary); nil when there is none and the whole log is folded.
        public var snapshotSeq: Int64?
    }

    /// The summary of the ledger at `path`, opened read-only, equal to ``ListSummary/init(_:)`` of the list a
    /// ``Ledger`` opened there projects.
    ///
    /// Read from the newest snapshot's summary, whose seal is checked (tied to the chain, unedited), when every
    /// event after that snapshot is one that cannot change a count (``ListSummary/fold(_:)``): then no task is
    /// decoded. Otherwise, or when no snapshot has a summary whose seal holds, the list is loaded (snapshot and
    /// tail) and counted.
    /// - Throws: what ``Ledger/init(path:creatingWithDirectory:readOnly:deferringCreation:clock:)`` throws for this path.
    /// - Complexity: O(events after the snapshot) when the summary serves; else what opening the ledger costs.
    public static func stats(path: String) throws -> Stats {
        guard try Ledger.checkExisting(path) else {
            throw LedgerOpenError.noLedger(EventStoreLocation.shown(path))
        }
        let store = try StoreFactory.open(path: path, readOnly: true)
        if let stats = try summaryFromSnapshot(store) { return stats }
        var list = try startingPoint(store, atOrBefore: nil, reader: nil)
        let snapshotSeq = list.head
        try fold(store, into: &list, through: nil)
        return Stats(summary: ListSummary(list), snapshotSeq: snapshotSeq > 0 ? snapshotSeq : nil)
    }

    /// The newest sealed summary with the events after it folded in, or nil when there is none or one of those
    /// events needs the tasks (or does not decode: the full open then names it).
    static func summaryFromSnapshot(_ store: any EventStore) throws -> Stats? {
        let found = try store.withLatestSummary(reducerVersion: DownloadList.reducerVersion, atOrBefore: nil)
        {
            seq, bytes in (seq: seq, summary: try? ListSummary(encoded: bytes))
        }
        guard let found, var summary = found.summary, summary.head == found.seq else { return nil }
        var foldable = true
        try store.scan(after: found.seq, through: nil) { view in
            guard foldable else { return }
            guard let entry = try? Entry.decode(kind: view.kind, payload: view.payload),
                summary.fold(LoggedEntry(seq: view.seq, time: view.time, entry: entry))
            else {
                foldable = false
                return
            }
        }
        guard foldable else { return nil }
        // The snapshot named is the one an open would load: the newest whose own seal holds. A summary's seal
        // says nothing of the snapshot's bytes beside it, which may have been edited (then it is not loaded).
        let loaded = try store.latestSnapshotSeq(reducerVersion: DownloadList.reducerVersion, atOrBefore: nil)
        return Stats(summary: summary, snapshotSeq: loaded)
    }
}
