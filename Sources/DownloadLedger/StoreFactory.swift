/// Where a ledger's store is made from a path: the one place DownloadLedger names a store type. Everything else
/// reaches the store through ``EventStore`` and ``EventStoreUpkeep`` (a PostgreSQL store is a second case here).
enum StoreFactory {
    /// Opens the existing ledger at `path` (never creates it).
    /// - Parameters:
    ///   - readOnly: never write to it, nor migrate it.
    ///   - durability: of its commits until changed (``EventStoreUpkeep/setDurability(_:)``).
    /// - Throws: `StoreError` (not a ledger, corrupt, locked, newer schema, missing).
    static func open(path: String, readOnly: Bool = false, durability: CommitDurability = .full) throws
        -> sending any EventStoreUpkeep
    {
        if PostgresLocation.isPostgres(path) {
            let store = try PostgresEventStore(uri: path, readOnly: readOnly, existing: true)
            if durability != .full { try store.setDurability(durability) }
            return store
        }
        return try SQLiteEventStore(
            path: path, readOnly: readOnly, synchronous: durability == .full ? .full : .normal, existing: true
        )
    }

    /// Opens the ledger at `path` when there is one, else nil (nothing is created). A PostgreSQL ledger is looked
    /// for on the session that then reads it: one connection, not one to look and another to read.
    /// - Throws: what ``open(path:readOnly:durability:)`` throws, and `StoreError.cannotOpen` for a directory.
    static func openIfExists(path: String, readOnly: Bool) throws -> sending (any EventStoreUpkeep)? {
        if PostgresLocation.isPostgres(path) {
            let store = try PostgresEventStore(uri: path, readOnly: readOnly)
            return try store.exists() ? store : nil
        }
        guard try Ledger.checkExisting(path) else { return nil }
        return try open(path: path, readOnly: readOnly)
    }

    /// ``openIfExists(path:readOnly:)`` of a ledger that must be there, read-only (what reads of a ledger
    /// without a ``Ledger`` open).
    /// - Throws: `LedgerOpenError.noLedger` when there is none; `StoreError`.
    static func openExisting(readingOnly path: String) throws -> sending any EventStoreUpkeep {
        guard let store = try openIfExists(path: path, readOnly: true) else {
            throw LedgerOpenError.noLedger(EventStoreLocation.shown(path))
        }
        return store
    }

    /// Creates the PostgreSQL ledger at `uri` holding `events` (its schema and its first events in the first
    /// write). - Returns: false when another process created it first (nothing was written).
    static func createInPostgres(uri: String, events: [NewEvent], vault: VaultChange, time: Int64) throws
        -> Bool
    {
        do {
            _ = try PostgresEventStore(uri: uri).append(events, expectingHead: 0, time: time, vault: vault)
            return true
        } catch StoreError.conflict {
            return false
        }
    }

    /// Creates a new ledger at `temporary`, a name no one else reads until the caller links it into place, holding
    /// `events` (and the keys `vault` adds), written in place without syncs (``SQLiteEventStore/Synchronous/off``:
    /// no log beside it) and closed, in rollback-journal mode, for the caller to sync.
    /// - Throws: `StoreError`.
    static func createUnsynced(at temporary: String, events: [NewEvent], vault: VaultChange, time: Int64)
        throws
    {
        let store = try SQLiteEventStore(path: temporary, synchronous: .off)
        _ = try store.append(events, expectingHead: 0, time: time, vault: vault)
    }
}
