import LedgerTransfer

/// Where the downloader publishes its live activity (``TransferActivity``: bytes received and kept, speed,
/// connections, the current retry) for every other process to read cheaply. Activity is never an event: it is
/// not in the log, and a board holds only the newest snapshot.
///
/// The one holder of the ledger's run lock publishes; anyone reads. ``FileActivityBoard`` keeps it in a small file
/// beside the ledger, for the processes of one machine; a store shared across hosts carries it its own way behind
/// the same two calls.
///
/// ```swift
/// let board = FileActivityBoard(ledgerPath: ledger.path)
/// try board.publish(scheduler.currentActivity())
/// let live = board.read() ?? []   // in another process
/// ```
public protocol ActivityBoard: Sendable {
    /// Replaces the published snapshot with `activity`, atomically: a reader sees the old one or the new one.
    /// - Throws: ``LedgerError/fileSystem(_:)`` when it cannot be written.
    func publish(_ activity: [TransferActivity]) throws

    /// The newest snapshot of the downloader that runs now; nil when no downloader publishes (none runs, the
    /// snapshot is a dead writer's, or it is not one a downloader wrote: a reader never trusts it further).
    func read() -> [TransferActivity]?

    /// Withdraws the snapshot (the downloader exits cleanly).
    func withdraw()
}
