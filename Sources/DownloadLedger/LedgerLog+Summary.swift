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
    /// decoded. Otherwise the snapshot's list is folded and, when the events after it name at most
    /// ``recountReach`` tasks, only those are counted again, before and after (``countTail(_:into:from:)``); else,
    /// or when no snapshot has a summary whose seal holds, the list is loaded (snapshot and tail) and counted.
    /// - Throws: what ``Ledger/init(path:creatingWithDirectory:readOnly:keepingUndo:deferringCreation:clock:)`` throws for this path.
    /// - Complexity: O(events after the snapshot) when the summary serves; plus reading the snapshot when the tail
    ///   names tasks; else what opening the ledger costs and a count of the list.
    public static func stats(path: String) throws -> Stats {
        let store = try StoreFactory.openExisting(readingOnly: path)
        let found = try latestSummary(store)
        if let found, let stats = try summaryFolded(store, found) { return stats }
        if let found, let stats = try recounted(store, from: found) { return stats }
        var list = try startingPoint(store, atOrBefore: nil, reader: nil)
        let snapshotSeq = list.head
        if let found, list.head == found.head,
            let summary = try countTail(store, into: &list, from: found)
        {
            return Stats(summary: summary, snapshotSeq: snapshotSeq > 0 ? snapshotSeq : nil)
        }
        try fold(store, into: &list, through: nil)
        return Stats(summary: ListSummary(list), snapshotSeq: snapshotSeq > 0 ? snapshotSeq : nil)
    }

    /// The newest sealed summary that reads and is at its snapshot's seq.
    static func latestSummary(_ store: any EventStore) throws -> ListSummary? {
        let found = try store.withLatestSummary(reducerVersion: DownloadList.reducerVersion, atOrBefore: nil)
        {
            seq, bytes in (seq: seq, summary: try? ListSummary(encoded: bytes))
        }
        guard let found, let summary = found.summary, summary.head == found.seq else { return nil }
        return summary
    }

    /// The newest sealed summary with the events after it folded in, or nil when there is none or one of those
    /// events needs the tasks (or does not decode: the full open then names it).
    static func summaryFromSnapshot(_ store: any EventStore) throws -> Stats? {
        guard let found = try latestSummary(store) else { return nil }
        return try summaryFolded(store, found)
    }

    /// `found` with the events after it folded in, or nil when one of those events needs the tasks.
    static func summaryFolded(_ store: any EventStore, _ found: ListSummary) throws -> Stats? {
        var summary = found
        do {
            try store.scan(after: found.head, through: nil) { view in
                guard let entry = try? Entry.decode(kind: view.kind, payload: view.payload),
                    summary.fold(LoggedEntry(seq: view.seq, time: view.time, entry: entry))
                else {
                    // The rows after it are not read (one may be an add of 100,000 URLs).
                    throw NeedsTheTasks()
                }
            }
        } catch is NeedsTheTasks {
            return nil
        }
        // The snapshot named is the one an open would load: the newest whose own seal holds. A summary's seal
        // says nothing of the snapshot's bytes beside it, which may have been edited (then it is not loaded).
        let loaded = try store.latestSnapshotSeq(reducerVersion: DownloadList.reducerVersion, atOrBefore: nil)
        return Stats(summary: summary, snapshotSeq: loaded)
    }

    /// `found` with the tail after it counted from the snapshot's figures alone: the snapshot at `found`'s head
    /// is read keeping only the tasks the tail names, each as its state, bytes and size (no URL, no name, no task
    /// built for any other: ``DownloadList/noTask``), the tail is folded onto it (a fold reads no task its event
    /// does not name, as for ``audit(_:outliningAdds:)``) and those tasks are counted again
    /// (``countTail(_:into:from:through:)``). Nil when the tail names more than ``recountReach`` tasks, or the
    /// snapshot an open loads is not the summary's: the caller then loads the list.
    static func recounted(_ store: any EventStore, from found: ListSummary) throws -> Stats? {
        // Through the head now: a writer's events after it name tasks this list does not keep.
        let head = try store.head()
        guard let names = try store.tasksNamed(after: found.head, through: head), names.count <= recountReach
        else { return nil }
        var (list, tail) = try startingPointReadingAhead(
            store, atOrBefore: head, through: head, reader: nil, keepingOnly: DownloadList.noTask,
            tail: (found.head, names))
        guard list.head == found.head, found.head > 0,
            let summary = try countTail(
                store, into: &list, from: found, through: head, keepingUndo: false, readAhead: tail)
        else { return nil }
        return Stats(summary: summary, snapshotSeq: found.head)
    }

    /// Stops a fold into the summary at the first event that needs the tasks.
    private struct NeedsTheTasks: Error {}

    /// Tasks a tail may name for `stats` to count them again rather than the whole list.
    static let recountReach = 8192

    /// Folds the events after `list` (the snapshot `summary` was saved with) into it and returns `summary` with
    /// the tasks they name counted again: an event changes a count only through the tasks it names (their state,
    /// bytes and size, how many times the sections list them: what the audit index and the fold of one task for
    /// `audit` rely on too), and through the to-delete list's length and the number of sections, which are the
    /// folded list's. Nil when they name more than ``recountReach`` tasks (a big add): the caller then counts the
    /// whole list, folded through the head (this fold stops at the event that went past). With `through`, the
    /// events after it are left out; without `keepingUndo`, the list's undo history is not kept up (a count needs
    /// none).
    /// - Throws: for an event that does not decode, as a fold does.
    static func countTail(
        _ store: any EventStore, into list: inout DownloadList, from summary: ListSummary,
        through: Int64? = nil, keepingUndo: Bool = true, readAhead: TailDecoding? = nil
    ) throws -> ListSummary? {
        var before: [TaskID: (times: Int, figures: TaskFigures)?] = [:]
        /// Stops the fold at the event that names too many tasks.
        struct TooMany: Error {}
        do {
            try eachEntry(store, after: list.head, through: through, tail: readAhead) { logged, _ in
                let named = logged.entry.event.taskIDs
                guard before.count + named.count <= recountReach else { throw TooMany() }
                for id in named where before[id] == nil {
                    before[id] = .some(ListSummary.place(of: id, in: list))
                }
                list.apply(logged, keepingUndo: keepingUndo)
            }
        } catch is TooMany {
            return nil
        }
        var counted = summary
        for (id, was) in before {
            if let was { counted.count(was.figures, times: -was.times) }
            if let now = ListSummary.place(of: id, in: list) { counted.count(now.figures, times: now.times) }
        }
        counted.trash = list.trash.count
        counted.sections = list.sections.count
        counted.head = list.head
        counted.headTime = list.headTime
        return counted
    }
}
