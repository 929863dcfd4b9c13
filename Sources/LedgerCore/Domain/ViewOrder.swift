/// The order of a sorted view (every sort mode but `.manual`): which tasks it shows, which group each goes to,
/// and where in the group. ``DownloadList/view(sort:descending:filter:now:utcOffsetSeconds:)`` sorts by it, and a
/// screen that keeps a view's rows puts an added task in place (or finds a deleted one) by a binary search with it.
///
/// The order is total: tasks that tie on their key (time, size, name) go by id, so one task has one place.
public struct ViewOrder: Sendable {
    public let sort: SortMode
    public let descending: Bool
    public let filter: TaskFilter
    let now: Int64
    let offset: Int64
    let todayStart: Int64

    /// Where a task goes: its group (`rank`, then `title`), then its key, its name (lowercased), its id.
    public struct Place: Sendable, Comparable {
        public var rank: Int
        public var title: String
        var key: Int64
        var name: String
        var id: TaskID

        public static func < (a: Place, b: Place) -> Bool {
            (a.rank, a.title, a.key, a.name, a.id) < (b.rank, b.title, b.key, b.name, b.id)
        }

        /// A place that stands for a whole group when groups are compared (as its first task would).
        public init(rank: Int, title: String) {
            self.init(rank: rank, title: title, key: .min, name: "", id: .min)
        }

        init(rank: Int, title: String, key: Int64, name: String, id: TaskID) {
            self.rank = rank
            self.title = title
            self.key = key
            self.name = name
            self.id = id
        }

        /// Whether `other` is in the same group.
        public func sharesGroup(with other: Place) -> Bool { rank == other.rank && title == other.title }
    }

    /// The order of the view sorted by `sort` (not `.manual`), filtered by `filter`, on the day of `now`.
    public init(sort: SortMode, descending: Bool, filter: TaskFilter, now: Int64, utcOffsetSeconds: Int) {
        self.sort = sort
        self.descending = descending
        self.filter = filter
        self.now = now
        offset = Int64(utcOffsetSeconds) * 1000
        todayStart =
            DownloadList.floorDiv(now + offset, DownloadList.dayMillis) * DownloadList.dayMillis - offset
    }

    /// Whether the filter lets `t` into the view (the to-delete list aside: a view of it is not sorted).
    /// - Note: The task is borrowed, not copied: a screen that filters a section of 100,000 tasks in place
    ///   (`TaskTable.read`) retains none of their strings.
    public func shows(_ t: borrowing DownloadTask) -> Bool {
        switch filter {
        case .all, .trash: return true
        case .unfinished: return t.state != .finished
        case .finished: return t.state == .finished
        case .finishedWithin(let days):
            return t.state == .finished
                && (t.finished ?? .min) >= todayStart - Int64(Swift.min(days, 100_000))
                    * DownloadList.dayMillis
        }
    }

    /// Whether a task at `a` is shown before one at `b` (in this view's direction).
    public func precedes(_ a: Place, _ b: Place) -> Bool { descending ? b < a : a < b }

    /// Where `t` goes in the view.
    public func place(of t: borrowing DownloadTask) -> Place {
        switch sort {
        case .manual, .added:
            // Ascending means oldest first, so "Older" leads and "Today" ends.
            let age = DownloadList.ageBucket(t.added, now: now, offset: offset)
            return Place(rank: age, title: DownloadList.ageTitles[age], key: t.added, name: "", id: t.id)
        case .finished:
            // By completion time; unfinished tasks (by the time they were added) come after the newest finished
            // ones, so descending puts them first.
            guard t.state == .finished, let finished = t.finished else {
                return Place(rank: 5, title: "Unfinished", key: t.finished ?? t.added, name: "", id: t.id)
            }
            let age = DownloadList.ageBucket(finished, now: now, offset: offset)
            return Place(rank: age, title: DownloadList.ageTitles[age], key: finished, name: "", id: t.id)
        case .name:
            let name = DownloadList.shownName(t)
            let letter = DownloadList.indexLetter(name)
            // "#" (names that start with no letter) comes last, after every letter, not only after ASCII ones.
            return Place(
                rank: letter == "#" ? 1 : 0, title: letter, key: 0, name: name.lowercased(), id: t.id)
        case .size:
            let rank: Int
            switch t.size {
            case nil: rank = 5
            case .some(..<1_000_000): rank = 0
            case .some(..<10_000_000): rank = 1
            case .some(..<100_000_000): rank = 2
            case .some(..<1_000_000_000): rank = 3
            default: rank = 4
            }
            return Place(rank: rank, title: Self.sizeTitles[rank], key: t.size ?? -1, name: "", id: t.id)
        case .type:
            let name = DownloadList.shownName(t)
            let kind = FileKind(fileName: name)
            let rank = FileKind.allCases.firstIndex(of: kind)!
            return Place(rank: rank, title: kind.rawValue, key: 0, name: name.lowercased(), id: t.id)
        }
    }

    static let sizeTitles = [
        "0 ~ 1 MB", "1 MB ~ 10 MB", "10 MB ~ 100 MB", "100 MB ~ 1 GB", "Larger Than 1 GB", "Unknown Size",
    ]
}
