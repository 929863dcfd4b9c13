import LedgerTransfer

extension Ledger {
    /// The board this ledger's downloader publishes its activity on (``FileActivityBoard``; for a ledger in
    /// PostgreSQL, which has no file beside it, ``UnsharedActivityBoard``).
    public var activityBoard: any ActivityBoard {
        PostgresLocation.isPostgres(path) ? UnsharedActivityBoard() : FileActivityBoard(ledgerPath: path)
    }

    /// The live activity of the downloader that runs now for this ledger, in this process or another, by task;
    /// empty when none runs or it publishes nothing readable.
    public func liveActivity() -> [TaskID: TransferActivity] {
        guard let activity = activityBoard.read() else { return [:] }
        return Dictionary(activity.map { ($0.id, $0) }, uniquingKeysWith: { a, _ in a })
    }
}
