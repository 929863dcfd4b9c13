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
        let mode = sort ?? sortMode
        let desc = descending ?? sortDescending
        if filter == .trash {
            return [
                ViewSection(title: "To-delete list", index: nil, tasks: trash.compactMap { tasks[$0.id] })
            ]
        }
        let offset = Int64(utcOffsetSeconds) * 1000
        let todayStart = Self.floorDiv(now + offset, Self.dayMillis) * Self.dayMillis - offset
        let keep: (DownloadTask) -> Bool = { t in
            switch filter {
            case .all, .trash: return true
            case .unfinished: return t.state != .finished
            case .finished: return t.state == .finished
            case .finishedWithin(let days):
                return t.state == .finished
                    && (t.finished ?? .min) >= todayStart - Int64(Swift.min(days, 100_000)) * Self.dayMillis
            }
        }
        if mode == .manual {
            // A filtered view shows only the sections it has tasks of; the whole list shows every section.
            return sections.enumerated().compactMap { i, s in
                let shown = s.tasks.compactMap { tasks[$0] }.filter(keep)
                return filter != .all && shown.isEmpty
                    ? nil : ViewSection(title: s.title, index: i, tasks: shown)
            }
        }
        let all = orderedTasks.filter(keep)
        let groups: [(String, [DownloadTask])]
        switch mode {
        case .manual:
            groups = []
        case .added:
            // Ascending means oldest first, so "Older" leads and "Today" ends.
            groups = bucket(all, titles: Self.ageTitles, by: { $0.added }) { t in
                Self.ageBucket(t.added, now: now, offset: offset)
            }
        case .finished:
            // Like the add-time view, by completion time; unfinished tasks (in the order they were added) come after
            // the newest finished ones, so descending puts them first.
            groups = bucket(
                all, titles: Self.ageTitles + ["Unfinished"], by: { $0.finished ?? $0.added }
            ) { t in
                guard t.state == .finished, let finished = t.finished else { return 5 }
                return Self.ageBucket(finished, now: now, offset: offset)
            }
        case .name:
            var byLetter: [String: [DownloadTask]] = [:]
            for t in all { byLetter[Self.indexLetter(Self.shownName(t)), default: []].append(t) }
            // "#" (names that start with no letter) comes last, after every letter, not only after ASCII ones.
            groups = byLetter.keys.sorted { ($0 == "#" ? 1 : 0, $0) < ($1 == "#" ? 1 : 0, $1) }.map {
                letter in
                (
                    letter,
                    byLetter[letter]!.sorted {
                        Self.shownName($0).lowercased() < Self.shownName($1).lowercased()
                    }
                )
            }
        case .size:
            let titles = [
                "0 ~ 1 MB", "1 MB ~ 10 MB", "10 MB ~ 100 MB", "100 MB ~ 1 GB", "Larger Than 1 GB",
                "Unknown Size",
            ]
            groups = bucket(all, titles: titles, by: { $0.size ?? -1 }) { t in
                guard let size = t.size else { return 5 }
                switch size {
                case ..<1_000_000: return 0
                case ..<10_000_000: return 1
                case ..<100_000_000: return 2
                case ..<1_000_000_000: return 3
                default: return 4
                }
            }
        case .type:
            let kinds = FileKind.allCases
            groups = bucket(all, titles: kinds.map(\.rawValue), by: { _ in 0 }) { t in
                kinds.firstIndex(of: FileKind(fileName: Self.shownName(t)))!
            }.map {
                ($0.0, $0.1.sorted { Self.shownName($0).lowercased() < Self.shownName($1).lowercased() })
            }
        }
        let ordered = desc ? groups.reversed().map { ($0.0, Array($0.1.reversed())) } : groups
        return ordered.map { ViewSection(title: $0.0, index: nil, tasks: $0.1) }
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

    /// Groups tasks into titled buckets, dropping empty ones, each sorted by `key` (ties by id).
    private func bucket(
        _ all: [DownloadTask], titles: [String], by key: (DownloadTask) -> Int64, into: (DownloadTask) -> Int
    ) -> [(String, [DownloadTask])] {
        var buckets = Array(repeating: [DownloadTask](), count: titles.count)
        for t in all { buckets[into(t)].append(t) }
        return zip(titles, buckets).compactMap { title, tasks in
            tasks.isEmpty ? nil : (title, tasks.sorted { (key($0), $0.id) < (key($1), $1.id) })
        }
    }

    /// The name a list shows: the file's name once known, else the display name.
    public static func shownName(_ t: DownloadTask) -> String {
        t.nameIsUserChosen ? t.displayName : t.fileName ?? t.displayName
    }

    static func indexLetter(_ name: String) -> String {
        guard let c = name.unicodeScalars.first, c.properties.isAlphabetic else { return "#" }
        return String(c).uppercased()
    }
}
