extension SQLiteEventStore {
    /// How many snapshots are kept per reducer version.
    static let snapshotsKept: Int64 = 3
    /// How much of the file may be memory-mapped while a snapshot is read.
    static let snapshotMapSize = 1 << 30

    public func saveSnapshot(seq: Int64, reducerVersion: Int, bytes: [UInt8], summary: [UInt8]?) throws {
        guard !isReadOnly, hasSealedSnapshots else { throw StoreError.readOnly }
        try translatingErrors {
            try db.immediateTransaction {
                let head = try db.int64("SELECT max(seq) FROM events") ?? 0
                guard seq <= head else { throw StoreError.snapshotBeyondHead(seq: seq, head: head) }
                let (seal, summaryDigest) = try bytes.withUnsafeBytes { bytes in
                    try withChainHash(at: seq) { hash in
                        (
                            SnapshotSeal(
                                reducerVersion: reducerVersion, seq: seq, eventHash: hash, bytes: bytes),
                            summary.map { summary in
                                summary.withUnsafeBytes {
                                    SnapshotSeal.summaryDigest(
                                        reducerVersion: reducerVersion, seq: seq, eventHash: hash, summary: $0
                                    )
                                }
                            }
                        )
                    }
                }
                let save = try db.cachedStatement(
                    """
                    INSERT OR REPLACE INTO snapshots(
                        reducer_version, seq, created_at, bytes, event_hash, digest, summary, summary_digest)
                    VALUES (?, ?, CAST((julianday('now') - 2440587.5) * 86400000 AS INTEGER), ?, ?, ?, ?, ?)
                    """)
                try save.bind(Int64(reducerVersion), at: 1)
                try save.bind(seq, at: 2)
                try seal.eventHash.withUnsafeBytes { try save.bindBlob($0, at: 4) }
                try seal.digest.withUnsafeBytes { try save.bindBlob($0, at: 5) }
                if let summary, let summaryDigest {
                    try summary.withUnsafeBytes { try save.bindBlob($0, at: 6) }
                    try summaryDigest.withUnsafeBytes { try save.bindBlob($0, at: 7) }
                } else {
                    try save.bindNull(at: 6)
                    try save.bindNull(at: 7)
                }
                // Bound without a copy (a snapshot of a million tasks is 100 MB): the bytes outlive the statement.
                try bytes.withUnsafeBytes { bytes in
                    try save.bindBlobNoCopy(bytes, at: 3)
                    try save.run()
                }
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

    /// Calls `body` with the chain's hash at `seq` (32 zero bytes for 0). Caller is inside a transaction.
    func withChainHash<T>(at seq: Int64, _ body: (UnsafeRawBufferPointer) throws -> T) throws -> T {
        guard seq > 0 else { return try ChainHasher.zeroHash.withUnsafeBytes(body) }
        let statement = try db.cachedStatement("SELECT hash FROM events WHERE seq = ?")
        defer { statement.reset() }
        try statement.bind(seq, at: 1)
        guard try statement.step(), statement.rawBytes(at: 0).count == ChainHasher.digestLength else {
            throw StoreError.corrupt(path, "the hash of seq \(seq) is missing or not 32 bytes")
        }
        return try body(statement.rawBytes(at: 0))
    }

    /// The snapshot rows of `reducerVersion` at or before `seq`, newest first, each with the chain's hash at
    /// its seq; `visit` returns false to stop. With `summaries`, their summaries instead of their bytes (rows
    /// without one are passed over), each with the summary's own seal checked.
    ///
    /// With `hashingBeside`, a snapshot of at least ``SnapshotSeal/DigestBeside/threshold`` bytes whose seal is on
    /// the chain comes with its digest still being taken on another thread (`beside`): `visit` may read the bytes
    /// meanwhile, and must ask ``SnapshotSeal/DigestBeside/holds()`` before it trusts them. The bytes stay valid
    /// until the digest is taken, whatever `visit` does.
    private func eachSnapshot(
        reducerVersion: Int, atOrBefore seq: Int64?, summaries: Bool = false, hashingBeside: Bool = false,
        _ visit: (
            _ seq: Int64, _ bytes: UnsafeRawBufferPointer, _ problem: SnapshotSeal.Problem?,
            _ beside: SnapshotSeal.DigestBeside?
        ) throws -> Bool
    ) throws {
        // The rows are scanned from the end of the table, not searched by key (`+` keeps the key out of the
        // search): the key of a WITHOUT ROWID row is the whole row, and every comparison of a search against a
        // row that spills to overflow pages copies all of it (a 5 MB snapshot twice, 9 ms of 10 for `stats`).
        let statement = try db.cachedStatement(
            summaries
                ? """
                SELECT s.seq, s.summary, s.event_hash, s.summary_digest, e.hash
                FROM snapshots s LEFT JOIN events e ON e.seq = s.seq
                WHERE +s.reducer_version = ? AND +s.seq <= ? AND s.summary IS NOT NULL
                ORDER BY s.reducer_version DESC, s.seq DESC
                """
                : """
                SELECT s.seq, s.bytes, s.event_hash, s.digest, e.hash FROM snapshots s LEFT JOIN events e ON e.seq = s.seq
                WHERE +s.reducer_version = ? AND +s.seq <= ? ORDER BY s.reducer_version DESC, s.seq DESC
                """)
        defer { statement.reset() }
        try statement.bind(Int64(reducerVersion), at: 1)
        try statement.bind(seq ?? Int64.max, at: 2)
        while try statement.step() {
            let seq = statement.int64(at: 0)
            let bytes = statement.rawBytes(at: 1)
            let eventHash = statement.isNull(at: 2) ? nil : statement.rawBytes(at: 2)
            let digest = statement.isNull(at: 3) ? nil : statement.rawBytes(at: 3)
            let chainHash = statement.isNull(at: 4) ? nil : statement.rawBytes(at: 4)
            if hashingBeside, bytes.count >= SnapshotSeal.DigestBeside.threshold {
                let seal: (eventHash: UnsafeRawBufferPointer, digest: UnsafeRawBufferPointer)
                switch SnapshotSeal.checkChain(
                    seq: seq, eventHash: eventHash, digest: digest, chainHash: chainHash)
                {
                case .problem(let problem):
                    guard try visit(seq, bytes, problem, nil) else { return }
                    continue
                case .onChain(let eventHash, let digest): seal = (eventHash, digest)
                }
                let beside = SnapshotSeal.DigestBeside(
                    reducerVersion: reducerVersion, seq: seq, eventHash: seal.eventHash, digest: seal.digest,
                    bytes: bytes)
                defer { _ = beside.holds() }
                guard try visit(seq, bytes, nil, beside) else { return }
                continue
            }
            let problem = SnapshotSeal.check(
                reducerVersion: reducerVersion, seq: seq, bytes: bytes, eventHash: eventHash, digest: digest,
                chainHash: chainHash, summary: summaries)
            guard try visit(seq, bytes, problem, nil) else { return }
        }
    }

    public func withLatestSnapshot<T>(
        reducerVersion: Int, atOrBefore seq: Int64?,
        _ body: (_ seq: Int64, _ bytes: UnsafeRawBufferPointer) throws -> T
    ) throws -> T? {
        // A ledger of an older schema, opened read-only, has only unsealed snapshots: none is trusted.
        guard hasSealedSnapshots else { return nil }
        return try firstSealed(reducerVersion: reducerVersion, atOrBefore: seq, summaries: false, body)
    }

    public func withLatestSummary<T>(
        reducerVersion: Int, atOrBefore seq: Int64?,
        _ body: (_ seq: Int64, _ summary: UnsafeRawBufferPointer) throws -> T
    ) throws -> T? {
        // The summary column comes after the snapshot's bytes in the row: SQLite walks past their overflow pages (one
        // pointer each through the map) without reading or copying them.
        guard hasSealedSnapshots, hasSnapshotSummaries else { return nil }
        return try firstSealed(reducerVersion: reducerVersion, atOrBefore: seq, summaries: true, body)
    }

    public func latestSnapshotSeq(reducerVersion: Int, atOrBefore seq: Int64?) throws -> Int64? {
        // The seal is checked over the whole snapshot: read through a map, as a load does.
        guard hasSealedSnapshots else { return nil }
        return try firstSealed(reducerVersion: reducerVersion, atOrBefore: seq, summaries: false) { seq, _ in
            seq
        }
    }

    /// `body` of the newest snapshot (or summary) whose seal holds; one that fails is skipped (verify names it),
    /// never trusted. Nil when there is none.
    ///
    /// A snapshot of tens of MB is read through a memory map, without a pread copy per page. The map is only open
    /// for this read: it is not counted in the process's memory afterwards, and a file changed under the map by
    /// another program cannot fault a later read.
    private func firstSealed<T>(
        reducerVersion: Int, atOrBefore seq: Int64?, summaries: Bool,
        _ body: (_ seq: Int64, _ bytes: UnsafeRawBufferPointer) throws -> T
    ) throws -> T? {
        try translatingErrors {
            try db.execute("PRAGMA mmap_size = \(Self.snapshotMapSize)")
            defer { try? db.execute("PRAGMA mmap_size = 0") }
            var result: T?
            // A snapshot's digest is taken beside its reading (2.7 ms of a 5 MB one's 8): `body` reads it meanwhile,
            // and what it made of bytes whose seal fails is dropped, as if it had never seen them.
            try eachSnapshot(
                reducerVersion: reducerVersion, atOrBefore: seq, summaries: summaries,
                hashingBeside: !summaries
            ) {
                seq, bytes, problem, beside in
                guard problem == nil else { return true }
                guard let beside else {
                    result = try body(seq, bytes)
                    return false
                }
                let outcome = Result { try body(seq, bytes) }
                guard beside.holds() else { return true }
                result = try outcome.get()
                return false
            }
            return result
        }
    }

    public func snapshotProblems(reducerVersion: Int) throws -> [SnapshotProblem] {
        guard hasSnapshotsTable else { return [] }
        return try translatingErrors {
            guard hasSealedSnapshots else {
                let count =
                    try db.int64(
                        "SELECT count(*) FROM snapshots WHERE reducer_version = ?", Int64(reducerVersion))
                    ?? 0
                return count == 0
                    ? []
                    : [
                        SnapshotProblem(
                            seq: 0, reason: "\(count) unsealed snapshots of an older schema (not used)")
                    ]
            }
            var problems: [SnapshotProblem] = []
            try eachSnapshot(reducerVersion: reducerVersion, atOrBefore: nil) { seq, _, problem, _ in
                if let problem { problems.append(SnapshotProblem(seq: seq, reason: problem.description)) }
                return true
            }
            guard hasSnapshotSummaries else { return problems }
            try eachSnapshot(reducerVersion: reducerVersion, atOrBefore: nil, summaries: true) {
                seq, _, problem, _ in
                // A snapshot not on this chain is named once, above; a summary edited or unsealed on its own here.
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
}
