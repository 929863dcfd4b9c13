/// Where new URLs go.
public enum AddPlacement: Sendable, Equatable {
    /// The end of the first section (a section "Downloads" is created when the list has none).
    case end
    /// Into an existing section, at an index (nil: its end).
    case section(Int, index: Int?)
    /// The end of the first section with this title, created at the end of the list when there is none.
    case titled(String)
    /// Into a new section with this title, inserted at `at` (nil: after the last section).
    case newSection(title: String, at: Int?)
}

/// URLs for one place, in an add of several groups.
public struct AddGroup: Sendable, Equatable {
    public var urls: [String]
    public var placement: AddPlacement

    public init(urls: [String], placement: AddPlacement) {
        self.urls = urls
        self.placement = placement
    }
}

/// Which tasks a bulk command covers.
public enum Selection: Sendable, Equatable {
    case tasks([TaskID])
    case section(Int)
    case all
}

/// What `sortSection` orders a section by.
public enum SectionSortKey: String, Sendable, CaseIterable {
    /// The shown name, case-insensitively.
    case name
    /// The known size (unknown sizes last).
    case size
    /// When the task was added.
    case added
    /// When the task finished (unfinished tasks last).
    case finished
}

/// A user's intent. Validated against the current projection, it becomes one event, or a `LedgerError`.
public enum Command: Sendable, Equatable {
    /// `options` go with every task added; mirrors only with a single URL.
    case add(
        urls: [String], placement: AddPlacement, name: String?, sha256: String?, directory: String?,
        options: TaskOptions = TaskOptions())
    /// Several groups of URLs, each to its place, as one action (one event, one undo).
    case addGroups([AddGroup], directory: String?, options: TaskOptions = TaskOptions())
    /// Replace a task's request options as a whole.
    case setOptions(TaskID, TaskOptions)
    case move([TaskID], to: Location)
    case insertSection(title: String, at: Int?)
    case renameSection(Int, title: String)
    case moveSection(Int, to: Int)
    case removeSection(Int)
    /// Order one section's tasks in place (SDE `sortTasksInSection`).
    case sortSection(Int, by: SectionSortKey, descending: Bool)
    case delete(Selection, mode: DeleteMode)
    /// Delete at once, without the to-delete list (`rm --now`): mode `all` or `record`.
    case erase(Selection, mode: DeleteMode)
    /// Restore the given tasks (nil: the whole to-delete list) to `to`, or where each was when nil.
    case restore([TaskID]?, to: Location?)
    /// Purge the given tasks (nil: the whole to-delete list).
    case purge([TaskID]?)
    /// Discard the files and partial data of the selected tasks that have any, and download them again.
    case redownload(Selection)
    case rename(TaskID, name: String)
    case pause(Selection)
    case resume(Selection)
    case stop(Selection)
    /// Change a value setting (``Setting``): checked against its range (0 or the empty text is its default).
    case set(Setting, SettingValue)
    /// Change a value setting for one downloader's host (``DownloadList/hostSettable``), checked as ``set(_:_:)``;
    /// nil: the host follows the ledger's value again.
    case setForHost(String, Setting, Int64?)
    /// The ledger's download folder, for tasks added later without a folder of their own: an absolute path in
    /// normal form (no empty, `.` or `..` part, no trailing slash, no control character).
    case setDirectory(String)
    case sort(SortMode, descending: Bool)
    case setAutoRemoveEmptySections(Bool)
    /// Turn the to-delete list on or off (off: deletes erase at once).
    case setTrash(Bool)
    /// The program run after each outcome of `hook`: an absolute path (checked to be an executable file by the
    /// caller, which can look at the disk), or nil for none.
    case setHook(Hook, command: String?)
    /// Undo the newest user action; refused when it cannot be undone.
    case undo
    /// Undo the newest action that can be undone, passing over newer ones that cannot (a purge, a redownload).
    case undoPast
    case redo
}

/// What a valid command decided: the entry to append, and what to tell the user.
public struct Decision: Sendable, Equatable {
    public var entry: Entry
    /// Ids assigned by an add, in URL order.
    public var added: [TaskID] = []
    /// URLs an add skipped, with the reason.
    public var skipped: [(url: String, reason: String)] = []
    /// For undo and redo: the seq of the action undone or redone, and its kind.
    public var target: (seq: Int64, kind: String)?
    /// For `undoPast`: the newer actions passed over, with why each cannot be undone.
    public var passed: [(seq: Int64, kind: String, reason: String)] = []

    public init(entry: Entry) { self.entry = entry }

    public static func == (a: Decision, b: Decision) -> Bool {
        a.entry == b.entry && a.added == b.added && a.skipped.map(\.url) == b.skipped.map(\.url)
            && a.skipped.map(\.reason) == b.skipped.map(\.reason) && a.target?.seq == b.target?.seq
    }
}

/// An add whose every URL was skipped: nothing to append, but the user must hear why.
public struct NothingAdded: Error, Sendable, CustomStringConvertible {
    public var skipped: [(url: String, reason: String)]

    public var description: String {
        skipped.count == 1
            ? "nothing added: \(skipped[0].url): \(skipped[0].reason)"
            : "nothing added: all \(skipped.count) URLs were skipped"
    }
}

extension Command {
    /// The maximum download count: 0 for no limit.
    public static func setMaxDownloads(_ n: Int) -> Command { .set(.maxDownloads, .number(Int64(n))) }
    /// Bytes per second for all downloads together: 0 for none.
    public static func setSpeedLimit(_ n: Int64) -> Command { .set(.speedLimit, .number(n)) }
    /// The default connections per download: 1–64, or 0 to let the downloader decide.
    public static func setConnections(_ n: Int) -> Command { .set(.connections, .number(Int64(n))) }
    /// The largest file a download may become: 1 KB to 1 EB, or 0 for the downloader's rule (no maximum for an
    /// announced size, 16 GiB for a body without one).
    public static func setMaxSize(_ n: Int64) -> Command { .set(.maxSize, .number(n)) }
    /// The default connections to one server per download (aria2 `max-connection-per-server`): 1–16, or 0 for the
    /// downloader's (16). A task's own count wins.
    public static func setConnectionsPerServer(_ n: Int) -> Command {
        .set(.connectionsPerServer, .number(Int64(n)))
    }
    /// The default smallest piece in bytes (aria2 `min-split-size`): 1 MiB to 1 GiB, or 0 for the downloader's
    /// (1 MiB). A task's own size wins.
    public static func setMinSplitSize(_ n: Int64) -> Command { .set(.minSplitSize, .number(n)) }
    /// How long a paused transfer keeps its connections before it stops, in seconds: ``DownloadList/pauseHoldRange``,
    /// or 0 for the downloader's (60 s).
    public static func setPauseHold(_ n: Int64) -> Command { .set(.pauseHold, .number(n)) }
}
