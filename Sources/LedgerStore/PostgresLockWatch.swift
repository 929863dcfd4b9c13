/// Whose downloader holds a PostgreSQL ledger's run lock, asked again and again (a `ui --watch` asks once a
/// second) on one connection kept for it: a watcher holds a fixed number of sessions instead of opening one per
/// look. The connection is made by the first look and again, after a restart, as the store's is (``ReconnectBackoff``).
///
/// ```swift
/// let watch = PostgresLockWatch(try PostgresLocation(uri), host: "nas")
/// let pid = try watch.holder()      // nil: nobody downloads for "nas"
/// ```
///
/// Not thread-safe: one thread at a time.
public final class PostgresLockWatch {
    public let location: PostgresLocation
    public let host: String
    /// The session the looks run on.
    private var kept: PostgresKeptConnection

    public init(_ location: PostgresLocation, host: String) {
        self.location = location
        self.host = host
        kept = PostgresKeptConnection(location)
    }

    /// The pid of the downloader that holds the lock of ``host`` now (``PostgresRunLock/holder(_:host:)``'s
    /// answer), or nil when none does or the server does not show its name to this user.
    /// - Throws: `StoreError.cannotConnect` while the server cannot be reached (or before the next try is due).
    public func holder() throws -> Int32? {
        let connection = try kept.connected()
        return try PostgresRunLock.holder(on: connection, location, host: host)
    }
}
