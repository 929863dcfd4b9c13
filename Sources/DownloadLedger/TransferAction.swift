import LedgerCore

/// One thing a scheduling pass asks of the transfer engine (``SchedulePlan``). The scheduler carries the actions
/// out in the order given and notes each in its ``TransferBook``.
enum TransferAction: Sendable, Equatable {
    /// Why the scheduler stopped a transfer: decides what it records when the engine confirms.
    enum StopReason: Sendable, Equatable {
        /// Paused, stopped or deleted by a user: record the bytes.
        case user
        /// Beyond the maximum count, or moved down the list: back to waiting.
        case queue
        /// Redownloaded or its file deleted: its bytes are void, record nothing.
        case reset
        /// The downloader is shutting down: back to waiting, resumable.
        case shutdown
    }

    /// The ledger's speed limit changed (bytes per second, 0: none): every transfer shares the new one.
    case limitAll(Int64)
    /// The ledger's pause hold changed (seconds, 0: the engine's default): how long a paused transfer keeps its
    /// connections.
    case holdLimit(Int64)
    /// A running task's own speed limit changed (nil: none).
    case limitTask(TaskID, Int64?)
    /// Stop the transfer and close its connections.
    case stop(TaskID, StopReason)
    /// A pause: the transfer stops taking bytes but keeps its connection (``TransferEngine/hold(id:)``).
    case hold(TaskID)
    /// A held transfer goes on, on its kept connection.
    case release(TaskID)
    /// Start the task's transfer (with what a ``standby(_:)`` prepared for it, if it was one).
    case start(DownloadTask)
    /// Prepare the task's transfer (its partial file opened) to start the moment a running transfer receives its
    /// last byte, without waiting for a pass: the next in list order after the running ones.
    case standby(DownloadTask, TransferBook.RequestDefaults)
    /// A prepared transfer the list no longer wants next: close what was prepared.
    case withdraw(TaskID)
}
