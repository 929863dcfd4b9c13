extension SQLiteEventStore {
    /// Whether `bytes` are those of the sealed snapshot at exactly `seq`, by its digest: the stored blob (tens of
    /// MB) is neither read nor held. Only a snapshot whose seal ties it to the chain counts (one that does not is a
    /// problem `snapshotProblems` names, and is never loaded).
    public func snapshotHolds(_ bytes: [UInt8], reducerVersion: Int, seq: Int64) throws -> Bool {
        guard hasSealedSnapshots else { return false }
        return try translatingErrors {
            let statement = try db.cachedStatement(
                """
                SELECT s.event_hash, s.digest FROM snapshots s JOIN events e ON e.seq = s.seq
                WHERE s.reducer_version = ? AND s.seq = ? AND e.hash = s.event_hash
                """)
            defer { statement.reset() }
            try statement.bind(Int64(reducerVersion), at: 1)
            try statement.bind(seq, at: 2)
            guard try statement.step(), !statement.isNull(at: 0), !statement.isNull(at: 1) else {
                return false
            }
            let digest = bytes.withUnsafeBytes { bytes in
                SnapshotSeal.digest(
                    reducerVersion: reducerVersion, seq: seq, eventHash: statement.rawBytes(at: 0),
                    tag: [], bytes: bytes)
            }
            return statement.rawBytes(at: 1).elementsEqual(digest)
        }
    }
}
