/// What a long-lived writer asks of its store besides reading and appending (``EventStoreUpkeep``), and the quick
/// chain checks, for PostgreSQL: the server keeps every commit in its own storage, which every reader reads.
extension PostgresEventStore: EventStoreUpkeep {
    /// `.full` waits for the server's WAL flush (`synchronous_commit = on`); `.facts` does not (`off`): a server
    /// crash may lose the last moments of facts, never leave a gap or a broken chain.
    public func setDurability(_ durability: CommitDurability) throws {
        try connection.executeScript("SET synchronous_commit = \(durability == .full ? "on" : "off")")
        self.durability = durability
    }

    /// Nothing to fold: every committed event is in the server's storage (true).
    @discardableResult
    public func checkpoint() -> Bool { true }

    /// The server checkpoints its own log: nil, nothing done here.
    public func checkpointPassive() -> (logFrames: Int, folded: Int)? { nil }

    /// Any reader reads the ledger alone through the server (true).
    @discardableResult
    public func leaveQuiet() -> Bool { true }

    /// A copy of the ledger in a new SQLite file at `destination`, or in a new ledger when it is a `postgresql://`
    /// URI: the same events, times and chain, and the vault's keys (``EventStoreCopy``).
    public func backup(to destination: String) throws -> Int64 {
        try EventStoreCopy.backup(from: self, to: destination)
    }

    public func checkHead() throws -> String? {
        let head = try head()
        guard head > 0 else { return nil }
        let rows = try events(after: head - 2, through: head, limit: 2)
        guard rows.last?.seq == head else { return "event #\(head) is missing" }
        if head > 1 && (rows.count < 2 || rows[0].seq != head - 1) { return "event #\(head - 1) is missing" }
        return try linkedEvent(at: head) == nil ? "the hash of event #\(head) does not match" : nil
    }

    public func tasksNamed(after: Int64, through: Int64) throws -> Set<Int64>? {
        guard try exists() else { return [] }
        let rows = try connection.execute(
            "SELECT tasks FROM events WHERE seq > $1 AND seq <= $2", PostgresParameters(after, through))
        var named: Set<Int64> = []
        for row in 0..<rows.rowCount {
            guard let tasks = ChainHasher.parseTasks(rows.bytes(row, 0)) else { return nil }
            named.formUnion(tasks)
        }
        return named
    }
}
