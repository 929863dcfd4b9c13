import LedgerCore

/// What the scheduler has asked of the engine and not yet seen end: the running transfers and how each was
/// started, stopped, held and limited. A plain value: a pass plans from a copy (``SchedulePlan``).
struct TransferBook: Sendable, Equatable {
    /// Running transfers and the task's `resets` when each started (a change means a redownload: start over).
    var running: [TaskID: Int] = [:]
    /// Running transfers asked to stop, and why.
    var stopping: [TaskID: TransferAction.StopReason] = [:]
    /// Running transfers a pause holds with their connection kept.
    var held: Set<TaskID> = []
    /// Transfers whose bytes are all in and that are being verified and placed: they no longer take a download
    /// slot, and are neither restarted nor cancelled.
    var finishing: Set<TaskID> = []
    /// The task's own speed limit each running transfer was last given (a change reaches it while it runs).
    var taskLimits: [TaskID: Int64?] = [:]
    /// The ledger's speed limit the engine was last given; -1 before the first pass.
    var speedLimit: Int64 = -1
    /// The ledger's pause hold the engine was last given; -1 before the first pass.
    var pauseHold: Int64 = -1

    /// Notes that `action` was carried out.
    mutating func note(_ action: TransferAction) {
        switch action {
        case .limitAll(let limit): speedLimit = limit
        case .holdLimit(let seconds): pauseHold = seconds
        case .limitTask(let id, let limit): taskLimits[id] = limit
        case .stop(let id, let reason): stopping[id] = reason
        case .hold(let id): held.insert(id)
        case .release(let id): held.remove(id)
        case .start(let task):
            running[task.id] = task.resets
            taskLimits[task.id] = task.options.maxSpeed
        }
    }

    /// Forgets the transfer of `id`: the engine said it ended.
    mutating func end(_ id: TaskID) {
        running[id] = nil
        stopping[id] = nil
        held.remove(id)
        finishing.remove(id)
        taskLimits[id] = nil
    }

    /// Whether every running transfer is a held pause (none is work to wait for).
    var onlyHeld: Bool { running.keys.allSatisfy(held.contains) }
}
