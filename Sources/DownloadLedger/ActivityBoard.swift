import LedgerTransfer

/// Where the downloader publishes its live activity (``TransferActivity``: bytes received and kept, speed,
/// connections, the current retry) for every other process to read cheaply. Activity is never an event: it is
/// not in the log, and a board holds only the newest snapshot.
///
/// The holder of the ledger's run lock publishes; anyone reads. ``FileActivityBoard`` keeps it in a small file
/// beside the ledger, for the processes of one machine; ``PostgresActivityBoard`` keeps one row per host name in a
/// PostgreSQL ledger's schema, for every host (each host name's downloader holds a run lock of its own).
///
/// ```swift
/// let board = FileActivityBoard(ledgerPath: ledger.path)
/// try board.publish(scheduler.currentActivity())
/// let live = board.read() ?? []   // in another process
/// ```
public protocol ActivityBoard: Sendable {
    /// Replaces the published snapshot with `activity`, atomically: a reader sees the old one or the new one.
    /// - Throws: ``LedgerError/fileSystem(_:)`` when the file cannot be written; `StoreError` when the database
    ///   cannot be reached.
    func publish(_ activity: [TransferActivity]) throws

    /// The newest snapshot of the downloader that runs now (of every live host's, merged, on a shared ledger); nil
    /// when no downloader publishes (none runs, the snapshot is a dead writer's, or it is not one a downloader
    /// wrote: a reader never trusts it further).
    func read() -> [TransferActivity]?

    /// Withdraws the snapshot (the downloader exits cleanly).
    func withdraw()
}
