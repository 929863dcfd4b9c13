import Foundation
import Synchronization

/// The read side of a ledger: its log read without projecting its list — the events, the list as of a seq, a
/// task's audit trail, `verify`, the summary `stats` prints (`LedgerLog+*.swift`). Reading the first events of a log
/// of a million, or the events after a seq, costs what is read, not the whole history (`dledger log`).
///
/// An instance opens the file read-only, like ``Ledger/init(path:creatingWithDirectory:readOnly:keepingUndo:deferringCreation:clock:)``
/// with `readOnly`, and never creates it. The same reads run on an open ``Ledger``'s own store through its read
/// calls (`Ledger+Reading.swift`), which call the static forms here. Thread-safe: the store is in a `Mutex`, so
/// calls are serialised.
public final class LedgerLog: Sendable {
    public let path: String
    private let store: Mutex<any EventStoreUpkeep>

    /// - Throws: `LedgerOpenError.noLedger` for a missing file; `StoreError` for anything that is not a ledger
    ///   (left untouched), a corrupt one or a newer schema.
    public init(path: String) throws {
        self.path = path
        store = Mutex(try StoreFactory.openExisting(readingOnly: path))
    }

    /// The seq of the last event.
    public func head() throws -> Int64 {
        try locked { try $0.head() }
    }

    /// Events after `after` (a seq), at most `limit`, in order.
    public func events(after: Int64 = 0, limit: Int? = nil) throws -> [LoggedEntry] {
        try locked { try Self.events(in: $0, after: after, limit: limit) }
    }

    /// The last seq committed at or before `time` (ms since the Unix epoch).
    public func seq(atOrBefore time: Int64) throws -> Int64 {
        try locked { try $0.lastSeq(atOrBefore: time) }
    }

    /// The list exactly as it was after event `seq`: the nearest snapshot at or before it, then the log. Its undo
    /// steps read the actions they hold by reference back from this log when asked (it stays open for them).
    /// - Complexity: O(events between that snapshot and `seq`) plus reading the snapshot.
    public func list(through seq: Int64) throws -> DownloadList {
        let reader = self.reader
        return try locked { try Self.list(in: $0, through: seq, reader: reader) }
    }

    /// ``list(through:)`` for words about events that name only the tasks `whole` (`dledger log --limit N`): the
    /// sections, the to-delete list, the undo history and those tasks are the whole list's; any other task is kept
    /// as its state, bytes and size alone, or not at all. A list to word events with, never one to decide on.
    /// - Complexity: reading the snapshot past every task (building only `whole`), and the events since it.
    /// Without `keepingUndo`, the undo history is the snapshot's (no inverse is worked out for the events after
    /// it): for words about events none of which is an undo (an undo's words name the action it undid).
    public func list(through seq: Int64, keepingWhole whole: Set<TaskID>, keepingUndo: Bool = true) throws
        -> DownloadList
    {
        let reader = self.reader
        return try locked {
            try Self.list(in: $0, through: seq, keepingWhole: whole, keepingUndo: keepingUndo, reader: reader)
        }
    }

    /// Reads the event at a seq for an undo step a list from here holds by reference, through the mutex (never
    /// called while it is held: folds only keep references).
    var reader: LoggedEventReader {
        LoggedEventReader { [self] seq in
            store.withLock { store in
                guard let event = try? store.linkedEvent(at: seq) else { return nil }
                return (Array(event.kind.utf8), event.payload)
            }
        }
    }

    /// `body` with the store, the mutex held.
    func locked<T: Sendable>(_ body: (any EventStoreUpkeep) throws -> T) throws -> T {
        try store.withLock { try body($0) }
    }
}
