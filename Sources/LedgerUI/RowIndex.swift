import LedgerCore

/// One row of the list area: a section header or a task.
public enum Row: Sendable, Equatable {
    /// `section` is the manual section index (nil in a sorted view or the to-delete list); `group` the
    /// header's place among the view's groups.
    case header(title: String, section: Int?, count: Int, group: Int)
    case task(TaskID, group: Int)
}

/// The rows of a view by number, without walking the list: the screen asks for the few rows it shows.
///
/// The manual list with no filter (the common case, and the one that grows to 100,000 tasks) is indexed by its
/// sections only: a row number is found by a binary search over where each section starts, then read from the
/// section's task array. Sorted and filtered views are computed once, then kept across events: the tasks the
/// events name are taken out and put back where they go now (``refresh(_:in:)``); a sort changed, or events that
/// name more than an eighth of the view's tasks, compute the view again.
public struct RowIndex: Sendable {
    struct Group: Sendable {
        var title: String
        /// The group's place among a sorted view's groups (``ViewOrder/Place/rank``).
        var rank = 0
        var section: Int?
        /// Nil: the tasks are `list.sections[section]`'s.
        var tasks: [TaskID]?
        var count: Int
    }

    var groups: [Group] = []
    /// The row of each group's header, ascending.
    var starts: [Int] = []
    /// How many rows there are.
    public internal(set) var count = 0
    /// The order of a whole sorted view (nil for the manual list, the to-delete list and one group only): the
    /// tasks an event names are then put in place by ``refresh(_:in:)``.
    var order: ViewOrder?
    /// The filter of a whole filtered manual list (nil otherwise): the sections an event touches are then
    /// filtered again by ``refresh(_:in:)``, the others kept.
    var manualFilter: ViewOrder?
    /// The tasks with ids from here on were not in the list when the rows were made (nor since refreshed).
    var newFrom: TaskID = 0
    /// Whether the rows are one group of the view only (`only` was given and the view has that group).
    public private(set) var isOneGroup = false

    /// The rows of `list` as the view shows them: its sort mode, then `filter`; with `only`, that group of the
    /// view alone (SDE's `.subsection`), or the whole view when it has no such group.
    /// - Complexity: O(sections) for the manual list without a filter; O(n) with one (no task is copied);
    ///   O(n log n) for a sorted view.
    public init(list: DownloadList, filter: TaskFilter, now: Int64, utcOffsetSeconds: Int, only: Int? = nil) {
        if filter == .all && list.sortMode == .manual {
            groups = list.sections.enumerated().map { i, s in
                Group(title: s.title, section: i, tasks: nil, count: s.tasks.count)
            }
        } else if list.sortMode == .manual && filter != .trash {
            // As `view(filter:)` has it (only the sections with tasks shown), read in place.
            let shows = ViewOrder(
                sort: .manual, descending: false, filter: filter, now: now, utcOffsetSeconds: utcOffsetSeconds
            )
            groups = list.sections.indices.compactMap { Self.filtered(section: $0, of: list, by: shows) }
            if only == nil { manualFilter = shows }
        } else {
            let order = ViewOrder(
                sort: list.sortMode, descending: list.sortDescending, filter: filter, now: now,
                utcOffsetSeconds: utcOffsetSeconds)
            // By id: the view's groups without a copy of any task.
            groups = list.viewGroups(filter: filter, now: now, utcOffsetSeconds: utcOffsetSeconds).map { v in
                let rank = v.ids.first.flatMap { id in list.tasks.read(id, { order.place(of: $0).rank }) }
                return Group(
                    title: v.title, rank: rank ?? 0, section: v.index, tasks: v.ids, count: v.ids.count)
            }
            if list.sortMode != .manual && filter != .trash && only == nil {
                self.order = order
                newFrom = list.nextID
            }
        }
        if let only, groups.indices.contains(only) {
            groups = [groups[only]]
            isOneGroup = true
        }
        countRows()
    }

    /// Works out where each group starts and how many rows there are. - Complexity: O(groups).
    mutating func countRows() {
        starts.removeAll(keepingCapacity: true)
        var row = 0
        for g in groups {
            starts.append(row)
            row += 1 + g.count
        }
        count = row
    }

    /// How many groups (section headers) there are.
    public var groupCount: Int { groups.count }

    /// The row at `i` (0 ≤ i < count). - Complexity: O(log sections).
    public func row(_ i: Int, in list: DownloadList) -> Row? {
        guard i >= 0, i < count else { return nil }
        let g = group(containing: i)
        let group = groups[g]
        let offset = i - starts[g]
        if offset == 0 {
            return .header(title: group.title, section: group.section, count: group.count, group: g)
        }
        if let tasks = group.tasks { return .task(tasks[offset - 1], group: g) }
        guard let s = group.section, list.sections.indices.contains(s),
            list.sections[s].tasks.indices.contains(offset - 1)
        else { return nil }
        return .task(list.sections[s].tasks[offset - 1], group: g)
    }

    /// The group whose rows hold row `i`.
    public func group(containing i: Int) -> Int {
        var lo = 0
        var hi = starts.count - 1
        while lo < hi {
            let mid = (lo + hi + 1) / 2
            if starts[mid] <= i { lo = mid } else { hi = mid - 1 }
        }
        return lo
    }

    /// The manual section index of group `g`, when the view is the manual list.
    public func section(ofGroup g: Int) -> Int? { groups.indices.contains(g) ? groups[g].section : nil }

    /// The title of group `g`.
    public func title(ofGroup g: Int) -> String { groups.indices.contains(g) ? groups[g].title : "" }

    /// The row showing task `id`, if the view shows it.
    /// - Complexity: O(tasks in the view): used when the list changed, to keep the cursor on its task.
    public func row(of id: TaskID, in list: DownloadList) -> Int? {
        for (g, group) in groups.enumerated() {
            let found: Int?
            if let own = group.tasks {
                found = own.firstIndex(of: id)
            } else if let s = group.section, list.sections.indices.contains(s) {
                found = list.sections[s].tasks.firstIndex(of: id)
            } else {
                continue
            }
            if let i = found { return starts[g] + 1 + i }
        }
        return nil
    }

    /// The tasks of group `g`, in view order.
    public func tasks(ofGroup g: Int, in list: DownloadList) -> [TaskID] {
        guard groups.indices.contains(g) else { return [] }
        if let own = groups[g].tasks { return own }
        guard let s = groups[g].section, list.sections.indices.contains(s) else { return [] }
        return Array(list.sections[s].tasks)
    }
}

extension RowIndex {
    /// Whether a sorted or filtered view shows the same tasks in the same order after `event`, given that no task
    /// came into the list or left it and none became finished or unfinished where the view looks at that (a
    /// finished filter, the sort by completion time): ``StateTally/recount(_:in:)`` says so. True for the events
    /// that change a task's state, bytes or attempts only (the downloader's progress facts, pause, resume, stop)
    /// and settings; for the sorts by a key (time added, size, completion time), which order by the key then by
    /// id, also for moves and section changes, and for the facts that change no key of theirs. Anything else may
    /// reorder the view: it is indexed again.
    public static func keepsOrder(_ event: Event, sort: SortMode) -> Bool {
        let byKey = sort == .added || sort == .size || sort == .finished
        switch event {
        case .transferStarted, .transferPaused, .transferHeld, .transferContinued, .transferConnections,
            .transferRetrying, .transferFailed, .transferClaimed, .tasksPaused, .tasksResumed, .tasksStopped,
            .settingChanged, .emptySectionsPolicyChanged, .trashPolicyChanged,
            .hookChanged, .hookFinished:
            return true
        case .sectionRenamed:
            // A sorted view's groups are named by its buckets; the manual view's by its sections.
            return sort != .manual
        case .sectionInserted, .sectionMoved, .sectionRemoved, .tasksMoved, .tasksPlaced, .sectionSorted:
            return byKey
        case .transferResolved, .transferCompleted:
            // A name (the server's, the file's) and a size become known; the completion time is `finishing`'s.
            return sort == .manual || sort == .added || sort == .finished
        case .taskRenamed:
            return sort == .manual || byKey
        default:
            return false
        }
    }
}
