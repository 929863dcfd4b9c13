/// How hard a commit pushes to disk before it is acknowledged.
public enum CommitDurability: Sendable, Equatable {
    /// Survives a power cut once acknowledged (user commands, and what a store opens with).
    case full
    /// Survives a crash or `kill -9` of the process, maybe not the last moments before a power cut: the
    /// downloader's facts, for which the partial files are the truth.
    case facts
}

/// What a long-lived writer (``EventStore`` users such as DownloadLedger's `Ledger`) asks of its store besides
/// reading and appending: how durable the next commits are, folding a write-ahead log into the main storage, leaving
/// the storage in the form other tools read alone, and a self-contained copy.
///
/// Every requirement has a meaning for any store; where a store has nothing to do, it says so honestly (the
/// in-memory store: no file, so nothing to fold, to leave quiet or to copy). Like ``EventStore``, not thread-safe:
/// one instance is used by one thread at a time.
public protocol EventStoreUpkeep: EventStore {
    /// Sets the durability of the following commits (between transactions only). A read-only store ignores it;
    /// a store whose commits are always fully durable may too.
    func setDurability(_ durability: CommitDurability) throws

    /// Moves every committed event from a write-ahead log into the main storage and empties the log, so that the
    /// main storage alone (the file users copy) holds them. Never waits for another connection.
    /// - Returns: whether the main storage alone holds every committed event now: false for a read-only store,
    ///   while another connection still needs the log, and for a store that has no such storage (in memory).
    @discardableResult
    func checkpoint() -> Bool

    /// Copies into the main storage what a write-ahead log holds that no reader still needs, waiting for no lock
    /// and blocking no reader or writer (a connection of its own, between its transactions).
    /// - Returns: the log's frames and how many of them are in the main storage now; nil when it did nothing: a
    ///   read-only store, a refusal (another checkpoint running), or a store without such a log.
    func checkpointPassive() -> (logFrames: Int, folded: Int)?

    /// The writer is done: the storage is left in the form any reader opens alone (for SQLite, rollback-journal
    /// mode without a `-wal` or `-shm`), when no other connection has it open. Never waits; the store stays usable.
    /// - Returns: whether the storage is in that form now (false for a read-only store, and for a store with
    ///   nothing on disk).
    @discardableResult
    func leaveQuiet() -> Bool

    /// Writes a consistent, self-contained copy of the store to `destination` (every event committed when the copy
    /// began, the vault too), never over something that is there.
    /// - Returns: the head of the copy, read back from it.
    /// - Throws: `StoreError.cannotBackUp(destination, …)`: something is at `destination`, the copy cannot be
    ///   written, or the store has nothing to copy to a file (in memory).
    func backup(to destination: String) throws -> Int64

    /// Why the store's server is out of reach and when it is tried again; nil while it is reachable, and for a
    /// store that has no server (the default).
    var outage: StoreOutage? { get }
}

extension EventStoreUpkeep {
    /// No server to lose: nil.
    public var outage: StoreOutage? { nil }
}
