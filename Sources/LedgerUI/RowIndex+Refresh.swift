import LedgerCore

/// A sorted view's rows kept across events: the tasks the events name are taken out and put back where
/// ``ViewOrder`` has them now, by a binary search in their group, instead of sorting the whole view again.
///
/// The rule: a view is computed again only when its sort changed, or when the events name more than an eighth of
/// the tasks it shows (and more than 64): past that, the searches cost about what sorting costs.
extension RowIndex {
    /// Events that name more tasks than this, and more than ``refreshFraction``'th of the view's tasks, have the
    /// view computed again.
    public static let refreshFloor = 64
    /// See ``refreshFloor``.
    public static let refreshFraction = 8

    /// Whether ``refresh(_:in:)`` can follow `event` by the tasks it names: it moves no task in any view but those
    /// (their name, size, state, completion time, section or place in it), and changes the sections (which only
    /// the manual list shows) as ``refresh(_:in:)`` reads them back from the list. Every event but a sort change.
    public static func refreshes(_ event: Event) -> Bool {
        if case .sortChanged = event { return false }
        return true
    }

    /// Puts each task of `ids` where the view shows it in `list` now (or out of the view), given that no other task
    /// changed what the view orders or filters it by (see ``refreshes(_:)``). False when the rows are not a whole
    /// sorted or filtered view (the manual list without a filter reads its sections directly, the to-delete list
    /// and one group alone are not kept), when `ids` are too many (``refreshFloor``), or when the rows do not match
    /// `list`: the rows are then to be made again.
    /// - Complexity: sorted: O(ids × log tasks + groups), plus O(tasks in the view) for a task no longer where its
    ///   place says (renamed, resized, finished or purged); filtered manual list: O(tasks of the sections touched
    ///   + sections).
    public mutating func refresh(_ ids: some Sequence<TaskID>, in list: DownloadList) -> Bool {
        var named: [TaskID] = []
        var seen = Set<TaskID>()
        for id in ids where seen.insert(id).inserted { named.append(id) }
        let shown = count - groups.count
        if named.count > Self.refreshFloor && named.count * Self.refreshFraction > shown { return false }
        if let order { return refreshSorted(named, in: list, order) }
        if let manualFilter { return refreshSections(seen, in: list, manualFilter) }
        return false
    }

    private mutating func refreshSorted(_ named: [TaskID], in list: DownloadList, _ order: ViewOrder) -> Bool
    {
        var kept = self
        var out: [Int: [Int]] = [:]
        var lost: [TaskID] = []
        // Out first: the rows left then hold only tasks whose places did not change, so the searches that put
        // the named tasks back compare against places that are right. A task whose place changed is not found
        // by its new place (the search may also miss a task that did not move, past another one that did).
        for id in named {
            if let place = list.tasks.read(id, { order.place(of: $0) }), let g = kept.groupIndex(place),
                let i = kept.lowerBound(place, inGroup: g, list, order),
                kept.groups[g].tasks?.indices.contains(i) == true, kept.groups[g].tasks?[i] == id
            {
                out[g, default: []].append(i)
            } else if id < newFrom {
                lost.append(id)
            }
        }
        for (g, i) in kept.find(lost) { out[g, default: []].append(i) }
        for (g, indexes) in out { kept.groups[g].remove(at: indexes) }
        kept.groups.removeAll { $0.count == 0 }
        // In: each shown task's place among the rows left, then all of a group's at once.
        var into: [Int: [(at: Int, id: TaskID)]] = [:]
        let shown = named.compactMap { id -> (ViewOrder.Place, TaskID)? in
            guard !list.isTrashed(id),
                let place = list.tasks.read(id, { order.shows($0) ? order.place(of: $0) : nil }) ?? nil
            else { return nil }
            return (place, id)
        }
        .sorted { order.precedes($0.0, $1.0) }
        for (place, _) in shown where kept.groupIndex(place) == nil {
            let g = kept.groups.firstIndex { order.precedes(place, Self.groupPlace($0)) } ?? kept.groups.count
            kept.groups.insert(
                Group(title: place.title, rank: place.rank, section: nil, tasks: [], count: 0), at: g)
        }
        for (place, id) in shown {
            guard let g = kept.groupIndex(place), let i = kept.lowerBound(place, inGroup: g, list, order)
            else { return false }
            into[g, default: []].append((i, id))
        }
        for (g, items) in into { kept.groups[g].insert(items) }
        kept.newFrom = list.nextID
        kept.countRows()
        self = kept
        return true
    }

    /// Where the tasks `ids` are among the rows, by a walk over them: one walk per task for a few, else one walk.
    /// - Complexity: O(tasks in the view × min(ids, 8)).
    func find(_ ids: [TaskID]) -> [(group: Int, index: Int)] {
        guard !ids.isEmpty else { return [] }
        var found: [(group: Int, index: Int)] = []
        if ids.count <= 8 {
            for id in ids {
                for g in groups.indices {
                    if let i = groups[g].tasks?.firstIndex(of: id) {
                        found.append((g, i))
                        break
                    }
                }
            }
            return found
        }
        let wanted = Set(ids)
        for g in groups.indices {
            for (i, id) in (groups[g].tasks ?? []).enumerated() where wanted.contains(id) {
                found.append((g, i))
            }
        }
        return found
    }

    /// A place that compares with a task's as its group's head does: the least of the group.
    private static func groupPlace(_ g: Group) -> ViewOrder.Place {
        ViewOrder.Place(rank: g.rank, title: g.title)
    }

    /// The index of the group `place` belongs to, if the rows have it. - Complexity: O(groups).
    private func groupIndex(_ place: ViewOrder.Place) -> Int? {
        groups.firstIndex { $0.rank == place.rank && $0.title == place.title }
    }

    /// The first index in group `g` whose task is not shown before `place`; nil if a row's task is not in `list`.
    /// - Complexity: O(log tasks in the group).
    private func lowerBound(
        _ place: ViewOrder.Place, inGroup g: Int, _ list: DownloadList, _ order: ViewOrder
    )
        -> Int?
    {
        guard let tasks = groups[g].tasks else { return nil }
        var lo = 0
        var hi = tasks.count
        while lo < hi {
            let mid = (lo + hi) / 2
            guard let other = list.tasks.read(tasks[mid], { order.place(of: $0) }) else { return nil }
            if order.precedes(other, place) { lo = mid + 1 } else { hi = mid }
        }
        return lo
    }
}

extension RowIndex.Group {
    /// Takes out the tasks at `indexes` (distinct). - Complexity: O(tasks in the group).
    mutating func remove(at indexes: [Int]) {
        guard var all = tasks else { return }
        if indexes.count == 1 {
            all.remove(at: indexes[0])
        } else {
            let gone = Set(indexes)
            all = all.indices.compactMap { gone.contains($0) ? nil : all[$0] }
        }
        tasks = all
        count = all.count
    }

    /// Puts in each task before the one at its index (the indexes of the tasks before any was put in; items in
    /// view order). - Complexity: O(tasks in the group).
    mutating func insert(_ items: [(at: Int, id: TaskID)]) {
        guard var all = tasks else { return }
        if items.count == 1 {
            all.insert(items[0].id, at: items[0].at)
        } else {
            var merged: [TaskID] = []
            merged.reserveCapacity(all.count + items.count)
            var next = 0
            for item in items {
                merged.append(contentsOf: all[next..<item.at])
                merged.append(item.id)
                next = item.at
            }
            merged.append(contentsOf: all[next...])
            all = merged
        }
        tasks = all
        count = all.count
    }
}
