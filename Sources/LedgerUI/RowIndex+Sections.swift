import LedgerCore

/// A filtered manual list's rows kept across events: the sections that hold (or held) a task the events name are
/// filtered again, a pass over their ids that copies no task; every other section's rows are kept as they were,
/// found again by the section their first task is in now (a section inserted, moved or removed before it shifts
/// its index) and titled by it (a section renamed).
extension RowIndex {
    /// The group of section `s` of `list`: its tasks that `order` shows, in manual order; nil when none.
    /// - Complexity: O(tasks in the section).
    static func filtered(section s: Int, of list: DownloadList, by order: ViewOrder) -> Group? {
        let section = list.sections[s]
        let shown: [TaskID] = section.tasks.filter { shows($0, in: list, order) }
        return shown.isEmpty ? nil : Group(title: section.title, section: s, tasks: shown, count: shown.count)
    }

    /// Whether `order`'s filter lets in task `id` of `list`, as ``ViewOrder/shows(_:)`` says; by the task's state
    /// alone where the filter looks at nothing else (a state is read without a call through a closure: a
    /// section of 100,000 tasks is filtered in a fraction of a millisecond).
    static func shows(_ id: TaskID, in list: DownloadList, _ order: ViewOrder) -> Bool {
        let state = list.tasks.state(of: id)
        switch order.filter {
        case .all, .trash: return state != nil
        case .unfinished: return state != nil && state != .finished
        case .finished: return state == .finished
        case .finishedWithin:
            return state == .finished && list.tasks.read(id, { order.shows($0) }) == true
        }
    }

    /// Refreshes a filtered manual list's rows after events that named the tasks `named` only.
    /// - Complexity: O(tasks of the sections touched + sections), plus O(tasks in the list) when a section's
    ///   index changed.
    mutating func refreshSections(_ named: Set<TaskID>, in list: DownloadList, _ order: ViewOrder) -> Bool {
        let ids = Array(named)
        // The sections to filter again: where the named tasks are now, and where the rest of the groups that had
        // one of them are.
        var touched = Set(Self.locate(ids, in: list).values.map(\.section))
        let holding = Set(find(ids).map(\.group))
        var kept: [Int: Group] = [:]
        var elsewhere: [(group: Int, first: TaskID)] = []
        func keep(_ g: Int, at s: Int) -> Bool {
            if holding.contains(g) {
                touched.insert(s)
                return true
            }
            // A task is in one section only: two groups cannot have their first tasks in the same one.
            guard kept[s] == nil else { return false }
            var group = groups[g]
            group.section = s
            group.title = list.sections[s].title
            kept[s] = group
            return true
        }
        for (g, group) in groups.enumerated() {
            guard let tasks = group.tasks else { return false }
            // A group all of whose tasks are named is gone from where it was: they are where they are now.
            guard let first = holding.contains(g) ? tasks.first(where: { !named.contains($0) }) : tasks.first
            else { continue }
            if let s = group.section, list.sections.indices.contains(s),
                list.sections[s].tasks.contains(first)
            {
                guard keep(g, at: s) else { return false }
            } else {
                elsewhere.append((g, first))
            }
        }
        let found = Self.locate(elsewhere.map(\.first), in: list)
        for (g, first) in elsewhere {
            guard let s = found[first]?.section, keep(g, at: s) else { return false }
        }
        for s in touched where list.sections.indices.contains(s) {
            kept[s] = Self.filtered(section: s, of: list, by: order)
        }
        groups = kept.keys.sorted().compactMap { kept[$0] }
        countRows()
        return true
    }

    /// Where the live tasks `ids` are in `list`: one walk per task for a few, else one walk with a set.
    /// - Complexity: O(tasks in the list × min(ids, 8)).
    static func locate(_ ids: [TaskID], in list: DownloadList) -> [TaskID: (section: Int, index: Int)] {
        guard ids.count <= 8 else { return list.locations(of: Set(ids)) }
        var found: [TaskID: (section: Int, index: Int)] = [:]
        for id in ids {
            if let place = list.location(of: id) { found[id] = place }
        }
        return found
    }
}
