/// Where a ledger lives, as a user writes it: a path to a SQLite file, or a `postgresql://` (`postgres://`) URI.
///
/// ```swift
/// let store = try EventStoreLocation.open("postgresql://db.lan/downloads?ledger=lab", existing: true)
/// let file = try EventStoreLocation.open("/home/me/.local/share/dledger/ledger.sqlite", readOnly: true)
/// ```
public enum EventStoreLocation {
    /// Opens the store `location` names: ``PostgresEventStore`` for a `postgresql://` URI, else
    /// ``SQLiteEventStore``.
    /// - Parameter existing: the ledger must already be there (nothing is created).
    /// - Throws: `StoreError` (`.badLocation` for a URI libpq does not accept, `.cannotConnect`, `.cannotOpen`…).
    public static func open(_ location: String, readOnly: Bool = false, existing: Bool = false) throws
        -> any EventStoreUpkeep
    {
        if PostgresLocation.isPostgres(location) {
            return try PostgresEventStore(uri: location, readOnly: readOnly, existing: existing)
        }
        return try SQLiteEventStore(path: location, readOnly: readOnly, existing: existing)
    }

    /// `location` as it may be shown: a URI's password masked, a path as it is.
    public static func shown(_ location: String) -> String {
        PostgresLocation.isPostgres(location) ? PostgresLocation.mask(location) : location
    }

    /// Whether a PostgreSQL ledger exists at `location` (its schema was created by a first write).
    /// - Throws: `.badLocation`, `.cannotConnect`.
    public static func postgresLedgerExists(_ location: String) throws -> Bool {
        try PostgresEventStore(uri: location, readOnly: true).exists()
    }
}
