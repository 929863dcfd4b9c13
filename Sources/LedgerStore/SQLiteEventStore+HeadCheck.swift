import CSQLite

extension SQLiteEventStore {
    /// A quick look at the end of the chain: the last event's hash against the one before it. Reads two rows, so
    /// a reader can warn on every open; `verifyChain()` checks every row.
    /// - Returns: why the head does not hold, or nil when it does (or the log is empty).
    public func checkHead() throws -> String? {
        try translatingErrors {
            let head = try db.cachedStatement(Self.selectColumns + " ORDER BY seq DESC LIMIT 1")
            defer { head.reset() }
            guard try head.step() else { return nil }
            let seq = head.int64(at: 0)
            let hasher = ChainHasher()
            let previous = try db.cachedStatement(
                "SELECT seq, hash FROM events WHERE seq < ? ORDER BY seq DESC LIMIT 1")
            defer { previous.reset() }
            try previous.bind(seq, at: 1)
            if try previous.step() {
                guard previous.int64(at: 0) == seq - 1 else { return "event #\(seq - 1) is missing" }
                hasher.restart(from: previous.rawBytes(at: 1))
            } else {
                guard seq == 1 else { return "the events before #\(seq) are missing" }
                hasher.restart(from: nil)
            }
            // Hashed where the row lies: the head may be an add of a million URLs (no copy of its payload).
            hasher.chainInPlace(
                seq: seq, time: head.int64(at: 1), kind: head.rawBytes(at: 2),
                version: Int(head.int64(at: 3)),
                tasksText: head.rawBytes(at: 4), payload: head.rawBytes(at: 5))
            guard hasher.hash.elementsEqual(head.rawBytes(at: 6)) else {
                return "the hash of event #\(seq) does not match"
            }
            return nil
        }
    }
}
