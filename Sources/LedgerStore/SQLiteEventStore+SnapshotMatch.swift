extension SQLiteEventStore {
    /// Whether the bytes `encoding` hands over in pieces are those of the sealed snapshot at exactly `seq`, by its
    /// digest: neither the stored blob (tens of MB) nor the encoding is held whole. Only a snapshot whose seal ties
    /// it to the chain counts (one that does not is a problem `snapshotProblems` names, and is never loaded).
    public func snapshotHolds(
        reducerVersion: Int, seq: Int64, encoding: (_ piece: (UnsafeRawBufferPointer) -> Void) -> Void
    ) throws -> Bool {
        guard hasSealedSnapshots else { return false }
        return try translatingErrors {
            // Scanned, not searched by key (`+`): a search compares its key with whole rows, and a row that spills
            // to overflow pages is copied whole for that (the snapshot's tens of MB), as `eachSnapshot` says.
            let statement = try db.cachedStatement(
                """
                SELECT s.event_hash, s.digest FROM snapshots s JOIN events e ON e.seq = s.seq
                WHERE +s.reducer_version = ? AND +s.seq = ? AND e.hash = s.event_hash
                """)
            defer { statement.reset() }
            try statement.bind(Int64(reducerVersion), at: 1)
            try statement.bind(seq, at: 2)
            guard try statement.step(), !statement.isNull(at: 0), !statement.isNull(at: 1) else {
                return false
            }
            let digest = SnapshotSeal.digest(
                reducerVersion: reducerVersion, seq: seq, eventHash: statement.rawBytes(at: 0), tag: [],
                pieces: encoding)
            return statement.rawBytes(at: 1).elementsEqual(digest)
        }
    }
}
