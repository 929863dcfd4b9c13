import CSQLite

/// The add index (`add_index`, schema 6): where the tasks of a big add lie in its payload, sealed to the chain like
/// a snapshot, and the payload read in pieces through SQLite's incremental blob I/O.
extension SQLiteEventStore {
    /// What an add index's digest is taken over besides its bytes (an index's bytes moved into a snapshot's row
    /// are no sealed snapshot).
    static let addIndexTag = Array("add index".utf8)

    public func saveAddIndex(seq: Int64, bytes: [UInt8]) throws {
        guard !isReadOnly, hasAddIndex else { return }
        try translatingErrors {
            try db.immediateTransaction {
                let digest = try bytes.withUnsafeBytes { bytes in
                    try withChainHash(at: seq) { hash in
                        (
                            Array(hash),
                            SnapshotSeal.digest(
                                reducerVersion: 0, seq: seq, eventHash: hash, tag: Self.addIndexTag,
                                bytes: bytes)
                        )
                    }
                }
                let save = try db.cachedStatement(
                    "INSERT OR REPLACE INTO add_index(seq, event_hash, bytes, digest) VALUES (?, ?, ?, ?)")
                try save.bind(seq, at: 1)
                try digest.0.withUnsafeBytes { try save.bindBlob($0, at: 2) }
                try bytes.withUnsafeBytes { try save.bindBlob($0, at: 3) }
                try digest.1.withUnsafeBytes { try save.bindBlob($0, at: 4) }
                try save.run()
            }
        }
    }

    public func addIndexSeqs() throws -> [Int64] {
        guard hasAddIndex else { return [] }
        return try translatingErrors {
            let statement = try db.cachedStatement("SELECT seq FROM add_index ORDER BY seq")
            defer { statement.reset() }
            var seqs: [Int64] = []
            while try statement.step() { seqs.append(statement.int64(at: 0)) }
            return seqs
        }
    }

    public func withAddIndex<T>(
        seq: Int64,
        _ body: (
            _ index: UnsafeRawBufferPointer, _ payloadLength: Int, _ piece: (Range<Int>) throws -> [UInt8]?
        ) throws -> T
    ) throws -> T? {
        guard hasAddIndex else { return nil }
        return try translatingErrors {
            // The payload's overflow pages are walked to the piece through a map, not read page by page.
            try db.execute("PRAGMA mmap_size = \(Self.snapshotMapSize)")
            defer { try? db.execute("PRAGMA mmap_size = 0") }
            let statement = try db.cachedStatement(
                """
                SELECT a.bytes, a.event_hash, a.digest, e.hash FROM add_index a JOIN events e ON e.seq = a.seq
                WHERE a.seq = ?
                """)
            defer { statement.reset() }
            try statement.bind(seq, at: 1)
            guard try statement.step() else { return nil }
            let bytes = statement.rawBytes(at: 0)
            let (sealed, digest, chain) = (
                statement.rawBytes(at: 1), statement.rawBytes(at: 2), statement.rawBytes(at: 3)
            )
            // Saved on this chain, for this event, and not changed since.
            guard sealed.count == ChainHasher.digestLength, sealed.elementsEqual(chain),
                digest.elementsEqual(
                    SnapshotSeal.digest(
                        reducerVersion: 0, seq: seq, eventHash: sealed, tag: Self.addIndexTag, bytes: bytes))
            else { return nil }
            var blob: OpaquePointer?
            guard sqlite3_blob_open(db.handle, "main", "events", "payload", seq, 0, &blob) == SQLITE_OK,
                let blob
            else {
                sqlite3_blob_close(blob)
                return nil
            }
            defer { sqlite3_blob_close(blob) }
            let length = Int(sqlite3_blob_bytes(blob))
            return try body(bytes, length) { range in
                guard range.lowerBound >= 0, range.upperBound <= length, range.count < Int(Int32.max) else {
                    return nil
                }
                var piece = [UInt8](repeating: 0, count: range.count)
                let read = piece.withUnsafeMutableBytes {
                    sqlite3_blob_read(blob, $0.baseAddress, Int32(range.count), Int32(range.lowerBound))
                }
                return read == SQLITE_OK ? piece : nil
            }
        }
    }
}
