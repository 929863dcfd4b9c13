import CSQLite

extension SQLiteEventStore {
    public func verifyChain() throws -> ChainReport {
        try translatingErrors {
            let statement = try db.cachedStatement(Self.selectColumns + " ORDER BY seq")
            defer { statement.reset() }
            let handle = statement.handle
            var report = ChainReport(rowCount: 0, head: 0, headHash: [], firstProblem: nil)
            hasher.restart(from: nil)
            while try statement.step() {
                let seq = statement.int64(at: 0)
                report.rowCount += 1
                report.head = seq
                guard report.firstProblem == nil else { continue }
                let expected = report.rowCount
                if let problem = Self.typeProblem(handle) {
                    report.firstProblem = .init(seq: seq, reason: .badRow(problem))
                } else if seq != expected {
                    report.firstProblem = .init(seq: seq, reason: .gap(expected: expected))
                } else {
                    hasher.chainInPlace(
                        seq: seq, time: statement.int64(at: 1), kind: statement.rawBytes(at: 2),
                        version: Int(statement.int64(at: 3)), tasksText: statement.rawBytes(at: 4),
                        payload: statement.rawBytes(at: 5))
                    if !statement.rawBytes(at: 6).elementsEqual(hasher.hash) {
                        report.firstProblem = .init(seq: seq, reason: .hashMismatch)
                    }
                }
            }
            report.headHash = report.rowCount == 0 ? [] : try lastHash()
            return report
        }
    }

    private func lastHash() throws -> [UInt8] {
        let statement = try db.cachedStatement("SELECT hash FROM events ORDER BY seq DESC LIMIT 1")
        defer { statement.reset() }
        return try statement.step() ? statement.bytes(at: 0) : []
    }

    private static let columnTypes: [(name: String, types: [Int32])] = [
        ("seq", [SQLITE_INTEGER]), ("time", [SQLITE_INTEGER]), ("kind", [SQLITE_TEXT]),
        ("version", [SQLITE_INTEGER]), ("tasks", [SQLITE_TEXT]), ("payload", [SQLITE_TEXT, SQLITE_BLOB]),
        ("hash", [SQLITE_BLOB]),
    ]

    /// Why a row of `selectColumns` cannot be an event, or nil when its columns have the right types.
    private static func typeProblem(_ handle: OpaquePointer) -> String? {
        for (index, column) in columnTypes.enumerated() {
            if !column.types.contains(sqlite3_column_type(handle, Int32(index))) {
                return "\(column.name) has the wrong type"
            }
        }
        if sqlite3_column_bytes(handle, 6) != Int32(ChainHasher.digestLength) {
            return "hash is not 32 bytes"
        }
        if ChainHasher.parseTasks(
            UnsafeRawBufferPointer(
                start: sqlite3_column_blob(handle, 4), count: Int(sqlite3_column_bytes(handle, 4))))
            == nil
        {
            return "tasks is not comma-separated ids"
        }
        return nil
    }
}
