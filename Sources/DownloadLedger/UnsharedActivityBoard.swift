import LedgerTransfer

/// The activity board of a ledger in PostgreSQL, for now: the downloader's live progress is not shared (there is
/// no file beside the ledger to hold it, and a board in the database is not built yet), so `publish` keeps nothing
/// and `read` finds nothing. Readers show the bytes the log last recorded, as they do when no downloader runs.
public struct UnsharedActivityBoard: ActivityBoard {
    public init() {}

    public func publish(_ activity: [TransferActivity]) throws {}

    public func read() -> [TransferActivity]? { nil }

    public func withdraw() {}
}
