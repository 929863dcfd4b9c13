import CSQLite

/// A bare SQLite table shaped like `events`, written with the C API alone: the floor of a durable append.
final class RawTable {
    private let db: OpaquePointer
    private let begin: OpaquePointer
    private let insert: OpaquePointer
    private let commit: OpaquePointer
    private let hash = [UInt8](repeating: 7, count: 32)

    init(path: String) throws {
        var db: OpaquePointer?
        guard sqlite3_open(path, &db) == SQLITE_OK, let db else {
            sqlite3_close(db)
            throw BenchError("cannot open \(path)")
        }
        self.db = db
        let setup = """
            PRAGMA journal_mode = WAL; PRAGMA synchronous = FULL;
            CREATE TABLE IF NOT EXISTS events (seq INTEGER PRIMARY KEY, time INTEGER NOT NULL, kind TEXT NOT NULL,
                version INTEGER NOT NULL, tasks TEXT NOT NULL, payload TEXT NOT NULL, hash BLOB NOT NULL)
            """
        guard sqlite3_exec(db, setup, nil, nil, nil) == SQLITE_OK else {
            sqlite3_close(db)
            throw BenchError("cannot create the raw table")
        }
        func prepare(_ sql: String) throws -> OpaquePointer {
            var statement: OpaquePointer?
            guard sqlite3_prepare_v2(db, sql, -1, &statement, nil) == SQLITE_OK, let statement else {
                throw BenchError("cannot prepare \(sql)")
            }
            return statement
        }
        begin = try prepare("BEGIN")
        insert = try prepare("INSERT INTO events VALUES (?, ?, 'tasksAdded', 1, ?, ?, ?)")
        commit = try prepare("COMMIT")
    }

    deinit {
        sqlite3_finalize(begin)
        sqlite3_finalize(insert)
        sqlite3_finalize(commit)
        sqlite3_close(db)
    }

    /// One transaction inserting one row.
    func insert(id: Int64, payload: [UInt8]) throws {
        try run(begin)
        sqlite3_bind_int64(insert, 1, id)
        sqlite3_bind_int64(insert, 2, id)
        let tasks = String(id)
        csqlite_bind_text_transient(insert, 3, tasks, Int32(tasks.utf8.count))
        payload.withUnsafeBytes {
            _ = csqlite_bind_text_transient(
                insert, 4, $0.baseAddress?.assumingMemoryBound(to: CChar.self), Int32($0.count))
        }
        hash.withUnsafeBytes { _ = csqlite_bind_blob_transient(insert, 5, $0.baseAddress, 32) }
        try run(insert)
        try run(commit)
    }

    private func run(_ statement: OpaquePointer) throws {
        defer { sqlite3_reset(statement) }
        guard sqlite3_step(statement) == SQLITE_DONE else {
            throw BenchError("raw insert failed: " + String(cString: sqlite3_errmsg(db)))
        }
    }
}
