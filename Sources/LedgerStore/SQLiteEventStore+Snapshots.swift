extension SQLiteEventStore {
    /// How many snapshots are kept per reducer version.
    static let snapshotsKept: Int64 = 3
    /// How much of the file may be memory-mapped while a snapshot is read.
    static let snapshotMapSize = 1 << 30

    public func saveSnapshot(seq: Int64, reducerVersion: Int, bytes: [UInt8]) throws {
        guard !isReadOnly, hasSnapshotsTable else { throw StoreError.readOnly }
        try translatingErrors {
            try db.immediateTransaction {
                let head = try db.int64("SELECT max(seq) FROM events") ?? 0
                guard seq <= head else { throw StoreError.snapshotBeyondHead(seq: seq, head: head) }
                let save = try db.cachedStatement(
                    """
                    INSERT OR REPLACE INTO snapshots(reducer_version, seq, created_at, bytes)
                    VALUES (?, ?, CAST((julianday('now') - 2440587.5) * 86400000 AS INTEGER), ?)
                    """)
                try save.bind(Int64(reducerVersion), at: 1)
                try save.bind(seq, at: 2)
                try bytes.withUnsafeBytes { try save.bindBlob($0, at: 3) }
                try save.run()
                let prune = try db.cachedStatement(
                    """
                    DELETE FROM snapshots WHERE reducer_version = ?1 AND seq NOT IN
                        (SELECT seq FROM snapshots WHERE reducer_version = ?1 ORDER BY seq DESC LIMIT ?2)
                    """)
                try prune.bind(Int64(reducerVersion), at: 1)
                try prune.bind(Self.snapshotsKept, at: 2)
                try prune.run()
            }
        }
    }

    public func withLatestSnapshot<T>(
        reducerVersion: Int, atOrBefore seq: Int64?,
        _ body: (_ seq: Int64, _ bytes: UnsafeRawBufferPointer) throws -> T
    ) throws -> T? {
        guard hasSnapshotsTable else { return nil }
        return try translatingErrors {
            // A snapshot of tens of MB is read through a memory map, without a pread copy per page. The map is
            // only open for this read: it is not counted in the process's memory afterwards, and a file changed
            // under the map by another program cannot fault a later read.
            try db.execute("PRAGMA mmap_size = \(Self.snapshotMapSize)")
            defer { try? db.execute("PRAGMA mmap_size = 0") }
            let statement = try db.cachedStatement(
                """
                SELECT seq, bytes FROM snapshots WHERE reducer_version = ? AND seq <= ?
                ORDER BY seq DESC LIMIT 1
                """)
            defer { statement.reset() }
            try statement.bind(Int64(reducerVersion), at: 1)
            try statement.bind(seq ?? Int64.max, at: 2)
            guard try statement.step() else { return nil }
            // Straight from SQLite's buffer: the blob is not copied again.
            return try body(statement.int64(at: 0), statement.rawBytes(at: 1))
        }
    }

    public func latestSnapshotSeq(reducerVersion: Int, atOrBefore seq: Int64?) throws -> Int64? {
        guard hasSnapshotsTable else { return nil }
        return try translatingErrors {
            let statement = try db.cachedStatement(
                "SELECT max(seq) FROM snapshots WHERE reducer_version = ? AND seq <= ?")
            defer { statement.reset() }
            try statement.bind(Int64(reducerVersion), at: 1)
            try statement.bind(seq ?? Int64.max, at: 2)
            guard try statement.step(), !statement.isNull(at: 0) else { return nil }
            return statement.int64(at: 0)
        }
    }
}
