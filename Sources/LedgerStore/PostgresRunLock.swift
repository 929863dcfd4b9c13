import CPostgres
import Glibc

/// One downloader per PostgreSQL ledger: a session advisory lock (`pg_try_advisory_lock`) keyed by the ledger's
/// schema, on a connection of its own, held until ``release()`` or until that connection ends (the process exits
/// or is killed: the server drops the session's locks). It plays the part the `flock` on `<ledger>.lock` plays for
/// a SQLite ledger, for every host that reaches the database.
///
/// ```swift
/// let location = try PostgresLocation("postgresql://me@db.lan/downloads?ledger=lab")
/// guard let lock = try PostgresRunLock.acquire(location) else { /* another downloader runs */ }
/// defer { lock.release() }
/// ```
///
/// The key is two `int4`s, `hashtext('dledger run')` and `hashtext(schema)`: PostgreSQL keeps two-key advisory locks
/// apart from the one-key `pg_advisory_xact_lock(hashtext(schema))` that serialises a ledger's creation.
public final class PostgresRunLock {
    /// The ledger the lock is for.
    public let location: PostgresLocation
    /// The session that holds the lock; nil once released.
    private var connection: PostgresConnection?
    /// When the lock may be tried again after its session was lost.
    private var backoff = ReconnectBackoff()

    private init(location: PostgresLocation, connection: PostgresConnection) {
        self.location = location
        self.connection = connection
    }

    deinit { release() }

    /// How the lock is named in messages: the ledger's masked URI (never its password).
    public static func name(_ location: PostgresLocation) -> String {
        "pg_advisory_lock of ledger '\(location.ledger)' on \(location.masked)"
    }

    /// Takes the lock on a new connection, without waiting. Its session's `application_name` becomes
    /// `dledger run PID`, which ``holder(_:)`` reads.
    /// - Returns: the held lock, or nil when another session holds it.
    /// - Throws: `StoreError.cannotConnect` when the server cannot be reached; `StoreError.server` for an SQL error.
    public static func acquire(_ location: PostgresLocation) throws -> PostgresRunLock? {
        try takeOnNewSession(location).map { PostgresRunLock(location: location, connection: $0) }
    }

    /// A new session named `dledger run PID` that holds the lock, or nil when another session holds it. The session
    /// is never made again by itself: a new one would not hold the lock.
    private static func takeOnNewSession(_ location: PostgresLocation) throws -> PostgresConnection? {
        let connection = try PostgresConnection(location)
        connection.reconnects = false
        var name = PostgresParameters()
        name.add(text: "dledger run \(getpid())")
        try connection.execute("SELECT set_config('application_name', $1, false)", name)
        guard try take(on: connection, location, "pg_try_advisory_lock") else { return nil }
        return connection
    }

    /// Whether the lock's session is gone: the server closed it (a restart), read without blocking or a round trip.
    /// ``ensureHeld()`` then takes the lock again. False once released.
    public var isSessionLost: Bool { connection?.isLost ?? false }

    /// Whether this process holds the lock now. When the server dropped the lock's session (a restart, a lost
    /// network), the lock is taken again on a new session, at once the first time and then no more often than
    /// ``ReconnectBackoff`` allows.
    /// - Returns: false when the lock was released, or another session took it while this one was gone (another
    ///   downloader runs now).
    /// - Throws: `StoreError.cannotConnect` while the server cannot be reached (or before the next try is due).
    public func ensureHeld() throws -> Bool {
        guard let connection else { return false }
        // A round trip on the lock's session: a server that restarted closed it, a silent network fails it.
        if (try? connection.execute("SELECT 1")) != nil { return true }
        let now = ContinuousClock.now
        guard backoff.mayTry(at: now) else {
            throw StoreError.cannotConnect(location.masked, "the run lock's session was lost")
        }
        do {
            // As ``RunLock`` does at the start: a few tries tell `isHeld`'s momentary shared probe from a downloader.
            var session = try Self.takeOnNewSession(location)
            for _ in 0..<10 where session == nil {
                usleep(20_000)
                session = try Self.takeOnNewSession(location)
            }
            guard let session else {
                self.connection = nil
                return false
            }
            backoff.succeeded()
            self.connection = session
            return true
        } catch let error as StoreError where error.isConnectionLoss {
            backoff.failed(at: now)
            throw error
        }
    }

    /// Whether a downloader holds the lock now: a shared lock taken for a moment and given back (it fails while
    /// the exclusive one is held; ``RunLock`` tries a few times, so a probe never turns a downloader away).
    /// - Throws: `StoreError.cannotConnect` when the server cannot be reached.
    public static func isHeld(_ location: PostgresLocation) throws -> Bool {
        let connection = try PostgresConnection(location)
        guard try take(on: connection, location, "pg_try_advisory_lock_shared") else { return true }
        _ = try take(on: connection, location, "pg_advisory_unlock_shared")
        return false
    }

    /// The pid in the `application_name` of the session that holds the lock (`dledger run PID`), if the server
    /// shows it to this user; nil otherwise. On one host it is the downloader's process.
    public static func holder(_ location: PostgresLocation) -> Int32? {
        guard let connection = try? PostgresConnection(location) else { return nil }
        var key = PostgresParameters()
        key.add(text: location.schema)
        let sql = """
            SELECT a.application_name FROM pg_locks l JOIN pg_stat_activity a ON a.pid = l.pid
            WHERE l.locktype = 'advisory' AND l.granted AND l.objsubid = 2 AND l.mode = 'ExclusiveLock'
              AND l.database = (SELECT oid FROM pg_database WHERE datname = current_database())
              AND l.classid = hashtext('dledger run')::oid AND l.objid = hashtext($1)::oid
            """
        guard let result = try? connection.execute(sql, key), result.rowCount == 1, !result.isNull(0, 0)
        else {
            return nil
        }
        let text = result.string(0, 0)
        guard text.hasPrefix("dledger run ") else { return nil }
        return Int32(text.dropFirst("dledger run ".count))
    }

    /// Gives the lock back and closes its connection. Safe to call more than once.
    public func release() {
        guard let connection else { return }
        _ = try? Self.take(on: connection, location, "pg_advisory_unlock")
        self.connection = nil
    }

    /// Calls `function` (one of the advisory-lock functions that return a bool) with the ledger's two keys.
    private static func take(
        on connection: PostgresConnection, _ location: PostgresLocation, _ function: String
    )
        throws -> Bool
    {
        var key = PostgresParameters()
        key.add(text: location.schema)
        let result = try connection.execute("SELECT \(function)(hashtext('dledger run'), hashtext($1))", key)
        return result.rowCount == 1 && result.bool(0, 0)
    }
}
