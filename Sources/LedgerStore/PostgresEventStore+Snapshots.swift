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
    ///
    /// One snapshot per round trip: an open uses the newest, so only its megabytes cross the wire and are read out
    /// of TOAST; an older one is read only when a newer one's seal fails.
    private func eachSnapshot(
        reducerVersion: Int, atOrBefore seq: Int64?, summaries: Bool = false,
        _ visit: (_ seq: Int64, _ bytes: UnsafeRawBufferPointer, _ problem: SnapshotSeal.Problem?) throws ->
            Bool
    ) throws {
        guard try exists() else { return }
        // Columns 0–3 of either read: the seq, the seal (event hash, digest), the chain's hash at the seq.
        func check(_ row: PostgresResult, _ bytes: UnsafeRawBufferPointer, _ digested: [UInt8]?) throws -> (
            seq: Int64, goOn: Bool
        ) {
            let seq = row.int64(0, 0)
            let problem = SnapshotSeal.check(
                reducerVersion: reducerVersion, seq: seq, bytes: bytes,
                eventHash: row.isNull(0, 1) ? nil : row.bytes(0, 1),
                digest: row.isNull(0, 2) ? nil : row.bytes(0, 2),
                chainHash: row.isNull(0, 3) ? nil : row.bytes(0, 3), summary: summaries, digested: digested)
            return (seq, try visit(seq, bytes, problem))
        }
        var bound = seq ?? Int64.max
        while bound >= 0 {
            let seen =
                summaries
                ? try withSummary(reducerVersion: reducerVersion, atOrBefore: bound, check)
                : try withSnapshot(reducerVersion: reducerVersion, atOrBefore: bound, check)
            guard let seen, seen.goOn else { return }
            bound = seen.seq - 1
        }
    }

    /// Bytes per row of a snapshot read in pieces.
    static let snapshotPiece = 256 * 1024

    /// `body` of the newest snapshot at or before `bound`: its first row (the columns of ``snapshotSQL``), its
    /// bytes, and their seal's digest when it could be taken as they arrived; nil when there is none.
    ///
    /// The bytes come as rows of ``snapshotPiece`` bytes (`substring` of the stored value, which reads only its
    /// TOAST chunks: the column is stored uncompressed, `STORAGE EXTERNAL` in migration 0002), each copied into
    /// place as it arrives (single-row mode). A server process that sends 10 MB as
    /// one value detoasts it, copies it and grows its send buffer over new memory, and libpq then holds the value
    /// in a buffer as large and copies it into a result as large: in pieces, both sides reuse a few hundred KB.
    /// Pieces that arrive in order (they do: the series is walked in order) are hashed for the seal as they come,
    /// while the server sends the next.
    /// - Throws: `StoreError.corrupt` when the pieces do not make the snapshot whole.
    private func withSnapshot<T>(
        reducerVersion: Int, atOrBefore bound: Int64,
        _ body: (PostgresResult, UnsafeRawBufferPointer, _ digested: [UInt8]?) throws -> T
    ) throws -> T? {
        let piece = Self.snapshotPiece
        var first: PostgresResult?
        var whole = UnsafeMutableRawBufferPointer(start: nil, count: 0)
        defer { whole.deallocate() }
        var placed: [Bool] = []
        var digester: SnapshotSeal.Digester?
        var hashed = 0
        let incomplete = StoreError.corrupt(location.masked, "a snapshot's pieces do not make it whole")
        try connection.eachRow(
            Self.snapshotSQL, PostgresParameters(Int64(reducerVersion), bound, Int64(piece))
        ) { row in
            if first == nil {
                first = row
                let length = Int(row.int64(0, 4))
                whole = .allocate(byteCount: length, alignment: 16)
                placed = [Bool](repeating: false, count: max(1, (length + piece - 1) / piece))
                if !row.isNull(0, 1) {
                    digester = SnapshotSeal.Digester(
                        reducerVersion: reducerVersion, seq: row.int64(0, 0), eventHash: row.bytes(0, 1),
                        tag: [])
                }
            }
            let number = Int(row.int64(0, 5))
            let part = row.bytes(0, 6)
            guard number >= 0, number < placed.count, !placed[number],
                part.count == min(piece, whole.count - number * piece)
            else { throw incomplete }
            placed[number] = true
            UnsafeMutableRawBufferPointer(rebasing: whole[(number * piece)...]).copyMemory(from: part)
            if number == hashed {
                digester?.add(part)
                hashed += 1
            } else {
                digester = nil
            }
        }
        guard let first else { return nil }
        guard !placed.contains(false) else { throw incomplete }
        return try body(first, UnsafeRawBufferPointer(whole), digester?.finish())
    }

    /// The newest snapshot at or before `$2`: its seq, seal, the chain's hash at its seq, its length, and its bytes
    /// as rows of `$3` bytes each (numbered: the rows may come in any order).
    static let snapshotSQL = """
        SELECT s.seq, s.event_hash, s.digest, e.hash, octet_length(s.bytes)::int8, p.n,
            substring(s.bytes FROM (p.n * $3 + 1)::int4 FOR $3::int4)
        FROM (
            SELECT seq, bytes, event_hash, digest FROM snapshots
            WHERE reducer_version = $1 AND seq <= $2 ORDER BY seq DESC LIMIT 1
        ) s
        LEFT JOIN events e ON e.seq = s.seq
        CROSS JOIN LATERAL generate_series(0::int8, greatest(octet_length(s.bytes) - 1, 0) / $3) AS p(n)
        """

    /// `body` of the newest summary at or before `bound` (a few hundred bytes: one row): the row, whose first
    /// columns are those of ``snapshotSQL``, and the summary; nil when there is none.
    private func withSummary<T>(
        reducerVersion: Int, atOrBefore bound: Int64,
        _ body: (PostgresResult, UnsafeRawBufferPointer, _ digested: [UInt8]?) throws -> T
    ) throws -> T? {
        let row = try connection.execute(
            """
            SELECT s.seq, s.event_hash, s.summary_digest, e.hash, s.summary
            FROM snapshots s LEFT JOIN events e ON e.seq = s.seq
            WHERE s.reducer_version = $1 AND s.seq <= $2 AND s.summary IS NOT NULL ORDER BY s.seq DESC LIMIT 1
            """, PostgresParameters(Int64(reducerVersion), bound))
        guard row.rowCount == 1 else { return nil }
        return try body(row, row.bytes(0, 4), nil)
    }

    public func withLatestSnapshot<T>(
        reducerVersion: Int, atOrBefore seq: Int64?,
        _ body: (_ seq: Int64, _ bytes: UnsafeRawBufferPointer) throws -> T
    ) throws -> T? {
        try firstSealed(reducerVersion: reducerVersion, atOrBefore: seq, summaries: false, body)
    }

    public func withLatestSummary<T>(
        reducerVersion: Int, atOrBefore seq: Int64?,
        _ body: (_ seq: Int64, _ summary: UnsafeRawBufferPointer) throws -> T
    ) throws -> T? {
        try firstSealed(reducerVersion: reducerVersion, atOrBefore: seq, summaries: true, body)
    }

    /// `body` of the newest snapshot (or summary) whose seal holds; one that fails is skipped (verify names it),
    /// never trusted. Nil when there is none.
    private func firstSealed<T>(
        reducerVersion: Int, atOrBefore seq: Int64?, summaries: Bool,
        _ body: (_ seq: Int64, _ bytes: UnsafeRawBufferPointer) throws -> T
    ) throws -> T? {
        var result: T?
        try eachSnapshot(reducerVersion: reducerVersion, atOrBefore: seq, summaries: summaries) {
            seq, bytes, problem in
            guard problem == nil else { return true }
            result = try body(seq, bytes)
            return false
        }
        return result
    }

    /// Whether the bytes `encoding` hands over in pieces are those of the sealed snapshot at exactly `seq`, by its
    /// digest, as the SQLite store tells it: the stored bytes (tens of MB) do not cross the wire for `verify`'s
    /// comparison, and the encoding is never held whole. Only a snapshot whose seal ties it to the chain counts.
    public func snapshotHolds(
        reducerVersion: Int, seq: Int64, encoding: (_ piece: (UnsafeRawBufferPointer) -> Void) -> Void
    ) throws -> Bool {
        guard try exists() else { return false }
        let row = try connection.execute(
            """
            SELECT s.event_hash, s.digest FROM snapshots s JOIN events e ON e.seq = s.seq
            WHERE s.reducer_version = $1 AND s.seq = $2 AND e.hash = s.event_hash
            """, PostgresParameters(Int64(reducerVersion), seq))
        guard row.rowCount == 1, !row.isNull(0, 0), !row.isNull(0, 1) else { return false }
        let digest = SnapshotSeal.digest(
            reducerVersion: reducerVersion, seq: seq, eventHash: row.bytes(0, 0), tag: [], pieces: encoding)
        return row.bytes(0, 1).elementsEqual(digest)
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
