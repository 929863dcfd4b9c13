import Foundation

extension Ledger {
    /// Reads events back from `store` for the undo steps a snapshot holds by reference (their actions): the event
    /// at a seq whose link in the hash chain holds. With `lock` (the ledger's own), the store is read under it.
    static func loggedEvents(_ store: EventStore, lock: NSRecursiveLock?) -> LoggedEventReader {
        let source = LoggedEventSource(store: store, lock: lock)
        return LoggedEventReader { seq in source.read(seq) }
    }
}

/// The store a `LoggedEventReader` reads through, used only under `lock` (or, without one, by the one thread that
/// reads the store: a replay, `LedgerLog`).
private final class LoggedEventSource: @unchecked Sendable {
    let store: EventStore
    let lock: NSRecursiveLock?

    init(store: EventStore, lock: NSRecursiveLock?) {
        self.store = store
        self.lock = lock
    }

    func read(_ seq: Int64) -> (kind: [UInt8], payload: [UInt8])? {
        lock?.lock()
        defer { lock?.unlock() }
        let event =
            try? store.linkedEvent(at: seq)
        guard let event, event.seq == seq else { return nil }
        return (Array(event.kind.utf8), event.payload)
    }
}
