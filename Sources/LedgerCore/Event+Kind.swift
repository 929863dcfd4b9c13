extension Event {
    /// The payload schema version written with every event.
    public static let payloadVersion = 1

    /// The event's name in the log's `kind` column.
    public var kind: String {
        switch self {
        case .ledgerCreated: return "ledgerCreated"
        case .tasksAdded: return "tasksAdded"
        case .groupsAdded: return "groupsAdded"
        case .tasksRemoved: return "tasksRemoved"
        case .tasksMoved: return "tasksMoved"
        case .tasksPlaced: return "tasksPlaced"
        case .sectionInserted: return "sectionInserted"
        case .sectionRenamed: return "sectionRenamed"
        case .sectionMoved: return "sectionMoved"
        case .sectionRemoved: return "sectionRemoved"
        case .sectionSorted: return "sectionSorted"
        case .tasksDeleted: return "tasksDeleted"
        case .filesDeleted: return "filesDeleted"
        case .tasksRestored: return "tasksRestored"
        case .tasksTrashed: return "tasksTrashed"
        case .trashPurged: return "trashPurged"
        case .tasksErased: return "tasksErased"
        case .tasksRedownloaded: return "tasksRedownloaded"
        case .taskRenamed: return "taskRenamed"
        case .tasksPaused: return "tasksPaused"
        case .tasksResumed: return "tasksResumed"
        case .tasksStopped: return "tasksStopped"
        case .statesRestored: return "statesRestored"
        case .maxDownloadsChanged: return "maxDownloadsChanged"
        case .speedLimitChanged: return "speedLimitChanged"
        case .connectionsChanged: return "connectionsChanged"
        case .maxSizeChanged: return "maxSizeChanged"
        case .connectionsPerServerChanged: return "connectionsPerServerChanged"
        case .minSplitSizeChanged: return "minSplitSizeChanged"
        case .pauseHoldChanged: return "pauseHoldChanged"
        case .directoryChanged: return "directoryChanged"
        case .taskOptionsChanged: return "taskOptionsChanged"
        case .sortChanged: return "sortChanged"
        case .emptySectionsPolicyChanged: return "emptySectionsPolicyChanged"
        case .trashPolicyChanged: return "trashPolicyChanged"
        case .transferStarted: return "transferStarted"
        case .transferResolved: return "transferResolved"
        case .transferPaused: return "transferPaused"
        case .transferHeld: return "transferHeld"
        case .transferContinued: return "transferContinued"
        case .transferCompleted: return "transferCompleted"
        case .transferFailed: return "transferFailed"
        case .transferRetrying: return "transferRetrying"
        case .transferConnections: return "transferConnections"
        case .hookChanged: return "hookChanged"
        case .hookFinished: return "hookFinished"
        }
    }

    /// Every kind name, in catalog order.
    public static let allKinds: [String] = [
        "ledgerCreated", "tasksAdded", "tasksRemoved", "tasksMoved", "tasksPlaced", "sectionInserted",
        "sectionRenamed",
        "sectionMoved", "sectionRemoved", "tasksDeleted", "filesDeleted", "tasksRestored", "tasksTrashed",
        "trashPurged",
        "tasksRedownloaded", "taskRenamed", "tasksPaused", "tasksResumed", "tasksStopped", "statesRestored",
        "maxDownloadsChanged", "speedLimitChanged", "sortChanged", "emptySectionsPolicyChanged",
        "sectionSorted", "tasksErased", "trashPolicyChanged", "groupsAdded", "connectionsChanged",
        "taskOptionsChanged", "maxSizeChanged", "connectionsPerServerChanged", "minSplitSizeChanged",
        "transferStarted", "transferResolved", "transferPaused", "transferCompleted", "transferFailed",
        "transferRetrying", "transferHeld", "transferContinued", "transferConnections", "hookChanged",
        "hookFinished", "directoryChanged", "pauseHoldChanged",
    ]
}
