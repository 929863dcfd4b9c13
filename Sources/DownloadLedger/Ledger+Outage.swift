import LedgerStore

/// A ledger whose database went away (PostgreSQL restarted or cannot be reached): what a downloader asks while it
/// keeps its facts in memory (``FactBacklog``) and tries again.
extension Ledger {
    /// Why the ledger's database is out of reach and when the store tries it again; nil while it is reachable and
    /// for a SQLite ledger.
    public var storeOutage: StoreOutage? { core.withLock { $0.store.outage } }

    /// How many of `facts`, from the first on, the log already holds right after one another, somewhere after seq
    /// `head`: an append whose connection was lost before its answer may have committed all of them (never some:
    /// one append is one transaction). 0 when the log does not hold the first of them there.
    /// - Throws: `StoreError` when the log cannot be read.
    public func loggedPrefix(of facts: [Event], after head: Int64) throws -> Int {
        guard let first = facts.first else { return 0 }
        try refresh()
        let entries = try log(after: head)
        guard let start = entries.firstIndex(where: { $0.entry.event == first }) else { return 0 }
        var count = 0
        for (entry, fact) in zip(entries[start...], facts) {
            guard entry.entry.event == fact else { break }
            count += 1
        }
        return count
    }
}
