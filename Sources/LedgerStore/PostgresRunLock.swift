import CPostgres
import Glibc

/// One downloader per host name on a PostgreSQL ledger: a session advisory lock (`pg_try_advisory_lock`) keyed by
/// the ledger's schema and the host name (`--host-name`), on a connection of its own, held until ``release()`` or until that connection ends (the process exits
/// or is killed: the server drops the session's locks). It plays the part the `flock` on `<ledger>.lock` plays for
/// a SQLite ledger, for every host that reaches the database.
///
/// ```swift
/// let location = try PostgresLocation("postgresql://me@db.lan/downloads?ledger=lab")
/// guard let lock = try PostgresRunLock.acquire(location, host: "nas") else { /* "nas" runs already */ }
/// defer { lock.release() }
/// ```
///
/// The key is two `int4`s, `hashtext('dledger run ' || schema)` and `hashtext(host)`: PostgreSQL keeps two-key
/// advisory locks apart from the one-key `pg_advisory_xact_lock(hashtext(schema))` that serialises a ledger's
/// creation. Downloaders with other host names take other locks and run together (their claims keep them apart).
/// Two names whose `hashtext` collide would exclude each other, as one name does.
public final class PostgresRunLock {
    /// The ledger the lock is for.
    public let location: PostgresLocation
    /// The host name the lock is for.
    public let host: String
    /// The session that holds the lock; nil once released.
    private var connection: PostgresConnection?
    /// When the lock may be tried again after its session was lost.
    private var backoff = ReconnectBackoff()
    /// The server's process of the session the lock was last taken on, kept after the session is lost (libpq then
    /// says 0): the process a silent network may have left holding the lock on the server.
    private var backend: Int32

    private init(location: PostgresLocation, connection: PostgresConnection, host: String) {
        self.location = location
        self.connection = connection
        self.host = host
        backend = PQbackendPID(connection.connection)
    }

    deinit { release() }

    /// How the lock is named in messages: the ledger's masked URI (never its password).
    public static func name(_ location: PostgresLocation) -> String {
        "pg_advisory_lock of ledger '\(location.ledger)' on \(location.masked)"
    }

    /// Takes the lock of `host` on a new connection, without waiting. Its session's `application_name` becomes
    /// `dledger run PID HOST`, which ``holder(_:host:)`` reads.
    /// - Returns: the held lock, or nil when another session holds it.
    /// - Throws: `StoreError.cannotConnect` when the server cannot be reached; `StoreError.server` for an SQL error.
    public static func acquire(_ location: PostgresLocation, host: String) throws -> PostgresRunLock? {
        try takeOnNewSession(location, host: host).map {
            PostgresRunLock(location: location, connection: $0, host: host)
        }
    }

    /// A new session named `dledger run PID HOST` that holds the lock of `host`, or nil when another session holds
    /// it. The session is never made again by itself: a new one would not hold the lock.
    ///
    /// The server is asked to notice a silent client as the client notices a silent server (its own keepalives and
    /// user timeout on this session's socket, ``serverSilenceSQL``): a session cut off by the network then ends on
    /// the server too, and its lock with it, within about 20 s instead of the server's default two hours.
    /// `orphan`: the server's process of this lock's previous session, which this process lost (a silent network):
    /// while the server still has it (a proxy in between keeps it open), it holds the lock that this process wants
    /// back, and it is ended (`pg_terminate_backend`) — only that process, and only while it holds this lock.
    private static func takeOnNewSession(_ location: PostgresLocation, host: String, orphan: Int32? = nil)
        throws
        -> PostgresConnection?
    {
        let connection = try PostgresConnection(location)
        connection.reconnects = false
        var name = PostgresParameters()
        name.add(text: "dledger run \(getpid()) \(host)")
        try connection.execute("SELECT set_config('application_name', $1, false)", name)
        _ = try connection.executeScript(serverSilenceSQL)
        if try take(on: connection, location, host: host, "pg_try_advisory_lock") { return connection }
        guard let orphan, try end(orphan, on: connection, location, host: host),
            try take(on: connection, location, host: host, "pg_try_advisory_lock")
        else { return nil }
        return connection
    }

    /// The server-side twin of ``PostgresConnection/silenceSettings``, for the lock's session: the server probes a
    /// connection idle for 5 s every 3 s and gives up after 3 probes, or after 15 s of data unacknowledged. Settable
    /// by any user; ignored on a Unix socket.
    static let serverSilenceSQL = """
        SET tcp_keepalives_idle = 5; SET tcp_keepalives_interval = 3; SET tcp_keepalives_count = 3;
        SET tcp_user_timeout = 15000
        """

    /// Ends the server process `pid` if it is the one that holds the lock of `host` now, under this process's own
    /// session name (`dledger run PID HOST`: a server process that got the same pid after a restart, holding the lock
    /// for another downloader, is left alone), and waits up to 5 s for it to be gone. Returns whether it was ended.
    private static func end(
        _ pid: Int32, on connection: PostgresConnection, _ location: PostgresLocation, host: String
    ) throws -> Bool {
        var key = PostgresParameters()
        key.add(text: location.schema)
        key.add(text: host)
        key.add(Int64(pid))
        key.add(text: "dledger run \(getpid()) \(host)")
        let result = try connection.execute(
            "SELECT pg_terminate_backend(l.pid, 5000) " + heldLocksSQL
                + " AND l.pid = $3::int4 AND a.application_name = $4", key)
        return result.rowCount == 1 && result.bool(0, 0)
    }

    /// The server's process for the session that holds the lock now (`pg_backend_pid()`), which the activity board
    /// names so that readers believe a row only while that session holds the lock; nil once released.
    public var sessionPid: Int32? { connection.map { PQbackendPID($0.connection) } }

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
            // The lost session's server process may still be there, holding the lock.
            guard let session = try Self.takeOnNewSession(location, host: host, orphan: backend) else {
                self.connection = nil
                return false
            }
            backoff.succeeded()
            self.connection = session
            backend = PQbackendPID(session.connection)
            return true
        } catch let error as StoreError where error.isConnectionLoss {
            backoff.failed(at: now)
            throw error
        }
    }

    /// Whether a downloader (of any host name, or of `host` when given) holds its lock now: read from
    /// `pg_locks`, so that the look never takes a lock a downloader could meet.
    /// - Throws: `StoreError.cannotConnect` when the server cannot be reached.
    public static func isHeld(_ location: PostgresLocation, host: String? = nil) throws -> Bool {
        let connection = try PostgresConnection(location)
        return try holders(on: connection, location, host: host).rowCount > 0
    }

    /// The pid in the `application_name` of the session that holds the lock of `host` (`dledger run PID HOST`),
    /// if the server shows it to this user; nil otherwise. On one host it is the downloader's process.
    /// A new connection each time: ``PostgresLockWatch`` keeps one for a caller that asks again and again.
    public static func holder(_ location: PostgresLocation, host: String) -> Int32? {
        guard let connection = try? PostgresConnection(location) else { return nil }
        return try? holder(on: connection, location, host: host)
    }

    /// ``holder(_:host:)`` on `connection`.
    /// - Throws: `StoreError` when the look fails (`.cannotConnect` when the server is out of reach).
    static func holder(on connection: PostgresConnection, _ location: PostgresLocation, host: String) throws
        -> Int32?
    {
        let result = try holders(on: connection, location, host: host)
        guard result.rowCount == 1, !result.isNull(0, 0) else { return nil }
        let words = result.string(0, 0).split(separator: " ")
        guard words.count >= 3, words[0] == "dledger", words[1] == "run" else { return nil }
        return Int32(words[2])
    }

    /// The sessions that hold a downloader's lock of the ledger (of `host` only, when given): one row each, their
    /// `application_name`.
    static func holders(
        on connection: PostgresConnection, _ location: PostgresLocation, host: String?
    )
        throws -> PostgresResult
    {
        var key = PostgresParameters()
        key.add(text: location.schema)
        key.add(text: host ?? "")
        return try connection.execute("SELECT a.application_name " + heldLocksSQL, key)
    }

    /// The run locks held now, `l` in `pg_locks` with its session `a` in `pg_stat_activity`: of the ledger whose
    /// schema is `$1`, and of host `$2` unless `$2` is empty. Statements add their columns before and conditions
    /// after.
    private static let heldLocksSQL = """
        FROM pg_locks l LEFT JOIN pg_stat_activity a ON a.pid = l.pid
        WHERE l.locktype = 'advisory' AND l.granted AND l.objsubid = 2 AND l.mode = 'ExclusiveLock'
          AND l.database = (SELECT oid FROM pg_database WHERE datname = current_database())
          AND l.classid = hashtext('dledger run ' || $1)::oid
          AND ($2 = '' OR l.objid = hashtext($2)::oid)
        """

    /// Gives the lock back and closes its connection. Safe to call more than once.
    public func release() {
        guard let connection else { return }
        _ = try? Self.take(on: connection, location, host: host, "pg_advisory_unlock")
        self.connection = nil
    }

    /// Calls `function` (one of the advisory-lock functions that return a bool) with the two keys of the ledger
    /// and `host`.
    private static func take(
        on connection: PostgresConnection, _ location: PostgresLocation, host: String, _ function: String
    )
        throws -> Bool
    {
        var key = PostgresParameters()
        key.add(text: location.schema)
        key.add(text: host)
        let result = try connection.execute(
            "SELECT \(function)(hashtext('dledger run ' || $1), hashtext($2))", key)
        return result.rowCount == 1 && result.bool(0, 0)
    }
}
