/// Every kind of event, by the name the log's `kind` column holds. The names are the log's and never change: a
/// ledger written by any earlier version must open and replay as it did. A new kind is a new case.
public enum EventKind: String, Sendable, CaseIterable {
    case ledgerCreated, tasksAdded, groupsAdded, tasksRemoved, tasksMoved, tasksPlaced
    case sectionInserted, sectionRenamed, sectionMoved, sectionRemoved, sectionSorted
    case tasksDeleted, filesDeleted, tasksRestored, tasksTrashed, trashPurged, tasksErased, tasksRedownloaded
    case taskRenamed, tasksPaused, tasksResumed, tasksStopped, statesRestored
    // The ledger's value settings (``Setting``): one kind each.
    case maxDownloadsChanged, speedLimitChanged, connectionsChanged, maxSizeChanged
    case connectionsPerServerChanged, minSplitSizeChanged, userAgentChanged, pauseHoldChanged
    case directoryChanged, taskOptionsChanged, sortChanged, emptySectionsPolicyChanged, trashPolicyChanged
    case hookChanged
    case transferStarted, transferResolved, transferPaused, transferHeld, transferContinued, transferCompleted
    case transferFailed, transferRetrying, transferConnections, hookFinished
    case transferClaimed, claimLeaseChanged, hostSettingChanged

    /// The kind named by the bytes of a `kind` column, or nil for a name this version does not know.
    /// - Complexity: compares with the few names of the same length.
    public init?(bytes: UnsafeBufferPointer<UInt8>) {
        guard bytes.count < Self.byLength.count else { return nil }
        for (kind, name) in Self.byLength[bytes.count] where bytes.elementsEqual(name) {
            self = kind
            return
        }
        return nil
    }

    /// The kinds and their names' bytes, by the names' length.
    private static let byLength: [[(EventKind, [UInt8])]] = {
        var table = [[(EventKind, [UInt8])]](repeating: [], count: 40)
        for kind in allCases { table[kind.rawValue.utf8.count].append((kind, Array(kind.rawValue.utf8))) }
        return table
    }()

    /// The value setting this kind changes, if it is one.
    public var setting: Setting? { Setting.byKind[self] }
}

extension Event {
    /// The payload schema version written with every event.
    public static let payloadVersion = 1

    /// The event's name in the log's `kind` column.
    public var kind: String { eventKind.rawValue }

    /// The event's kind.
    public var eventKind: EventKind {
        switch self {
        case .ledgerCreated: .ledgerCreated
        case .tasksAdded: .tasksAdded
        case .groupsAdded: .groupsAdded
        case .tasksRemoved: .tasksRemoved
        case .tasksMoved: .tasksMoved
        case .tasksPlaced: .tasksPlaced
        case .sectionInserted: .sectionInserted
        case .sectionRenamed: .sectionRenamed
        case .sectionMoved: .sectionMoved
        case .sectionRemoved: .sectionRemoved
        case .sectionSorted: .sectionSorted
        case .tasksDeleted: .tasksDeleted
        case .filesDeleted: .filesDeleted
        case .tasksRestored: .tasksRestored
        case .tasksTrashed: .tasksTrashed
        case .trashPurged: .trashPurged
        case .tasksErased: .tasksErased
        case .tasksRedownloaded: .tasksRedownloaded
        case .taskRenamed: .taskRenamed
        case .tasksPaused: .tasksPaused
        case .tasksResumed: .tasksResumed
        case .tasksStopped: .tasksStopped
        case .statesRestored: .statesRestored
        case .settingChanged(let setting, _): setting.spec.kind
        case .directoryChanged: .directoryChanged
        case .taskOptionsChanged: .taskOptionsChanged
        case .sortChanged: .sortChanged
        case .emptySectionsPolicyChanged: .emptySectionsPolicyChanged
        case .trashPolicyChanged: .trashPolicyChanged
        case .hookChanged: .hookChanged
        case .transferStarted: .transferStarted
        case .transferResolved: .transferResolved
        case .transferPaused: .transferPaused
        case .transferHeld: .transferHeld
        case .transferContinued: .transferContinued
        case .transferCompleted: .transferCompleted
        case .transferFailed: .transferFailed
        case .transferRetrying: .transferRetrying
        case .transferConnections: .transferConnections
        case .hookFinished: .hookFinished
        case .transferClaimed: .transferClaimed
        case .hostSettingChanged: .hostSettingChanged
        }
    }

    /// Every kind name, in catalog order.
    public static var allKinds: [String] { EventKind.allCases.map(\.rawValue) }
}
