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
    /// Transfers prepared to start the moment a running one receives its last byte (``TransferAction/standby(_:)``),
    /// in list order. Not running: they take no slot until started.
    var standby: [Standby] = []
    /// The task's own speed limit each running transfer was last given (a change reaches it while it runs).
    var taskLimits: [TaskID: Int64?] = [:]
    /// The ledger's speed limit the engine was last given; -1 before the first pass.
    var speedLimit: Int64 = -1
    /// The ledger's pause hold the engine was last given; -1 before the first pass.
    var pauseHold: Int64 = -1

    /// A prepared transfer: the task as it was prepared, and the list's defaults its request took.
    struct Standby: Sendable, Equatable {
        var task: DownloadTask
        var defaults: RequestDefaults
        var id: TaskID { task.id }
    }

    /// What a transfer's request takes from the list rather than its task (``TransferRequest``'s defaults): a
    /// prepared one whose task or defaults changed since is prepared again.
    struct RequestDefaults: Sendable, Equatable {
        var connections: Int
        var connectionsPerServer: Int
        var minSplitSize: Int64
        var maxSize: Int64
        var userAgent: String

        init(_ list: DownloadList) {
            connections = list.connections
            connectionsPerServer = list.connectionsPerServer
            minSplitSize = list.minSplitSize
            maxSize = list.maxSize
            userAgent = list[.userAgent].text
        }
    }

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
            standby.removeAll { $0.id == task.id }
            running[task.id] = task.resets
            taskLimits[task.id] = task.options.maxSpeed
        case .standby(let task, let defaults): standby.append(Standby(task: task, defaults: defaults))
        case .withdraw(let id): standby.removeAll { $0.id == id }
        }
    }

    /// Notes that the prepared transfer `entry` started on its own (a running one received its last byte).
    mutating func promote(_ entry: Standby) {
        standby.removeAll { $0.id == entry.id }
        running[entry.id] = entry.task.resets
        taskLimits[entry.id] = entry.task.options.maxSpeed
    }

    /// Forgets the transfer of `id`: the engine said it ended.
    mutating func end(_ id: TaskID) {
        running[id] = nil
        stopping[id] = nil
        held.remove(id)
        finishing.remove(id)
        taskLimits[id] = nil
        standby.removeAll { $0.id == id }
    }

    /// Whether every running transfer is a held pause (none is work to wait for).
    var onlyHeld: Bool { running.keys.allSatisfy(held.contains) }
}
