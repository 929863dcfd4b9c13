import Foundation

/// A ledger's log read without projecting its list: reading the first events of a log of a million, or the
/// events after a seq, costs what is read, not the whole history (`dledger log`).
///
/// Opens the file read-only, like ``Ledger/init(path:creatingWithDirectory:readOnly:deferringCreation:clock:)``
/// with `readOnly`, and never creates it. Thread-safe: calls are serialised.
public final class LedgerLog: @unchecked Sendable {
    public let path: String
    let store: any EventStore
    private let lock = NSLock()

    /// - Throws: `LedgerOpenError.noLedger` for a missing file; `StoreError` for anything that is not a ledger
    ///   (left untouched), a corrupt one or a newer schema.
    public init(path: String) throws {
        self.path = path
        guard try Ledger.checkExisting(path) else {
            throw LedgerOpenError.noLedger(EventStoreLocation.shown(path))
        }
        store = try EventStoreLocation.open(path, readOnly: true, existing: true)
    }

    /// The seq of the last event.
    public func head() throws -> Int64 {
        try locked { try store.head() }
    }

    /// Events after `after` (a seq), at most `limit`, in order.
    public func events(after: Int64 = 0, limit: Int? = nil) throws -> [LoggedEntry] {
        try locked { try Ledger.logged(try store.events(after: after, through: nil, limit: limit)) }
    }

    /// The last seq committed at or before `time` (ms since the Unix epoch).
    public func seq(atOrBefore time: Int64) throws -> Int64 {
        try locked { try store.lastSeq(atOrBefore: time) }
    }

    /// The list exactly as it was after event `seq`: the nearest snapshot at or before it, then the log.
    /// - Complexity: O(events between that snapshot and `seq`) plus reading the snapshot.
    public func list(through seq: Int64) throws -> DownloadList {
        try locked {
            var list = try Ledger.startingPoint(store, atOrBefore: seq)
            try Ledger.fold(store, into: &list, through: seq)
            return list
        }
    }

    func locked<T>(_ body: () throws -> T) rethrows -> T {
        lock.lock()
        defer { lock.unlock() }
        return try body()
    }
}
