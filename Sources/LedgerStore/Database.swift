import CSQLite

/// One SQLite connection: owns its `sqlite3*` and the statements prepared on it.
///
/// Not thread-safe: use one `Database` per thread (SQLite serialises writers across connections).
///
/// ```swift
/// let db = try Database(path: "/tmp/x.sqlite")
/// try db.immediateTransaction {
///     let insert = try db.cachedStatement("INSERT INTO t(v) VALUES (?)")
///     try insert.bind(42, at: 1)
///     try insert.run()
/// }
/// ```
public final class Database {
    let handle: OpaquePointer
    /// The file name or URI the connection was opened with.
    public let location: String
    /// Milliseconds to wait for another connection's lock.
    let busyTimeout: Int32
    private var statements: [String: Statement] = [:]

    /// Opens (or creates, unless `readOnly` or `create` is false) the database at `location`, a path or a `file:`
    /// URI.
    ///
    /// - Parameter busyTimeout: how long to wait for another connection's lock, in milliseconds.
    /// - Throws: `DatabaseError` when SQLite cannot open the file.
    public init(location: String, readOnly: Bool = false, create: Bool = true, busyTimeout: Int32 = 5000)
        throws(DatabaseError)
    {
        _ = Database.configureOnce
        var connection: OpaquePointer?
        let mode =
            readOnly ? SQLITE_OPEN_READONLY : (SQLITE_OPEN_READWRITE | (create ? SQLITE_OPEN_CREATE : 0))
        let flags = mode | SQLITE_OPEN_NOMUTEX | SQLITE_OPEN_URI | SQLITE_OPEN_EXRESCODE
        let code = sqlite3_open_v2(location, &connection, flags, nil)
        guard code == SQLITE_OK, let connection else {
            let message = connection.map { String(cString: sqlite3_errmsg($0)) }
            sqlite3_close_v2(connection)
            throw DatabaseError(code: code, message: message)
        }
        self.handle = connection
        self.location = location
        self.busyTimeout = busyTimeout
        sqlite3_extended_result_codes(connection, 1)
        csqlite_config_busy_timeout(connection, busyTimeout)
    }

    /// Process-wide SQLite settings, applied before the first connection opens (if SQLite is not running yet).
    private static let configureOnce: Void = {
        _ = csqlite_config_memstatus(0)
    }()

    /// Opens a plain file path (no URI parameters).
    public convenience init(path: String, readOnly: Bool = false) throws(DatabaseError) {
        try self.init(location: Database.uri(path: path), readOnly: readOnly)
    }

    deinit {
        statements.removeAll()
        sqlite3_close_v2(handle)
    }

    /// Runs SQL text of one or more statements that take no parameters (schema, pragmas).
    public func execute(_ sql: String) throws(DatabaseError) {
        var message: UnsafeMutablePointer<CChar>?
        let code = sqlite3_exec(handle, sql, nil, nil, &message)
        if code != SQLITE_OK {
            let text = message.map { String(cString: $0) }
            sqlite3_free(message)
            throw DatabaseError(code: code, message: text, sql: sql)
        }
    }

    /// A statement prepared once per connection and reused (reset) on every call.
    public func cachedStatement(_ sql: String) throws(DatabaseError) -> Statement {
        if let statement = statements[sql] {
            statement.reset()
            return statement
        }
        let statement = try Statement(database: self, sql: sql)
        statements[sql] = statement
        return statement
    }

    /// The first column of the first row of `sql` as an integer (nil when no row or NULL).
    public func int64(_ sql: String, _ arguments: Int64...) throws(DatabaseError) -> Int64? {
        let statement = try cachedStatement(sql)
        defer { statement.reset() }
        for (offset, value) in arguments.enumerated() { try statement.bind(value, at: Int32(offset + 1)) }
        guard try statement.step(), !statement.isNull(at: 0) else { return nil }
        return statement.int64(at: 0)
    }

    /// Runs `body` inside `BEGIN IMMEDIATE … COMMIT`; any error thrown rolls everything back.
    ///
    /// The write lock is taken at BEGIN, so a concurrent writer waits (busy timeout) instead of failing later.
    public func immediateTransaction<T>(_ body: () throws -> T) throws -> T {
        try cachedStatement("BEGIN IMMEDIATE").run()
        let result: T
        do {
            result = try body()
        } catch {
            rollback()
            throw error
        }
        do {
            try cachedStatement("COMMIT").run()
        } catch {
            rollback()
            throw error
        }
        return result
    }

    private func rollback() {
        if isInTransaction { try? cachedStatement("ROLLBACK").run() }
    }

    /// Whether a transaction is open on this connection.
    public var isInTransaction: Bool { sqlite3_get_autocommit(handle) == 0 }

    func error(code: Int32, sql: String?) -> DatabaseError {
        DatabaseError(
            code: sqlite3_extended_errcode(handle), message: String(cString: sqlite3_errmsg(handle)), sql: sql
        )
    }

    /// A `file:` URI for `path` with optional query parameters, escaping what URIs reserve.
    public static func uri(path: String, parameters: [String] = []) -> String {
        // An absolute path gets an empty authority ("file:///…") so a leading "//" is never read as a host.
        var escaped = path.hasPrefix("/") ? "file://" : "file:"
        for byte in path.utf8 {
            switch byte {
            case UInt8(ascii: "%"), UInt8(ascii: "?"), UInt8(ascii: "#"), 0x80...:
                escaped += (byte < 0x10 ? "%0" : "%") + String(byte, radix: 16, uppercase: true)
            default:
                escaped.unicodeScalars.append(Unicode.Scalar(byte))
            }
        }
        if !parameters.isEmpty { escaped += "?" + parameters.joined(separator: "&") }
        return escaped
    }
}
