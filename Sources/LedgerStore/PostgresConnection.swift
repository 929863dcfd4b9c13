import CPostgres

/// One libpq connection: statements with bound parameters (`PQexecParams`, binary in and out), LISTEN and the
/// notifications that arrived, read without blocking. Not thread-safe: one thread at a time, like a SQLite
/// connection.
final class PostgresConnection {
    let location: PostgresLocation
    /// libpq's connection (`PostgresConnection+Copy.swift` reaches it too).
    let connection: OpaquePointer

    /// Connects to the server `location` names.
    /// - Throws: `StoreError.cannotConnect` (server unreachable, login refused, no such database), with the URI's
    ///   password masked in the message.
    init(_ location: PostgresLocation) throws {
        self.location = location
        guard let connection = PQconnectdb(location.conninfo) else {
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

    /// Runs `sql` with `parameters` bound; results come back in binary.
    /// - Throws: `StoreError.server` with the SQLSTATE when the statement fails, `.cannotConnect` when the
    ///   connection is lost.
    @discardableResult
    func execute(_ sql: String, _ parameters: PostgresParameters = PostgresParameters()) throws
        -> PostgresResult
    {
        let result = parameters.withLibpqArrays { types, values, lengths, formats in
            PQexecParams(connection, sql, Int32(parameters.count), types, values, lengths, formats, 1)
        }
        return try check(result)
    }

    /// Runs `sql`, which has no parameters and may hold several statements (a migration, LISTEN).
    func executeScript(_ sql: String) throws {
        _ = try check(PQexec(connection, sql))
    }

    func check(_ result: OpaquePointer?) throws -> PostgresResult {
        guard let result else {
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

    /// How many notifications arrived since the last call, read from the socket without blocking.
    func notificationsArrived() -> Int {
        _ = PQconsumeInput(connection)
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
        do {
            let value = try body()
            try executeScript("COMMIT")
            return value
        } catch {
            try? executeScript("ROLLBACK")
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
