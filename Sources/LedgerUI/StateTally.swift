import LedgerCore

/// How many tasks of the list (not the to-delete list) are in each state, for the status line, kept up to date
/// event by event: an event changes the tally of the tasks it names only, so a list of 100,000 tasks is counted
/// once, when it is first shown, and never walked again for a pause or a finished transfer.
///
/// What each task was counted as is kept beside the counts (one byte a task, by id), so a change is taken back
/// without the list as it was before it.
public struct StateTally: Sendable, Equatable {
    /// By state, in `TaskState.allCases` order.
    private var byState = [Int](repeating: 0, count: TaskState.allCases.count)
    /// What each task id is counted as: 0 not counted, else 1 + the state's index. Dense from id 1.
    private var dense: [UInt8] = []
    /// Ids far outside the dense range (only a foreign or damaged log has them).
    private var far: [TaskID: UInt8] = [:]

    /// Ids up to this far past the dense range still extend it.
    private static let denseReach: TaskID = 4096

    /// An empty tally.
    public init() {}

    /// The tally of `list`, counted task by task.
    /// - Complexity: O(tasks in the list).
    public init(_ list: DownloadList) {
        dense.reserveCapacity(Int(max(0, min(list.nextID, TaskID(list.tasks.count) + Self.denseReach))))
        for s in list.sections {
            for id in s.tasks { set(id, Self.code(list.tasks.state(of: id))) }
        }
    }

    /// How many tasks are in `state`.
    public subscript(state: TaskState) -> Int { byState[Self.index(state)] }

    /// Whether no task is counted.
    public var isEmpty: Bool { byState.allSatisfy { $0 == 0 } }

    /// What a recount saw change, of what views filter and sort by.
    public struct Change: OptionSet, Sendable {
        public let rawValue: Int
        public init(rawValue: Int) { self.rawValue = rawValue }
        /// A task came into the list or left it (added, deleted, restored, purged).
        public static let membership = Change(rawValue: 1)
        /// A task became finished or unfinished.
        public static let finishing = Change(rawValue: 2)
    }

    /// Counts the tasks `ids` again as `list` has them now (a task gone or in the to-delete list counts as
    /// nothing).
    /// - Returns: what changed of what a filtered or sorted view looks at.
    /// - Complexity: O(ids).
    @discardableResult
    public mutating func recount(_ ids: some Sequence<TaskID>, in list: DownloadList) -> Change {
        var change: Change = []
        let finished = Self.code(.finished)
        for id in ids {
            let state = list.isTrashed(id) ? nil : list.tasks.state(of: id)
            let code = Self.code(state)
            let old = set(id, code)
            if (old == 0) != (code == 0) { change.insert(.membership) }
            if (old == finished) != (code == finished) { change.insert(.finishing) }
        }
        return change
    }

    private static func index(_ s: TaskState) -> Int {
        switch s {
        case .waiting: return 0
        case .downloading: return 1
        case .paused: return 2
        case .stopped: return 3
        case .finished: return 4
        case .failed: return 5
        }
    }

    private static func code(_ s: TaskState?) -> UInt8 { s.map { UInt8(index($0) + 1) } ?? 0 }

    /// Counts `id` as `code`; returns what it was counted as.
    @discardableResult
    private mutating func set(_ id: TaskID, _ code: UInt8) -> UInt8 {
        let old: UInt8
        if id >= 1 && id <= TaskID(dense.count) {
            old = dense[Int(id - 1)]
            dense[Int(id - 1)] = code
        } else if id >= 1 && id <= TaskID(dense.count) + Self.denseReach && far[id] == nil {
            guard code != 0 else { return 0 }
            old = 0
            dense.append(contentsOf: repeatElement(0, count: Int(id) - dense.count))
            dense[Int(id - 1)] = code
        } else {
            old = far[id] ?? 0
            far[id] = code == 0 ? nil : code
        }
        if old != 0 { byState[Int(old) - 1] -= 1 }
        if code != 0 { byState[Int(code) - 1] += 1 }
        return old
    }
}
