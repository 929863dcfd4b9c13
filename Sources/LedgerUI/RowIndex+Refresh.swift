import LedgerCore

/// A sorted view's rows kept across adds and deletes: the tasks an event names are taken out and put back where
/// ``ViewOrder`` has them, by a binary search in their group, instead of sorting the whole view again.
extension RowIndex {
    /// Whether ``refresh(_:in:)`` keeps a sorted view's rows across `event` by the tasks it names: it adds tasks
    /// to the list or takes them out of it (to the to-delete list, or for good) and changes no other task.
    public static func addsOrRemoves(_ event: Event) -> Bool {
        switch event {
        case .tasksAdded, .groupsAdded, .tasksRemoved, .tasksDeleted, .tasksTrashed, .trashPurged,
            .tasksErased:
            return true
        default:
            return false
        }
    }

    /// Puts each task of `ids` where the view shows it in `list` (or out of the view), given that no other task
    /// changed what the view orders it by. False when the rows are not a whole sorted view (the manual list, the
    /// to-delete list, one group only) or do not match `list`: the rows are then to be made again.
    /// - Complexity: O(ids × log tasks + groups); O(tasks in the view) once more when a task the rows had is no
    ///   longer where its place says (purged, or its key changed).
    public mutating func refresh(_ ids: some Sequence<TaskID>, in list: DownloadList) -> Bool {
        guard let order else { return false }
        var kept = self
        var named = Set<TaskID>()
        var lost = Set<TaskID>()
        var shown: [(ViewOrder.Place, TaskID)] = []
        // Out first: the rows left then hold only tasks whose places did not change, so the searches that put
        // the named tasks back compare against places that are right.
        for id in ids where named.insert(id).inserted {
            let task = list.tasks[id]
            let place = task.map(order.place(of:))
            if let place, let g = kept.groupIndex(place),
                let i = kept.lowerBound(place, inGroup: g, list, order),
                kept.groups[g].tasks?.indices.contains(i) == true, kept.groups[g].tasks?[i] == id
            {
                kept.groups[g].tasks?.remove(at: i)
                kept.groups[g].count -= 1
            } else if id < newFrom {
                lost.insert(id)
            }
            if let task, let place, !list.isTrashed(id), order.shows(task) { shown.append((place, id)) }
        }
        if !lost.isEmpty {
            for g in kept.groups.indices {
                kept.groups[g].tasks?.removeAll { lost.contains($0) }
                kept.groups[g].count = kept.groups[g].tasks?.count ?? 0
            }
        }
        kept.groups.removeAll { $0.count == 0 }
        for (place, id) in shown {
            let g: Int
            if let found = kept.groupIndex(place) {
                g = found
            } else {
                g = kept.groups.firstIndex { order.precedes(place, Self.groupPlace($0)) } ?? kept.groups.count
                kept.groups.insert(
                    Group(title: place.title, rank: place.rank, section: nil, tasks: [], count: 0), at: g)
            }
            guard let i = kept.lowerBound(place, inGroup: g, list, order) else { return false }
            kept.groups[g].tasks?.insert(id, at: i)
            kept.groups[g].count += 1
        }
        kept.newFrom = list.nextID
        kept.countRows()
        self = kept
        return true
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
            guard let other = list.tasks[tasks[mid]] else { return nil }
            if order.precedes(order.place(of: other), place) { lo = mid + 1 } else { hi = mid }
        }
        return lo
    }
}
