extension PostgresEventStore {
    public func saveSnapshot(seq: Int64, reducerVersion: Int, bytes: [UInt8], summary: [UInt8]?) throws {
        guard !isReadOnly else { throw StoreError.readOnly }
        try migrate()
        try connection.transaction {
            let head = try connection.execute("SELECT seq FROM head").int64(0, 0)
            guard seq <= head else { throw StoreError.snapshotBeyondHead(seq: seq, head: head) }
            var eventHash = ChainHasher.zeroHash
            if seq > 0 {
                let row = try connection.execute(
                    "SELECT hash FROM events WHERE seq = $1", PostgresParameters(seq))
                guard row.rowCount == 1, row.bytes(0, 0).count == ChainHasher.digestLength else {
                    throw StoreError.corrupt(
                        location.masked, "the hash of seq \(seq) is missing or not 32 bytes")
                }
                eventHash = Array(row.bytes(0, 0))
            }
            var parameters = PostgresParameters(Int64(reducerVersion), seq)
            eventHash.withUnsafeBytes { hash in
                bytes.withUnsafeBytes { bytes in
                    let seal = SnapshotSeal(
                        reducerVersion: reducerVersion, seq: seq, eventHash: hash, bytes: bytes)
                    parameters.add(bytes: bytes)
                    parameters.add(bytes: seal.eventHash)
                    parameters.add(bytes: seal.digest)
                }
                if let summary {
                    summary.withUnsafeBytes { summary in
                        parameters.add(bytes: summary)
                        parameters.add(
                            bytes: SnapshotSeal.summaryDigest(
                                reducerVersion: reducerVersion, seq: seq, eventHash: hash, summary: summary))
                    }
                } else {
                    parameters.addNull(type: PostgresParameters.OID.bytea)
                    parameters.addNull(type: PostgresParameters.OID.bytea)
                }
            }
            try connection.execute(
                """
                INSERT INTO snapshots(
                    reducer_version, seq, created_at, bytes, event_hash, digest, summary, summary_digest)
                VALUES ($1, $2, (extract(epoch FROM clock_timestamp()) * 1000)::int8, $3, $4, $5, $6, $7)
                ON CONFLICT (reducer_version, seq) DO UPDATE SET
                    created_at = EXCLUDED.created_at, bytes = EXCLUDED.bytes, event_hash = EXCLUDED.event_hash,
                    digest = EXCLUDED.digest, summary = EXCLUDED.summary, summary_digest = EXCLUDED.summary_digest
                """, parameters)
            try connection.execute(
                """
                DELETE FROM snapshots WHERE reducer_version = $1 AND seq NOT IN
                    (SELECT seq FROM snapshots WHERE reducer_version = $1 ORDER BY seq DESC LIMIT $2)
                """, PostgresParameters(Int64(reducerVersion), SQLiteEventStore.snapshotsKept))
        }
    }

    /// The snapshot rows of `reducerVersion` at or before `seq`, newest first, each checked against its seal and
    /// the chain's hash at its seq; `visit` returns false to stop. With `summaries`, their summaries instead (rows
    /// without one are passed over).
    private func eachSnapshot(
        reducerVersion: Int, atOrBefore seq: Int64?, summaries: Bool = false,
        _ visit: (_ seq: Int64, _ bytes: UnsafeRawBufferPointer, _ problem: SnapshotSeal.Problem?) throws ->
            Bool
    ) throws {
        guard try exists() else { return }
        let rows = try connection.execute(
            summaries
                ? """
                SELECT s.seq, s.summary, s.event_hash, s.summary_digest, e.hash
                FROM snapshots s LEFT JOIN events e ON e.seq = s.seq
                WHERE s.reducer_version = $1 AND s.seq <= $2 AND s.summary IS NOT NULL ORDER BY s.seq DESC
                """
                : """
                SELECT s.seq, s.bytes, s.event_hash, s.digest, e.hash
                FROM snapshots s LEFT JOIN events e ON e.seq = s.seq
                WHERE s.reducer_version = $1 AND s.seq <= $2 ORDER BY s.seq DESC
                """, PostgresParameters(Int64(reducerVersion), seq ?? Int64.max))
        for row in 0..<rows.rowCount {
            let seq = rows.int64(row, 0)
            let bytes = rows.bytes(row, 1)
            let problem = SnapshotSeal.check(
                reducerVersion: reducerVersion, seq: seq, bytes: bytes,
                eventHash: rows.isNull(row, 2) ? nil : rows.bytes(row, 2),
                digest: rows.isNull(row, 3) ? nil : rows.bytes(row, 3),
                chainHash: rows.isNull(row, 4) ? nil : rows.bytes(row, 4), summary: summaries)
            guard try visit(seq, bytes, problem) else { return }
        }
    }

    public func withLatestSnapshot<T>(
        reducerVersion: Int, atOrBefore seq: Int64?,
        _ body: (_ seq: Int64, _ bytes: UnsafeRawBufferPointer) throws -> T
    ) throws -> T? {
        var result: T?
        try eachSnapshot(reducerVersion: reducerVersion, atOrBefore: seq) { seq, bytes, problem in
            guard problem == nil else { return true }
            result = try body(seq, bytes)
            return false
        }
        return result
    }

    public func withLatestSummary<T>(
        reducerVersion: Int, atOrBefore seq: Int64?,
        _ body: (_ seq: Int64, _ summary: UnsafeRawBufferPointer) throws -> T
    ) throws -> T? {
        var result: T?
        try eachSnapshot(reducerVersion: reducerVersion, atOrBefore: seq, summaries: true) {
            seq, summary, problem in
            guard problem == nil else { return true }
            result = try body(seq, summary)
            return false
        }
        return result
    }

    public func latestSnapshotSeq(reducerVersion: Int, atOrBefore seq: Int64?) throws -> Int64? {
        try withLatestSnapshot(reducerVersion: reducerVersion, atOrBefore: seq) { seq, _ in seq }
    }

    public func snapshotProblems(reducerVersion: Int) throws -> [SnapshotProblem] {
        var problems: [SnapshotProblem] = []
        try eachSnapshot(reducerVersion: reducerVersion, atOrBefore: nil) { seq, _, problem in
            if let problem { problems.append(SnapshotProblem(seq: seq, reason: problem.description)) }
            return true
        }
        try eachSnapshot(reducerVersion: reducerVersion, atOrBefore: nil, summaries: true) {
            seq, _, problem in
            if let problem, problem != .notOnChain {
                let reason =
                    problem == .unsealed
                    ? "its summary has no seal"
                    : "its summary was changed after it was saved (digest mismatch)"
                problems.append(SnapshotProblem(seq: seq, reason: reason))
            }
            return true
        }
        return problems.sorted { $0.seq > $1.seq }
    }
}
