import CSQLite

/// A prepared statement owned by its `Database`; values go in only through bound parameters.
///
/// Statements from `Database.cachedStatement(_:)` are reset and reused: bind every parameter before each run.
public final class Statement {
    let handle: OpaquePointer
    /// The SQL text the statement was prepared from.
    public let sql: String
    private unowned let database: Database

    init(database: Database, sql: String) throws(DatabaseError) {
        var statement: OpaquePointer?
        let code = sqlite3_prepare_v3(
            database.handle, sql, -1, UInt32(SQLITE_PREPARE_PERSISTENT), &statement, nil)
        guard code == SQLITE_OK, let statement else {
            throw database.error(code: code, sql: sql)
        }
        self.handle = statement
        self.sql = sql
        self.database = database
    }

    deinit { sqlite3_finalize(handle) }

    /// Resets the statement so it can run again (bindings are kept).
    public func reset() { sqlite3_reset(handle) }

    /// Binds an integer to the 1-based parameter `index`.
    public func bind(_ value: Int64, at index: Int32) throws(DatabaseError) {
        try check(sqlite3_bind_int64(handle, index, value))
    }

    /// Binds NULL to the 1-based parameter `index`.
    public func bindNull(at index: Int32) throws(DatabaseError) {
        try check(sqlite3_bind_null(handle, index))
    }

    /// Binds a string as TEXT.
    public func bind(_ value: String, at index: Int32) throws(DatabaseError) {
        var value = value
        let code = value.withUTF8 { bind(text: UnsafeRawBufferPointer($0), at: index, copy: true) }
        try check(code)
    }

    /// Binds bytes as TEXT (copied), e.g. UTF-8 JSON that should stay readable in the sqlite3 shell.
    public func bindText(_ bytes: UnsafeRawBufferPointer, at index: Int32) throws(DatabaseError) {
        try check(bind(text: bytes, at: index, copy: true))
    }

    /// Binds bytes as a BLOB (copied).
    public func bindBlob(_ bytes: UnsafeRawBufferPointer, at index: Int32) throws(DatabaseError) {
        try check(bind(blob: bytes, at: index, copy: true))
    }

    /// Binds bytes as TEXT without copying: `bytes` must stay valid until the next `step()` returns.
    func bindTextNoCopy(_ bytes: UnsafeRawBufferPointer, at index: Int32) throws(DatabaseError) {
        try check(bind(text: bytes, at: index, copy: false))
    }

    /// Binds bytes as a BLOB without copying: `bytes` must stay valid until the next `step()` returns.
    func bindBlobNoCopy(_ bytes: UnsafeRawBufferPointer, at index: Int32) throws(DatabaseError) {
        try check(bind(blob: bytes, at: index, copy: false))
    }

    private func bind(text bytes: UnsafeRawBufferPointer, at index: Int32, copy: Bool) -> Int32 {
        guard let base = bytes.baseAddress?.assumingMemoryBound(to: CChar.self) else {
            return csqlite_bind_text_transient(handle, index, "", 0)
        }
        return copy
            ? csqlite_bind_text_transient(handle, index, base, Int32(bytes.count))
            : sqlite3_bind_text(handle, index, base, Int32(bytes.count), nil)
    }

    private func bind(blob bytes: UnsafeRawBufferPointer, at index: Int32, copy: Bool) -> Int32 {
        guard let base = bytes.baseAddress else { return sqlite3_bind_zeroblob(handle, index, 0) }
        return copy
            ? csqlite_bind_blob_transient(handle, index, base, Int32(bytes.count))
            : sqlite3_bind_blob(handle, index, base, Int32(bytes.count), nil)
    }

    /// Runs one step: `true` when a row is available, `false` when the statement is done.
    @discardableResult
    public func step() throws(DatabaseError) -> Bool {
        switch sqlite3_step(handle) {
        case SQLITE_ROW: return true
        case SQLITE_DONE: return false
        case let code:
            let error = database.error(code: code, sql: sql)
            sqlite3_reset(handle)
            throw error
        }
    }

    /// Steps the statement to completion, then resets it.
    public func run() throws(DatabaseError) {
        defer { sqlite3_reset(handle) }
        while try step() {}
    }

    /// The integer in column `index` (0-based) of the current row.
    public func int64(at index: Int32) -> Int64 { sqlite3_column_int64(handle, index) }

    /// Whether column `index` of the current row is NULL.
    public func isNull(at index: Int32) -> Bool { sqlite3_column_type(handle, index) == SQLITE_NULL }

    /// The bytes of column `index` of the current row, valid until the next step or reset.
    public func rawBytes(at index: Int32) -> UnsafeRawBufferPointer {
        // sqlite3_column_blob then sqlite3_column_bytes is the documented order: no conversion happens.
        guard let base = sqlite3_column_blob(handle, index) else {
            return UnsafeRawBufferPointer(start: nil, count: 0)
        }
        return UnsafeRawBufferPointer(start: base, count: Int(sqlite3_column_bytes(handle, index)))
    }

    /// A copy of the bytes of column `index`.
    public func bytes(at index: Int32) -> [UInt8] { Array(rawBytes(at: index)) }

    /// Column `index` decoded as UTF-8 text.
    public func string(at index: Int32) -> String { String(decoding: rawBytes(at: index), as: UTF8.self) }

    private func check(_ code: Int32) throws(DatabaseError) {
        if code != SQLITE_OK { throw database.error(code: code, sql: sql) }
    }
}
