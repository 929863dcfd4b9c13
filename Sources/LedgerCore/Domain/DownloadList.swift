/// The projection of the log: the sectioned list, the to-delete list, settings and undo history.
/// Changed only by `apply(_:)`, a pure fold over logged entries.
public struct DownloadList: Sendable, Equatable {
    /// Bump when `apply` changes meaning: snapshots of other versions are ignored.
    public static let reducerVersion = 17
    /// How many user actions undo can reach back.
    public static let undoDepth = 200
    /// The stack may hold this many steps more before it is cut back to `undoDepth`.
    public static let undoSlack = 56

    public internal(set) var tasks = TaskTable()
    /// The user's sections in manual order. Kept whatever the sort mode.
    public internal(set) var sections: [Section] = []
    /// The to-delete list, most recently deleted first.
    public internal(set) var trash: [TrashEntry] = []
    public internal(set) var nextID: TaskID = 1
    /// Default download directory, set when the ledger was created.
    public internal(set) var directory: String = ""
    /// The value settings (``Setting``), in ``Setting/allCases`` order.
    var settings: [SettingValue] = Setting.allCases.map(\.spec.defaultValue)
    /// Values of ``hostSettable`` settings for single downloaders' hosts, over the ledger's (`limit 3 --host nas`).
    public internal(set) var hostSettings: [String: [Setting: Int64]] = [:]
    /// 0 means unlimited.
    public internal(set) var maxDownloads: Int {
        get { Int(self[.maxDownloads].number) }
        set { self[.maxDownloads] = .number(Int64(newValue)) }
    }
    /// Bytes per second for all transfers together; 0 means none.
    public internal(set) var speedLimit: Int64 {
        get { self[.speedLimit].number }
        set { self[.speedLimit] = .number(newValue) }
    }
    /// Connections per download for tasks without their own count; 0: the downloader decides.
    public internal(set) var connections: Int {
        get { Int(self[.connections].number) }
        set { self[.connections] = .number(Int64(newValue)) }
    }
    /// Connections to one server (URL) of a download for tasks without their own (aria2 `max-connection-per-server`),
    /// in ``TaskOptions/connectionPerServerRange``; 0: the downloader's (16).
    public internal(set) var connectionsPerServer: Int {
        get { Int(self[.connectionsPerServer].number) }
        set { self[.connectionsPerServer] = .number(Int64(newValue)) }
    }
    /// The smallest piece a download is split into for tasks without their own (aria2 `min-split-size`), in
    /// ``TaskOptions/minSplitSizeRange``; 0: the downloader's (1 MiB).
    public internal(set) var minSplitSize: Int64 {
        get { self[.minSplitSize].number }
        set { self[.minSplitSize] = .number(newValue) }
    }
    /// How long a paused transfer keeps its connections, in seconds (`dledger set pause-hold`), in
    /// ``pauseHoldRange``; 0: the downloader's (60 s).
    public internal(set) var pauseHold: Int64 {
        get { self[.pauseHold].number }
        set { self[.pauseHold] = .number(newValue) }
    }
    /// What ``pauseHold`` may be when set: 1 s to an hour.
    public static let pauseHoldRange: ClosedRange<Int64> = 1...3600
    /// How long a claim on a task of a shared ledger lasts without renewal (``Event/transferClaimed(id:host:leaseMs:expired:)``),
    /// in seconds, in ``claimLeaseRange``; 0: ``defaultClaimLease``.
    public internal(set) var claimLease: Int64 {
        get { self[.claimLease].number }
        set { self[.claimLease] = .number(newValue) }
    }
    /// What ``claimLease`` may be when set: 1 s to an hour.
    public static let claimLeaseRange: ClosedRange<Int64> = 1...3600
    /// The lease when ``claimLease`` is 0, in seconds.
    public static let defaultClaimLease: Int64 = 30
    /// The lease a claim takes now, in milliseconds.
    public var claimLeaseMs: Int64 { (claimLease == 0 ? Self.defaultClaimLease : claimLease) * 1000 }
    /// The largest file a download may become (`dledger set max-size`); 0: the downloader's rule.
    public internal(set) var maxSize: Int64 {
        get { self[.maxSize].number }
        set { self[.maxSize] = .number(newValue) }
    }
    /// What ``maxSize`` may be when set: 1 KB to 1 EB.
    public static let maxSizeRange: ClosedRange<Int64> = 1000...1_000_000_000_000_000_000
    public internal(set) var sortMode: SortMode = .manual
    public internal(set) var sortDescending = false
    public internal(set) var autoRemoveEmptySections = false
    /// Whether deletes go to the to-delete list (SDE `isTrashOpened`); when off they erase at once.
    public internal(set) var trashEnabled = true
    /// The program run after each outcome (`set on-download-complete`, `set on-download-error`): an absolute path,
    /// run without a shell. No entry: none.
    public internal(set) var hooks: [Hook: String] = [:]
    /// The last seq folded in.
    public internal(set) var head: Int64 = 0
    /// Commit time of the last folded event, ms.
    public internal(set) var headTime: Int64 = 0
    public internal(set) var undoStack: [UndoStep] = []
    public internal(set) var redoStack: [UndoStep] = []
    /// How many events named each task id so far: the length of its audit trail.
    public internal(set) var eventCounts = EventCounts()
    /// URL identity (``Validation/identity(_:)``) → task, over the list and the to-delete list: a URL appears at
    /// most once.
    public internal(set) var urlIndex: [String: TaskID] {
        get { urls.all(in: tasks) }
        set { urls.replace(newValue) }
    }
    var urls = URLIndex()

    /// A value setting's value: 0 or the empty text for its default.
    public internal(set) subscript(setting: Setting) -> SettingValue {
        get { settings[setting.index] }
        set { settings[setting.index] = newValue }
    }

    /// The task, in the list or the to-delete list, that has this URL.
    public func task(withURL url: String) -> TaskID? { urls.task(for: url, in: tasks) }
    /// Ids in `trash`, for O(1) membership.
    var trashed: Set<TaskID> = []

    public init() {}

    /// Makes room for `count` tasks before a fold that will add about that many (a replay from zero that knows the
    /// live list's count): the table is allocated once, not grown by doubling while the events are folded.
    public mutating func reserveTasks(_ count: Int) { tasks.reserveCapacity(Swift.max(0, count)) }

    /// Whether the task is in the to-delete list.
    public func isTrashed(_ id: TaskID) -> Bool { trashed.contains(id) }

    /// Places of the given live tasks, found in one pass over the list.
    /// - Complexity: O(tasks in the list).
    public func locations(of ids: Set<TaskID>) -> [TaskID: (section: Int, index: Int)] {
        var found: [TaskID: (section: Int, index: Int)] = [:]
        guard !ids.isEmpty else { return found }
        if ids.count <= 16 {
            // A few ids are each searched for, not every task hashed: the undo step of a move folded onto 100,000.
            for (s, section) in sections.enumerated() {
                for id in ids where found[id] == nil {
                    if let i = section.tasks.firstIndex(of: id) { found[id] = (s, i) }
                }
                if found.count == ids.count { return found }
            }
            return found
        }
        for (s, section) in sections.enumerated() {
            for (i, id) in section.tasks.enumerated() where ids.contains(id) {
                found[id] = (s, i)
                if found.count == ids.count { return found }
            }
        }
        return found
    }

    /// The task's place in the manual list, or nil when it is in the to-delete list or unknown.
    /// - Complexity: O(tasks in the list).
    public func location(of id: TaskID) -> (section: Int, index: Int)? {
        for (s, section) in sections.enumerated() {
            if let i = section.tasks.firstIndex(of: id) { return (s, i) }
        }
        return nil
    }

    /// Tasks in list order: sections top to bottom, then index. Not the to-delete list.
    public var orderedTasks: [DownloadTask] {
        sections.flatMap { $0.tasks.compactMap { tasks[$0] } }
    }

    /// Ids of the tasks in the list (not the to-delete list).
    public var liveCount: Int { tasks.count - trash.count }
}
