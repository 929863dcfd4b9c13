/// Which tasks a view shows (the Kollus SDK's filters, plus the to-delete list).
public enum TaskFilter: Sendable, Equatable {
    case all
    case unfinished
    case finished
    /// Finished today (local time) or in the N days before today: 0 is today.
    case finishedWithin(days: Int)
    case trash
}

/// A titled group in a view. `index` is the manual section index when the view is the manual list.
public struct ViewSection: Sendable, Equatable {
    public var title: String
    public var index: Int?
    public var tasks: [DownloadTask]

    public init(title: String, index: Int?, tasks: [DownloadTask]) {
        self.title = title
        self.index = index
        self.tasks = tasks
    }
}

/// A titled group of a view by task id (``DownloadList/viewGroups(sort:descending:filter:now:utcOffsetSeconds:)``).
public struct ViewGroup: Sendable, Equatable {
    public var title: String
    public var index: Int?
    public var ids: [TaskID]

    public init(title: String, index: Int?, ids: [TaskID]) {
        self.title = title
        self.index = index
        self.ids = ids
    }
}

/// The kind of file a name suggests, for the type sort.
public enum FileKind: String, Sendable, CaseIterable {
    case image = "Image", audio = "Audio", video = "Video", document = "Document", other = "Other"

    public init(fileName: String) {
        let ext =
            fileName.split(separator: ".").count > 1 ? fileName.split(separator: ".").last!.lowercased() : ""
        switch ext {
        case "jpg", "jpeg", "png", "gif", "bmp", "webp", "svg", "tif", "tiff", "heic", "ico", "avif":
            self = .image
        case "mp3", "aac", "m4a", "flac", "wav", "ogg", "opus", "wma", "aiff": self = .audio
        case "mp4", "m4v", "mkv", "mov", "avi", "webm", "wmv", "flv", "mpg", "mpeg", "ts": self = .video
        case "pdf", "txt", "md", "doc", "docx", "odt", "rtf", "xls", "xlsx", "ods", "csv", "ppt", "pptx",
            "odp", "epub",
            "html", "htm", "json", "xml":
            self = .document
        default: self = .other
        }
    }
}

extension DownloadList {
    static let dayMillis: Int64 = 86_400_000

    /// The list as a user sees it: grouped and ordered by `sort` (default: the list's own sort mode), filtered.
    /// Predefined views are computed here from the projection; `now` and the local UTC offset are passed in,
    /// so this stays pure. Manual sections are never lost by sorting: they are the `.manual` view.
    public func view(
        sort: SortMode? = nil, descending: Bool? = nil, filter: TaskFilter = .all, now: Int64,
        utcOffsetSeconds: Int = 0
    ) -> [ViewSection] {
        viewGroups(
            sort: sort, descending: descending, filter: filter, now: now, utcOffsetSeconds: utcOffsetSeconds
        ).map { ViewSection(title: $0.title, index: $0.index, tasks: $0.ids.compactMap { tasks[$0] }) }
    }

    /// ``view(sort:descending:filter:now:utcOffsetSeconds:)`` by task id: the same groups in the same order,
    /// without a copy of any task (a caller that prints 100,000 rows reads each task in place).
    ///
    /// With `section` (the manual sort only), just that section's group, as the whole view has it (none when a
    /// filter leaves it empty): the other sections' ids are not read (`ls --section N` of a section of ten beside
    /// 100,000 tasks reads ten).
    public func viewGroups(
        sort: SortMode? = nil, descending: Bool? = nil, filter: TaskFilter = .all, now: Int64,
        utcOffsetSeconds: Int = 0, section: Int? = nil
    ) -> [ViewGroup] {
        let mode = sort ?? sortMode
        let desc = descending ?? sortDescending
        if filter == .trash {
            return [
                ViewGroup(title: "To-delete list", index: nil, ids: trash.map(\.id).filter(tasks.contains))
            ]
        }
        let order = ViewOrder(
            sort: mode, descending: desc, filter: filter, now: now, utcOffsetSeconds: utcOffsetSeconds)
        if mode == .manual {
            // A filtered view shows only the sections it has tasks of; the whole list shows every section.
            let shown =
                section.map { sections.indices.contains($0) ? $0..<($0 + 1) : 0..<0 } ?? sections.indices
            return shown.compactMap { i in
                let s = sections[i]
                // The whole list reads no task: testing each one against a filter that lets all in cost a copy
                // of every task (their strings retained and released) on a list of 100,000.
                // A section whose ids all have their task (any list the log projects) is shown as it is held, not
                // copied.
                let ids: [TaskID] =
                    filter == .all
                    ? (s.tasks.allSatisfy(tasks.contains) ? Array(s.tasks) : s.tasks.filter(tasks.contains))
                    : s.tasks.filter { id in tasks.read(id) { order.shows($0) } ?? false }
                return filter != .all && ids.isEmpty ? nil : ViewGroup(title: s.title, index: i, ids: ids)
            }
        }
        // Each task's place is worked out once (a name lowercased once, not at each comparison).
        var placed: [(ViewOrder.Place, TaskID)] = []
        placed.reserveCapacity(tasks.count)
        for s in sections {
            for id in s.tasks {
                if let place = tasks.read(id, { order.shows($0) ? order.place(of: $0) : nil }) ?? nil {
                    placed.append((place, id))
                }
            }
        }
        placed.sort { order.precedes($0.0, $1.0) }
        var groups: [ViewGroup] = []
        var last: ViewOrder.Place?
        for (place, id) in placed {
            if let last, place.sharesGroup(with: last) {
                groups[groups.count - 1].ids.append(id)
            } else {
                groups.append(ViewGroup(title: place.title, index: nil, ids: [id]))
            }
            last = place
        }
        return groups
    }

    static let ageTitles = ["Older", "Last 30 Days", "Last 7 Days", "Yesterday", "Today"]

    /// The index in `ageTitles` of a time's bucket: calendar days (local time) before today's.
    static func ageBucket(_ time: Int64, now: Int64, offset: Int64) -> Int {
        let age = floorDiv(now + offset, dayMillis) - floorDiv(time + offset, dayMillis)
        switch age {
        case ..<1: return 4
        case 1: return 3
        case 2..<7: return 2
        case 7..<30: return 1
        default: return 0
        }
    }

    static func floorDiv(_ a: Int64, _ b: Int64) -> Int64 { a >= 0 ? a / b : -((-a + b - 1) / b) }

    /// The name a list shows: the file's name once known, else the display name.
    public static func shownName(_ t: DownloadTask) -> String {
        t.nameIsUserChosen ? t.displayName : t.fileName ?? t.displayName
    }

    static func indexLetter(_ name: String) -> String {
        guard let c = name.unicodeScalars.first, c.properties.isAlphabetic else { return "#" }
        return String(c).uppercased()
    }
}
