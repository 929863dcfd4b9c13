import CPostgres
import Glibc

/// One libpq connection: statements with bound parameters (`PQexecParams`, binary in and out), LISTEN and the
/// notifications that arrived, read without blocking. Not thread-safe: one thread at a time, like a SQLite
/// connection.
///
/// A connection the server dropped (a restart, the network) is made again by the next call (`PQreset`), outside a
/// transaction only, at once the first time and then no more often than ``ReconnectBackoff`` allows: a call before
/// the next try is due fails at once with `.cannotConnect`. After a reconnect ``afterReconnect`` sets the new
/// session up (its `search_path`, LISTEN…) before the call goes on.
final class PostgresConnection {
    let location: PostgresLocation
    /// libpq's connection (`PostgresConnection+Copy.swift` reaches it too).
    let connection: OpaquePointer
    /// When a lost connection may be made again.
    private var backoff = ReconnectBackoff()
    /// When the connection was found lost, and the last reason a reconnect failed; nil while connected.
    private var lost: (since: ContinuousClock.Instant, reason: String)?
    /// Open transactions (``transaction(_:)``): a connection lost inside one is not made again until it ends, so no
    /// statement of it runs outside it.
    private var transactionDepth = 0
    /// Whether a lost connection is made again by the next call; false for a session whose state cannot be made
    /// again (the run lock's: a new session does not hold the lock).
    var reconnects = true
    /// Sets a new session up after a reconnect, before the call that made it goes on; a throw counts as a failed try.
    var afterReconnect: (() throws -> Void)?

    /// Connects to the server `location` names. Unless the URI or `$PGCONNECT_TIMEOUT` says otherwise, a connect
    /// gives up after ``connectTimeout`` seconds; unless the URI says otherwise, a server that falls silent (the
    /// network drops its packets) is noticed within about 15 s (``silenceSettings``).
    /// - Throws: `StoreError.cannotConnect` (server unreachable, login refused, no such database), with the URI's
    ///   password masked in the message.
    init(_ location: PostgresLocation) throws {
        self.location = location
        guard let connection = Self.connect(location.conninfo) else {
            throw StoreError.cannotConnect(location.masked, "libpq could not allocate a connection")
        }
        guard PQstatus(connection) == CONNECTION_OK else {
            let reason = PostgresLocation.oneLine(
                PostgresLocation.maskSecrets(String(cString: PQerrorMessage(connection)), of: location.uri))
            PQfinish(connection)
            throw StoreError.cannotConnect(location.masked, reason)
        }
        self.connection = connection
        // Notices (a schema that already exists…) are not printed on stderr.
        PQsetNoticeProcessor(connection, { _, _ in }, nil)
    }

    deinit { PQfinish(connection) }

    /// How long a connect (or a reconnect) may take, in seconds, unless the URI or `$PGCONNECT_TIMEOUT` sets it.
    static let connectTimeout = 5

    /// libpq's TCP settings that bound how long a silent server goes unnoticed (a network that drops every packet
    /// sends no reset: without them a statement waits for TCP's retransmissions to give up, about 15 minutes).
    /// `tcp_user_timeout`: data sent and not acknowledged for 15 s ends the connection (a statement sent into the
    /// silence). Keepalives: a connection on which nothing arrived for 5 s is probed every 3 s, and ends after 3
    /// probes go unanswered, 14 s after the last word from the server (a statement whose request was taken and
    /// whose answer never comes: a lock wait, a long query, or a connection between statements). The connection
    /// then fails as lost (`.cannotConnect`), which the outage handling already reports and retries. Unix sockets
    /// ignore them.
    static let silenceSettings = [
        ("tcp_user_timeout", "15000"), ("keepalives_idle", "5"), ("keepalives_interval", "3"),
        ("keepalives_count", "3"),
    ]

    /// `PQconnectdbParams` with our defaults first (a session is named `dledger PID` unless the user names it) and
    /// the user's conninfo after them (libpq keeps the last value of a keyword, so the URI's own `connect_timeout`,
    /// `tcp_user_timeout` or `keepalives_*` win); a default an environment variable sets is left to it.
    private static func connect(_ conninfo: String) -> OpaquePointer? {
        var settings = silenceSettings
        if getenv("PGCONNECT_TIMEOUT") == nil { settings.append(("connect_timeout", "\(connectTimeout)")) }
        // `pg_stat_activity` names the process (`application_name` in the URI or `$PGAPPNAME` wins).
        settings.append(("fallback_application_name", "dledger \(getpid())"))
        settings.append(("dbname", conninfo))
        let keywords: [UnsafeMutablePointer<CChar>?] = settings.map { strdup($0.0) } + [nil]
        let values: [UnsafeMutablePointer<CChar>?] = settings.map { strdup($0.1) } + [nil]
        defer {
            for pointer in keywords + values { free(pointer) }
        }
        let k = keywords.map { $0.map { UnsafePointer($0) } }
        let v = values.map { $0.map { UnsafePointer($0) } }
        return PQconnectdbParams(k, v, 1)
    }

    /// Why the server is out of reach and when the next try is due; nil while connected.
    var outage: StoreOutage? {
        lost.map {
            StoreOutage(
                reason: $0.reason, since: $0.since, nextTry: backoff.nextTry, failedTries: backoff.failures)
        }
    }

    /// Makes a lost connection again when a try is due (see the type's notes).
    /// - Throws: `StoreError.cannotConnect` while the server cannot be reached, inside a transaction, or before the
    ///   next try is due.
    func ensureConnected() throws {
        guard PQstatus(connection) != CONNECTION_OK else { return }
        let now = ContinuousClock.now
        let reason = noteLost(at: now)
        guard reconnects, transactionDepth == 0, backoff.mayTry(at: now) else {
            throw StoreError.cannotConnect(location.masked, reason)
        }
        PQreset(connection)
        if PQstatus(connection) == CONNECTION_OK {
            do {
                try afterReconnect?()
            } catch {
                backoff.failed(at: now)
                lost = (lost?.since ?? now, PostgresLocation.oneLine("\(error)"))
                throw error
            }
            // A reconnect that is lost again at once still counts as a failure (the server is going down again).
            if PQstatus(connection) == CONNECTION_OK {
                backoff.succeeded()
                lost = nil
                return
            }
        }
        backoff.failed(at: now)
        lost = (lost?.since ?? now, connectionMessage)
        throw StoreError.cannotConnect(location.masked, connectionMessage)
    }

    /// Notes that the connection is lost (once), and returns the reason.
    @discardableResult
    private func noteLost(at now: ContinuousClock.Instant = .now) -> String {
        if let lost { return lost.reason }
        let reason = connectionMessage
        lost = (now, reason.isEmpty ? "the connection was lost" : reason)
        return lost!.reason
    }

    /// Runs `sql` with `parameters` bound; results come back in binary.
    /// - Throws: `StoreError.server` with the SQLSTATE when the statement fails, `.cannotConnect` when the
    ///   connection is lost.
    @discardableResult
    func execute(_ sql: String, _ parameters: PostgresParameters = PostgresParameters()) throws
        -> PostgresResult
    {
        try ensureConnected()
        let result = parameters.withLibpqArrays { types, values, lengths, formats in
            PQexecParams(connection, sql, Int32(parameters.count), types, values, lengths, formats, 1)
        }
        return try check(result)
    }

    /// Runs the query `sql` with `parameters` bound and hands `body` each row as it arrives, alone in its result
    /// (libpq's single-row mode): libpq holds one row at a time, in memory it reuses, rather than the whole result.
    /// The rest of the result is read (and dropped) when `body` throws.
    /// - Throws: what `body` throws; `StoreError.server` when the statement fails, `.cannotConnect` when the
    ///   connection is lost.
    func eachRow(_ sql: String, _ parameters: PostgresParameters, _ body: (PostgresResult) throws -> Void)
        throws
    {
        try ensureConnected()
        let sent = parameters.withLibpqArrays { types, values, lengths, formats in
            PQsendQueryParams(connection, sql, Int32(parameters.count), types, values, lengths, formats, 1)
        }
        guard sent == 1 else {
            if PQstatus(connection) != CONNECTION_OK { noteLost() }
            throw StoreError.cannotConnect(location.masked, connectionMessage)
        }
        PQsetSingleRowMode(connection)
        var failure: (any Error)?
        while let result = PQgetResult(connection) {
            guard failure == nil else {
                PQclear(result)
                continue
            }
            do {
                if PQresultStatus(result) == PGRES_SINGLE_TUPLE {
                    try body(PostgresResult(result))
                } else {
                    _ = try check(result)
                }
            } catch {
                failure = error
            }
        }
        if let failure { throw failure }
    }

    /// Runs `sql`, which has no parameters and may hold several statements (a migration, LISTEN), in one round
    /// trip; the result is the last statement's, in text.
    @discardableResult
    func executeScript(_ sql: String) throws -> PostgresResult {
        try ensureConnected()
        return try check(PQexec(connection, sql))
    }

    func check(_ result: OpaquePointer?) throws -> PostgresResult {
        guard let result else {
            if PQstatus(connection) != CONNECTION_OK { noteLost() }
            throw StoreError.cannotConnect(location.masked, connectionMessage)
        }
        let status = PQresultStatus(result)
        guard status == PGRES_COMMAND_OK || status == PGRES_TUPLES_OK else {
            let state = PQresultErrorField(result, Int32(UInt8(ascii: "C"))).map { String(cString: $0) } ?? ""
            let message =
                PQresultErrorField(result, Int32(UInt8(ascii: "M"))).map { String(cString: $0) }
                ?? String(cString: PQresultErrorMessage(result))
            PQclear(result)
            if PQstatus(connection) != CONNECTION_OK {
                noteLost()
                throw StoreError.cannotConnect(location.masked, connectionMessage)
            }
            throw StoreError.server(location.masked, state, PostgresLocation.oneLine(message))
        }
        return PostgresResult(result)
    }

    private var connectionMessage: String {
        PostgresLocation.oneLine(
            PostgresLocation.maskSecrets(String(cString: PQerrorMessage(connection)), of: location.uri))
    }

    /// Whether the connection is lost: the server closed it (a restart ends every session), read from the socket
    /// without blocking; never made again here.
    var isLost: Bool {
        if PQstatus(connection) == CONNECTION_OK { _ = PQconsumeInput(connection) }
        return PQstatus(connection) != CONNECTION_OK
    }

    /// How many notifications arrived since the last call, read from the socket without blocking.
    /// - Throws: `StoreError.cannotConnect` when the connection is lost and cannot be made again now.
    func notificationsArrived() throws -> Int {
        try ensureConnected()
        if PQconsumeInput(connection) == 0 && PQstatus(connection) != CONNECTION_OK {
            noteLost()
            throw StoreError.cannotConnect(location.masked, connectionMessage)
        }
        var count = 0
        while let notification = PQnotifies(connection) {
            count += 1
            PQfreemem(notification)
        }
        return count
    }

    /// The connection's socket (to wait for a notification with `poll`).
    var socket: Int32 { PQsocket(connection) }

    /// Runs `body` in a transaction: COMMIT when it returns, ROLLBACK when it throws.
    func transaction<T>(_ body: () throws -> T) throws -> T {
        try executeScript("BEGIN")
        transactionDepth += 1
        defer { transactionDepth -= 1 }
        do {
            let value = try body()
            try executeScript("COMMIT")
            return value
        } catch {
            // A lost connection took the transaction with it.
            if PQstatus(connection) == CONNECTION_OK { _ = try? executeScript("ROLLBACK") }
            throw error
        }
    }

    /// `name` quoted as an SQL identifier; only ever called with names ``PostgresLocation`` validated.
    static func identifier(_ name: String) -> String { "\"" + name + "\"" }
}

/// A result in binary format; cleared when released.
final class PostgresResult {
    let handle: OpaquePointer

    init(_ handle: OpaquePointer) { self.handle = handle }

    deinit { PQclear(handle) }

    var rowCount: Int { Int(PQntuples(handle)) }

    func isNull(_ row: Int, _ column: Int) -> Bool { PQgetisnull(handle, Int32(row), Int32(column)) == 1 }

    /// A column's bytes, valid while the result lives.
    func bytes(_ row: Int, _ column: Int) -> UnsafeRawBufferPointer {
        UnsafeRawBufferPointer(
            start: PQgetvalue(handle, Int32(row), Int32(column)),
            count: Int(PQgetlength(handle, Int32(row), Int32(column))))
    }

    /// An `int8`, `int4` or `int2` column (binary: big-endian); 0 for NULL.
    func int64(_ row: Int, _ column: Int) -> Int64 {
        let raw = bytes(row, column)
        var value: UInt64 = 0
        for byte in raw { value = value << 8 | UInt64(byte) }
        switch raw.count {
        case 4: return Int64(Int32(truncatingIfNeeded: value))
        case 2: return Int64(Int16(truncatingIfNeeded: value))
        default: return Int64(bitPattern: value)
        }
    }

    /// A `bool` column.
    func bool(_ row: Int, _ column: Int) -> Bool { bytes(row, column).first == 1 }

    /// A text column.
    func string(_ row: Int, _ column: Int) -> String { String(decoding: bytes(row, column), as: UTF8.self) }
}
