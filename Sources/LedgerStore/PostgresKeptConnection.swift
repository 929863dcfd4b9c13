/// One connection kept for statements asked again and again (a watcher's looks, a board's upserts): made by the
/// first use and then reused; a first connect that failed is not tried again before ``ReconnectBackoff`` allows
/// (once made, the connection reconnects by itself after a restart, as the store's does), and `setUp` runs on every
/// new session it opens.
///
/// ```swift
/// var kept = PostgresKeptConnection(location) { try $0.executeScript("SET synchronous_commit = off") }
/// try kept.connected().execute("SELECT 1")
/// ```
///
/// A value inside one owner: one thread at a time.
struct PostgresKeptConnection {
    let location: PostgresLocation
    /// Runs on each new session (the first and every reconnect); nil: none.
    private let setUp: ((PostgresConnection) throws -> Void)?
    /// The kept session; nil until the first use reaches the server.
    private var connection: PostgresConnection?
    /// When a first connect that failed may be tried again (the connection's own backoff covers it afterwards).
    private var backoff = ReconnectBackoff()

    init(_ location: PostgresLocation, setUp: ((PostgresConnection) throws -> Void)? = nil) {
        self.location = location
        self.setUp = setUp
    }

    /// The kept session, made now when there is none.
    /// - Throws: `StoreError.cannotConnect` while the server cannot be reached (or before the next try is due);
    ///   what `setUp` throws.
    mutating func connected() throws -> PostgresConnection {
        if let connection { return connection }
        let now = ContinuousClock.now
        guard backoff.mayTry(at: now) else {
            throw StoreError.cannotConnect(location.masked, "the server could not be reached")
        }
        do {
            let made = try PostgresConnection(location)
            if let setUp {
                try setUp(made)
                made.afterReconnect = { [unowned made] in try setUp(made) }
            }
            backoff.succeeded()
            connection = made
            return made
        } catch {
            backoff.failed(at: now)
            throw error
        }
    }
}
