import LedgerCore
import LedgerTransfer

/// Who moves the bytes while the screen is open.
public enum Runner: Sendable, Equatable {
    /// Not known yet (the downloader is starting).
    case starting
    /// This process runs the downloader.
    case here(pid: Int32)
    /// Another process (`dledger run`) holds the ledger's run lock: this one watches and steers.
    case elsewhere(pid: Int32?)
    /// Nobody downloads (`--watch`, and no `dledger run`), or the downloader stopped on an error.
    case nobody
}

/// The list as it was after an earlier event, for the history scrubber.
public struct HistoryPoint: Sendable {
    public var list: DownloadList
    /// The event shown: its seq, commit time (ms) and what it did in words.
    public var seq: Int64
    public var time: Int64
    public var words: String
    /// The live head when the point was read.
    public var head: Int64

    public init(list: DownloadList, seq: Int64, time: Int64, words: String, head: Int64) {
        self.list = list
        self.seq = seq
        self.time = time
        self.words = words
        self.head = head
    }
}

/// What the screen model asks its host to do: the only way a key reaches the ledger.
public enum Effect: Sendable, Equatable {
    /// Execute this command (one event, as the CLI would append it).
    case execute(Command)
    /// Open the history scrubber at `seq` (nil: the event before the head), step by `events`, by `minutes`, or
    /// jump to what the user typed (a seq or a time).
    case historyAt(Int64?)
    case historyStep(events: Int)
    case historyMinutes(Int)
    case historyJump(String)
    /// Set the maximum download count or the speed limit to what the user typed, read as `dledger limit` and
    /// `dledger speed-limit` read their argument (a bad value is refused there, with the CLI's words).
    case setMaxDownloads(String)
    case setSpeedLimit(String)
    /// Show the audit trail of a task.
    case audit(TaskID)
    /// Show a task's details: the host looks whether its file is on disk (``UIModel/showDetails(_:file:)``).
    case details(TaskID)
    case quit
}

/// The whole state of the screen, and the pure functions over it: keys in (`handle`), lines out (`lines()`).
///
/// The host feeds it the list, the activity and the terminal size, performs the effects `handle` returns and
/// reports back (`report`, `showHistory`, `showAudit`). Nothing here reads a clock, a file or a terminal.
public struct UIModel: Sendable {
    public internal(set) var list = DownloadList()
    public internal(set) var activity: [TaskID: TransferActivity] = [:]
    public internal(set) var size: (columns: Int, rows: Int) = (80, 24)
    public var color: Bool
    public var runner: Runner = .starting
    /// The ledger is not on disk yet (the first add creates it): the header says so instead of a seq no event has.
    public var ledgerIsNew = false
    /// What a downloader shows while the ledger's database is out of reach (`OutageStatus.line`: "database
    /// unreachable, retrying in 2 s (14 facts waiting)"), given by the host every tick; nil while it answers. The
    /// header shows it in place of the seq and whose downloader runs.
    public var outage: String?
    /// Ms since the epoch and the local UTC offset, for the finished-within filter and times shown.
    /// A view grouped by day (the sorts by time added and by completion time, the finished-in-7-days filter) is
    /// indexed again when the local day changes, so that "Today" becomes "Yesterday" at midnight.
    public var now: Int64 = 0 {
        didSet { if Self.day(now, utcOffsetSeconds) != Self.day(oldValue, utcOffsetSeconds) { newDay() } }
    }
    public var utcOffsetSeconds = 0
    /// Formats a time (ms) for the history header; the host passes the CLI's local-time format.
    public var formatTime: @Sendable (Int64) -> String = { "\($0)" }

    public internal(set) var filter: TaskFilter = .all
    /// The one group of the view shown (SDE's `.subsection`, its index among the view's groups), or nil for all.
    public internal(set) var subsection: Int?
    public internal(set) var cursor = 0
    public internal(set) var top = 0
    public internal(set) var selection: Set<TaskID> = []
    public internal(set) var overlay: Overlay = .none
    public internal(set) var message: Message?
    public internal(set) var history: HistoryPoint?
    /// Whether the rows show each task's URL instead of its name (SDE's `isFileNamePreferred` off; `U`).
    public internal(set) var showsURLs = false
    /// The text searched for with `/` while `n` and `N` go to its next and previous match (nil: no search).
    public internal(set) var search: String?
    /// A key that waits for its second key (`A` then `p`: pause all).
    public internal(set) var pendingAll = false
    /// Rows of the list shown (the live list, or the history point's).
    public internal(set) var rows: RowIndex
    private var historyRows: RowIndex?
    /// Where each task of the to-delete list is in `list.trash`, while the view is the to-delete list: a row
    /// reads its entry without a search.
    var trashPlaces: [TaskID: Int] = [:]
    /// The task under the cursor when the list last changed, to keep the cursor on it.
    var cursorTask: TaskID?
    /// Counts by state over the live list: counted once, then kept up to date from the events that changed it.
    public internal(set) var counts = StateTally()
    /// The head and sort of the list let go by `releaseList`, until `setList`.
    private var released: (head: Int64, sort: SortMode)?
    /// Whether `counts` was counted from a list (the first list is always counted in full).
    private var counted = false

    public init(color: Bool) {
        self.color = color
        rows = RowIndex(list: DownloadList(), filter: .all, now: 0, utcOffsetSeconds: 0)
    }

    /// A one-line message in the status area.
    public struct Message: Sendable, Equatable {
        public var text: String
        public var isError: Bool
    }

    /// What covers part of the screen and takes the keys first.
    public enum Overlay: Sendable, Equatable {
        case none
        case help(scroll: Int)
        case prompt(Prompt)
        /// Ask how to delete these tasks.
        case deleteMenu([TaskID])
        /// Ask y/n before a command that cannot give bytes back.
        case confirm(String, Command)
        /// Choose the section to move these tasks to.
        case sectionPicker([TaskID], cursor: Int)
        case audit(TaskID, lines: [String], scroll: Int)
        /// A task's details; `file`: whether its finished file is on disk (nil: not looked, or no file yet).
        case details(TaskID, scroll: Int, file: Bool?)
    }

    /// The list the screen shows: the live one, or the history point's.
    public var shownList: DownloadList { history?.list ?? list }

    /// The downloading tasks of the live list on screen, top to bottom: the ones whose progress a watcher samples
    /// from disk. - Complexity: O(rows on screen).
    public func shownDownloading() -> [TaskID] {
        guard history == nil else { return [] }
        return (top..<min(rows.count, top + listHeight)).compactMap { r in
            guard case .task(let id, _)? = rows.row(r, in: list), list.tasks.state(of: id) == .downloading,
                !list.isTrashed(id)
            else { return nil }
            return id
        }
    }

    /// Rows of the list shown (the list area less an open pane).
    public var listHeight: Int { max(1, size.rows - 5 - paneRows) }

    /// Rows of the pane under the list (the audit trail, a task's details), with its title: half the list area,
    /// or more when the list needs fewer rows, or all of it when it is small. 0 when no pane is open.
    public var paneRows: Int {
        switch overlay {
        case .audit, .details:
            let area = max(1, size.rows - 5)
            return area >= 12 ? max(area / 2, area - max(3, rows.count)) : area
        default: return 0
        }
    }

    // MARK: - Input from the host

    /// The list changed (or is first known). `entries`, when given, are the events folded since the list shown
    /// (seq after seq, up to `new.head`): the counts then change for the tasks they name only, and a sorted or
    /// filtered view keeps its rows when no event can change which tasks it shows or their order, and otherwise
    /// moves the tasks the events name only (``RowIndex/refresh(_:in:)``). Without them (or when they do not join
    /// the two lists, or a sort changed) everything is counted and indexed again.
    /// - Complexity: O(tasks the entries name + sections) for the manual list; O(n) without entries.
    public mutating func setList(_ new: DownloadList, after entries: [LoggedEntry]? = nil) {
        let shown = released ?? (list.head, list.sortMode)
        released = nil
        let changed = new.head != shown.head || rows.count == 0
        let joined = entries.flatMap { Self.joins($0, from: shown.head, to: new.head) ? $0 : nil }
        // Another sort has other groups: the one shown is no longer there.
        if new.sortMode != shown.sort { subsection = nil }
        list = new
        guard changed else { return }
        var reordered = true
        if let joined, counted {
            let change = counts.recount(joined.lazy.flatMap(\.entry.event.taskIDs), in: list)
            let finishedMatters = list.sortMode == .finished || !(filter == .all || filter == .trash)
            reordered = change.contains(.membership) || (finishedMatters && change.contains(.finishing))
        } else {
            counts = StateTally(list)
            counted = true
        }
        if !selection.isEmpty {
            let trashView = filter == .trash
            selection = selection.filter { list.tasks[$0] != nil && list.isTrashed($0) == trashView }
        }
        guard history == nil else { return }
        if let joined, !reordered, !(filter == .all && list.sortMode == .manual),
            joined.allSatisfy({ RowIndex.keepsOrder($0.entry.event, sort: list.sortMode) })
        {
            // The view's rows hold the same tasks in the same order: the screen reads their new state by id.
            clampCursor()
        } else if let joined, joined.allSatisfy({ RowIndex.refreshes($0.entry.event) }),
            rows.refresh(joined.lazy.flatMap(\.entry.event.taskIDs), in: list)
        {
            // No sort changed: the sorted or filtered view's rows took out the tasks the events named and put
            // them back where they go now.
            followCursor()
        } else {
            reindex()
        }
    }

    /// The head of the list shown (also while it is let go by `releaseList`).
    public var shownHead: Int64 { released?.head ?? list.head }

    /// Lets go of the list shown until the next `setList`, so that the host's ledger folds the next events into
    /// its own list in place: while the screen holds the same list, a fold copies all of it (100,000 tasks) and
    /// the screen then frees the old one. The host calls it just before it refreshes the ledger and calls
    /// `setList` right after; nothing is drawn or handled between.
    public mutating func releaseList() {
        guard released == nil else { return }
        released = (list.head, list.sortMode)
        list = DownloadList()
    }

    /// Whether `entries` are exactly the events after `from` through `to`.
    static func joins(_ entries: [LoggedEntry], from: Int64, to: Int64) -> Bool {
        guard let first = entries.first, let last = entries.last else { return false }
        return first.seq == from + 1 && last.seq == to && last.seq - first.seq == Int64(entries.count - 1)
    }

    /// The running transfers' progress (not logged).
    public mutating func setActivity(_ new: [TransferActivity]) {
        var map: [TaskID: TransferActivity] = [:]
        for a in new { map[a.id] = a }
        activity = map
    }

    /// The terminal's size changed.
    public mutating func resize(columns: Int, rows height: Int) {
        size = (max(1, columns), max(1, height))
        scrollToCursor()
    }

    /// Shows a message (what a command did, or why it was refused).
    public mutating func report(_ text: String, isError: Bool = false) {
        message = Message(text: text, isError: isError)
    }

    /// Shows the list as it was at `point` (nil: back to now).
    public mutating func showHistory(_ point: HistoryPoint?) {
        history = point
        if let point {
            historyRows = RowIndex(
                list: point.list, filter: filter, now: now, utcOffsetSeconds: utcOffsetSeconds,
                only: subsection)
            rows = historyRows!
            message = Message(text: "#\(point.seq) \(point.words)", isError: false)
        } else {
            historyRows = nil
            message = nil
            reindex()
        }
        clampCursor()
    }

    /// Shows the audit trail of a task, one line per event, in a pane under the list: its last events.
    public mutating func showAudit(_ id: TaskID, lines: [String]) {
        overlay = .audit(id, lines: lines, scroll: 0)
        let total = paneText(size.columns).count
        overlay = .audit(id, lines: lines, scroll: max(0, total - (paneRows - 1)))
        scrollToCursor()
    }

    /// Shows a task's details in a pane under the list; `file` says whether its finished file is on disk.
    public mutating func showDetails(_ id: TaskID, file: Bool?) {
        overlay = .details(id, scroll: 0, file: file)
        scrollToCursor()
    }

    /// Rebuilds the rows after the list, the filter or the sort changed; the cursor stays on its task.
    mutating func reindex() {
        rows = RowIndex(
            list: list, filter: filter, now: now, utcOffsetSeconds: utcOffsetSeconds, only: subsection)
        // The group shown is gone (its section removed): the whole view again.
        if subsection != nil && !rows.isOneGroup { subsection = nil }
        trashPlaces = [:]
        if filter == .trash {
            for (i, entry) in list.trash.enumerated() where trashPlaces[entry.id] == nil {
                trashPlaces[entry.id] = i
            }
        }
        followCursor()
    }

    /// The local day of a time (ms): days since the epoch.
    static func day(_ time: Int64, _ offsetSeconds: Int) -> Int64 {
        let t = time + Int64(offsetSeconds) * 1000
        return t >= 0 ? t / 86_400_000 : -((-t + 86_399_999) / 86_400_000)
    }

    private mutating func newDay() {
        let byDay: Bool
        if case .finishedWithin = filter { byDay = true } else { byDay = false }
        guard history == nil, released == nil, byDay || list.sortMode == .added || list.sortMode == .finished
        else { return }
        reindex()
    }

    /// Keeps the cursor on the task it was on, after the rows changed.
    mutating func followCursor() {
        let keep = cursorTask
        // The cursor's row usually still shows its task: look for it only when it moved.
        if let keep, rows.row(cursor, in: list) != .task(keep, group: rows.group(containing: cursor)),
            let row = rows.row(of: keep, in: list)
        {
            cursor = row
        }
        clampCursor()
    }

    mutating func clampCursor() {
        cursor = max(0, min(cursor, rows.count - 1))
        if case .task(let id, _)? = rows.row(cursor, in: shownList) {
            cursorTask = id
        } else {
            cursorTask = nil
        }
        scrollToCursor()
    }

    mutating func scrollToCursor() {
        let h = listHeight
        if cursor < top { top = cursor }
        if cursor >= top + h { top = cursor - h + 1 }
        top = max(0, min(top, max(0, rows.count - h)))
    }
}
