import CSQLite

/// A SQLite result code, primary or extended (`DatabaseError.code` is always the primary one).
public struct ResultCode: RawRepresentable, Hashable, Sendable, CustomStringConvertible {
    public var rawValue: Int32
    public init(rawValue: Int32) { self.rawValue = rawValue }

    /// The primary code of an extended one (`SQLITE_BUSY_SNAPSHOT` → `.busy`).
    public var primary: ResultCode { ResultCode(rawValue: rawValue & 0xFF) }

    public static let error = ResultCode(rawValue: SQLITE_ERROR)
    public static let busy = ResultCode(rawValue: SQLITE_BUSY)
    public static let locked = ResultCode(rawValue: SQLITE_LOCKED)
    public static let readOnly = ResultCode(rawValue: SQLITE_READONLY)
    public static let ioError = ResultCode(rawValue: SQLITE_IOERR)
    public static let corrupt = ResultCode(rawValue: SQLITE_CORRUPT)
    public static let full = ResultCode(rawValue: SQLITE_FULL)
    public static let cantOpen = ResultCode(rawValue: SQLITE_CANTOPEN)
    public static let constraint = ResultCode(rawValue: SQLITE_CONSTRAINT)
    public static let notADatabase = ResultCode(rawValue: SQLITE_NOTADB)
    public static let permission = ResultCode(rawValue: SQLITE_PERM)

    public var description: String { String(cString: sqlite3_errstr(rawValue)) + " (\(rawValue))" }
}

/// A failed SQLite call: its primary result code, SQLite's message and the SQL that failed, if any.
///
/// ```swift
/// catch let error as DatabaseError where error.code == .busy { … }
/// ```
public struct DatabaseError: Error, Equatable, Sendable, CustomStringConvertible {
    /// The primary result code.
    public var code: ResultCode { extendedCode.primary }
    /// The extended result code as SQLite returned it.
    public var extendedCode: ResultCode
    /// SQLite's message (`sqlite3_errmsg`), or the result code's text.
    public var message: String
    /// The statement that failed, when there is one.
    public var sql: String?

    public init(code: Int32, message: String? = nil, sql: String? = nil) {
        self.extendedCode = ResultCode(rawValue: code)
        self.message = message ?? String(cString: sqlite3_errstr(code))
        self.sql = sql
    }

    public var description: String {
        var text = "SQLite error \(extendedCode.rawValue): \(message)"
        if let sql { text += " in «\(sql)»" }
        return text
    }
}
