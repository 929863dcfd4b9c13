import CSQLite

extension SQLiteEventStore {
    /// A quick look at the end of the chain: the last event's hash against the one before it. Reads two rows, so
    /// a reader can warn on every open; `verifyChain()` checks every row.
    /// - Returns: why the head does not hold, or nil when it does (or the log is empty).
    public func checkHead() throws -> String? {
        try translatingErrors {
            let statement = try db.cachedStatement(Self.selectColumns + " ORDER BY seq DESC LIMIT 2")
            defer { statement.reset() }
            guard try statement.step() else { return nil }
            let hasher = ChainHasher()
            let seq = statement.int64(at: 0)
            let time = statement.int64(at: 1)
            let kind = Array(statement.rawBytes(at: 2))
            let version = Int(statement.int64(at: 3))
            let tasks = Array(statement.rawBytes(at: 4))
            let payload = Array(statement.rawBytes(at: 5))
            let hash = Array(statement.rawBytes(at: 6))
            if try statement.step() {
                guard statement.int64(at: 0) == seq - 1 else { return "event #\(seq - 1) is missing" }
                hasher.restart(from: statement.rawBytes(at: 6))
            } else {
                guard seq == 1 else { return "the events before #\(seq) are missing" }
                hasher.restart(from: nil)
            }
            kind.withUnsafeBytes { k in
                tasks.withUnsafeBytes { t in
                    payload.withUnsafeBytes { p in
                        hasher.chain(
                            seq: seq, time: time, kind: k, version: version, tasksText: t, payload: p)
                    }
                }
            }
            guard hasher.hash.elementsEqual(hash) else { return "the hash of event #\(seq) does not match" }
            return nil
        }
    }
}
