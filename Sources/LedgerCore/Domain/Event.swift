/// How predefined views order and group the list; `manual` shows the user's sections.
public enum SortMode: String, Sendable, CaseIterable {
    /// `finished` groups by completion time (the Kollus SDK's "completion time"), unfinished tasks apart.
    case manual, added, name, size, type, finished
}

/// Which file a path named when the downloader placed it: its device and inode numbers and its modification time.
/// Inode numbers are reused as soon as a file is deleted, so the time tells a new file under the same inode apart.
public struct FileIdentity: Sendable, Equatable, Hashable {
    public var device: UInt64
    public var inode: UInt64
    /// Nanoseconds since the Unix epoch.
    public var modified: Int64

    public init(device: UInt64, inode: UInt64, modified: Int64) {
        self.device = device
        self.inode = inode
        self.modified = modified
    }
}

/// A task as an add event records it.
public struct NewTask: Sendable, Equatable {
    public var id: TaskID
    public var url: String
    public var name: String?
    public var sha256: String?
    public var directory: String
    /// How the task asks for its file (headers, proxy, limits, mirrors); empty for most tasks.
    public var options: TaskOptions {
        get { optionsBox?.value ?? TaskOptions() }
        set { optionsBox = newValue.isEmpty ? nil : OptionsBox(newValue) }
    }
    /// The options out of line, as a task keeps them: most tasks have none, and a decoded add of 100,000 URLs
    /// holds 80 bytes a task instead of 264.
    private var optionsBox: OptionsBox?

    public init(
        id: TaskID, url: String, name: String? = nil, sha256: String? = nil, directory: String,
        options: TaskOptions = TaskOptions()
    ) {
        self.id = id
        self.url = url
        self.name = name
        self.sha256 = sha256
        self.directory = directory
        self.options = options
    }
}

/// One group of an add of several groups (`add --from-file` with `# Title` lines): tasks inserted at
/// `section`/`index`, after a new section titled `newSectionTitle` is inserted at `section` when given.
public struct TaskGroup: Sendable, Equatable {
    public var tasks: [NewTask]
    public var section: Int
    public var index: Int
    public var newSectionTitle: String?

    public init(tasks: [NewTask], section: Int, index: Int, newSectionTitle: String?) {
        self.tasks = tasks
        self.section = section
        self.index = index
        self.newSectionTitle = newSectionTitle
    }
}

/// A fact in the log. User actions come first; the downloader's facts (`transfer…`) follow.
/// Each user action is exactly one event, however many tasks it covers.
public enum Event: Sendable, Equatable {
    /// `autoRemoveEmptySections`: the ledger starts with automatic removal of emptied sections (SDE's default);
    /// absent from ledgers created before it was written, which started without.
    case ledgerCreated(directory: String, maxDownloads: Int, autoRemoveEmptySections: Bool = false)
    /// Tasks inserted at `section`/`index`; with `newSectionTitle`, a section with that title is first
    /// inserted at `section`.
    case tasksAdded(tasks: [NewTask], section: Int, index: Int, newSectionTitle: String?)
    /// Several groups added by one command, each applied like `tasksAdded`, in order.
    case groupsAdded([TaskGroup])
    /// Tasks taken out of the list and forgotten: the inverse of an add. `removingSections`, the sections the add
    /// created (indexes after it), go too when they are left empty.
    case tasksRemoved(ids: [TaskID], removingSections: [Int])
    /// Tasks removed from where they are, then inserted in the given order at `section`/`index`
    /// (the index counts in the section without the moved tasks).
    case tasksMoved(ids: [TaskID], section: Int, index: Int)
    /// Tasks put back at exact positions (the inverse of a move), recreating sections by title if needed.
    /// `recreating`: the sections the move removed (indexes in the list as it was before it), inserted anew first,
    /// titled after their placements, so tasks never land in another section of the same title.
    case tasksPlaced([Placement], recreating: [Int] = [])
    case sectionInserted(index: Int, title: String)
    case sectionRenamed(index: Int, title: String)
    case sectionMoved(from: Int, to: Int)
    case sectionRemoved(index: Int)
    /// The tasks of section `index` put in this order (a sort of one section, or its undo). Tasks of the section
    /// the order does not name keep their relative order after the named ones.
    case sectionSorted(index: Int, order: [TaskID])
    /// To the to-delete list. `modes` has one mode for all tasks, or one per task.
    case tasksDeleted(ids: [TaskID], modes: [DeleteMode])
    /// Only the files went; the tasks stay and wait again. `kept`: tasks whose finished file was left on disk
    /// because it is no longer the file the downloader placed (replaced or changed since, or an unsafe name).
    case filesDeleted(ids: [TaskID], kept: [TaskID] = [])
    /// Out of the to-delete list: to `to`, or where each task was when nil. `recreating` (the inverse of a delete):
    /// the sections the delete removed, inserted anew first at their indexes, titled after their entries.
    case tasksRestored(ids: [TaskID], to: Location?, recreating: [Int] = [])
    /// Back into the to-delete list exactly as they were: the inverse of a restore. Each entry goes to its
    /// position in the list (ascending); `removingSections`, the sections the restore recreated, go when empty.
    case tasksTrashed([TrashEntry], positions: [Int], removingSections: [Int])
    /// Gone for good, files too (unless deleted with mode `record`); `kept` as for ``filesDeleted(ids:kept:)``.
    case trashPurged(ids: [TaskID], kept: [TaskID] = [])
    /// Deleted at once, without the to-delete list (`rm --now`, or with the to-delete list turned off): the tasks
    /// are forgotten and, for mode `all`, their files go. Nothing is kept in the
    /// list, so it cannot be undone; `kept` as for ``filesDeleted(ids:kept:)``.
    case tasksErased(ids: [TaskID], modes: [DeleteMode], kept: [TaskID] = [])
    /// Files and partial data discarded, downloaded again from zero; `kept` as for ``filesDeleted(ids:kept:)``.
    case tasksRedownloaded(ids: [TaskID], kept: [TaskID] = [])
    /// A new display name; `fileName` is set when a finished file was renamed on disk. `userChosen` is false
    /// only when an undo gives back a name the user never chose, so the server's name may replace it again.
    case taskRenamed(id: TaskID, name: String, fileName: String?, userChosen: Bool = true)
    case tasksPaused(ids: [TaskID])
    case tasksResumed(ids: [TaskID])
    case tasksStopped(ids: [TaskID])
    /// Puts states back (the inverse of pause, resume and stop).
    case statesRestored(ids: [TaskID], states: [TaskState])
    /// A value setting changed (the maximum downloads, the speed limit, the default connections, …): logged as the
    /// setting's own kind (``SettingSpec/kind``), its value under the setting's key.
    case settingChanged(Setting, SettingValue)
    /// The ledger's download folder, for tasks added later (those added before keep theirs).
    case directoryChanged(String)
    /// A value setting of one downloader's host on a shared ledger (``DownloadList/hostSettable``: the maximum
    /// download count, the speed limit), over the ledger's; nil: that host follows the ledger's again.
    case hostSettingChanged(host: String, setting: Setting, value: Int64?)
    /// A task's request options replaced as a whole (`changeOption`, `dledger option`); undone by the old ones.
    case taskOptionsChanged(id: TaskID, options: TaskOptions)
    case sortChanged(SortMode, descending: Bool)
    case emptySectionsPolicyChanged(autoRemove: Bool)
    /// Whether deletes go through the to-delete list (SDE `isTrashOpened`); off: they erase at once.
    case trashPolicyChanged(enabled: Bool)
    /// The program run after each outcome of `hook` (an absolute path, run without a shell), or none (nil).
    case hookChanged(hook: Hook, command: String?)

    /// A downloader on a shared ledger takes (or renews) the task for `leaseMs` from the event's time: no other host
    /// transfers it until the lease runs out or an outcome fact (completed, failed, paused) releases it.
    /// `expired`: the host whose lease ran out when this claim took the task over (its partial data is void: the
    /// transfer starts from zero).
    case transferClaimed(id: TaskID, host: String, leaseMs: Int64, expired: String? = nil)
    case transferStarted(id: TaskID, attempt: Int, offset: Int64)
    case transferResolved(
        id: TaskID, size: Int64?, serverName: String?, validator: String?, acceptsRanges: Bool,
        restartedFromZero: String?)
    case transferPaused(id: TaskID, bytes: Int64)
    /// A pause kept the connection (`curl_easy_pause`): resumed soon, the same response goes on.
    case transferHeld(id: TaskID, bytes: Int64)
    /// A held transfer went on with its kept connection, without a new request.
    case transferContinued(id: TaskID)
    /// The file is complete at `fileName` in the task's directory. `placed`: the device, inode and modification time
    /// of the file the downloader placed there (nil in ledgers written before it was recorded), so a later delete can tell that
    /// the file at that name is still ours. `host`: the downloader's host name (nil in ledgers written before it
    /// was recorded); `directory`: the folder the file is in when it is not the task's (a shared ledger's
    /// downloader with a folder of its own, `run --dir`), which becomes the task's.
    case transferCompleted(
        id: TaskID, bytes: Int64, sha256: String, fileName: String, placed: FileIdentity? = nil,
        host: String? = nil, directory: String? = nil)
    case transferFailed(id: TaskID, failure: TaskFailure, bytes: Int64)
    /// An attempt ended with a retryable fault (`failure`, `bytes` in the partial file); the next attempt starts
    /// after `delayMs` (backoff with jitter, or the server's Retry-After).
    case transferRetrying(id: TaskID, failure: TaskFailure, bytes: Int64, delayMs: Int64)
    /// How a transfer fetches its file: `connections` at once and why (`detail`): split into pieces, kept on one
    /// connection by its server (no ranges, size unknown), a connection or mirror dropped, or the summary of who
    /// served how many bytes when every byte is in.
    case transferConnections(id: TaskID, connections: Int, detail: String)
    /// A hook (`command`, run after the task's outcome) ended: how, and the first line it printed (sanitised,
    /// ``Hook/firstLine(of:)``).
    case hookFinished(id: TaskID, hook: Hook, command: String, result: HookResult, firstLine: String)

    /// True for the downloader's facts, which undo never touches.
    public var isTransferFact: Bool {
        switch self {
        case .transferStarted, .transferResolved, .transferPaused, .transferCompleted, .transferFailed,
            .transferRetrying, .transferHeld, .transferContinued, .transferConnections, .hookFinished,
            .transferClaimed:
            return true
        default:
            return false
        }
    }

    /// True for the events whose fold searches or shifts the sections' lists of ids (and, for user actions,
    /// whose undo step finds the tasks' places): folding one costs time in proportion to the whole list, not
    /// to the tasks it names.
    public var reordersList: Bool {
        switch self {
        case .tasksMoved, .tasksPlaced, .tasksDeleted, .tasksRestored, .tasksTrashed, .tasksRemoved,
            .tasksErased, .trashPurged, .sectionRemoved:
            return true
        default:
            return false
        }
    }

    /// Every task id the event names, for the audit index.
    public var taskIDs: [TaskID] {
        switch self {
        case .tasksAdded(let tasks, _, _, _): return tasks.map(\.id)
        case .groupsAdded(let groups): return groups.flatMap { $0.tasks.map(\.id) }
        case .tasksPlaced(let placements, _): return placements.map(\.id)
        case .tasksTrashed(let entries, _, _): return entries.map(\.id)
        case .tasksMoved(let ids, _, _), .tasksRemoved(let ids, _), .tasksDeleted(let ids, _),
            .filesDeleted(let ids, _),
            .tasksRestored(let ids, _, _), .trashPurged(let ids, _), .tasksRedownloaded(let ids, _),
            .tasksErased(let ids, _, _), .sectionSorted(_, let ids),
            .tasksPaused(let ids), .tasksResumed(let ids), .tasksStopped(let ids),
            .statesRestored(let ids, _):
            return ids
        case .taskRenamed(let id, _, _, _), .taskOptionsChanged(let id, _), .transferStarted(let id, _, _),
            .transferResolved(let id, _, _, _, _, _), .transferPaused(let id, _),
            .transferCompleted(let id, _, _, _, _, _, _), .transferFailed(let id, _, _),
            .transferClaimed(let id, _, _, _),
            .transferRetrying(let id, _, _, _), .transferHeld(let id, _), .transferContinued(let id),
            .transferConnections(let id, _, _), .hookFinished(let id, _, _, _, _):
            return [id]
        case .ledgerCreated, .sectionInserted, .sectionRenamed, .sectionMoved, .sectionRemoved,
            .settingChanged, .sortChanged, .directoryChanged, .hostSettingChanged,
            .emptySectionsPolicyChanged, .trashPolicyChanged, .hookChanged:
            return []
        }
    }
}

/// An event as logged: the fact plus, for compensating events, the seq they undo or redo.
public struct Entry: Sendable, Equatable {
    public var event: Event
    public var undoes: Int64?
    public var redoes: Int64?
    /// Which front end the user acted through, when not the CLI or the library (`"rpc"`): shown by `log` and
    /// `audit`. Facts never carry one.
    public var origin: String?

    public init(_ event: Event, undoes: Int64? = nil, redoes: Int64? = nil, origin: String? = nil) {
        self.event = event
        self.undoes = undoes
        self.redoes = redoes
        self.origin = origin
    }
}

/// An entry with its place and commit time in the log.
public struct LoggedEntry: Sendable, Equatable {
    public var seq: Int64
    /// Commit time, milliseconds since the Unix epoch.
    public var time: Int64
    public var entry: Entry

    public init(seq: Int64, time: Int64, entry: Entry) {
        self.seq = seq
        self.time = time
        self.entry = entry
    }
}
