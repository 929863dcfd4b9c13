/// One task as SDEDownloadManager's `info(ofTask:)` gives it: the task, where it is in the list, and what is on
/// disk for it now (``Ledger/info(ofTask:)``).
public struct TaskInfo: Sendable, Equatable {
    /// What the disk holds for a task.
    public enum File: Sendable, Equatable {
        /// Not finished: its partial data at `path`, `bytes` of it (nil: no partial file).
        case partial(path: String, bytes: Int64?)
        /// Finished, and the file the downloader placed is at `path`.
        case onDisk(path: String)
        /// Finished, and nothing is at `path` any more.
        case missing(path: String)
        /// Finished, and another file is at `path` (`reason`: how it differs).
        case replaced(path: String, reason: String)

        /// The file's path: the finished file's, or the partial file's.
        public var path: String {
            switch self {
            case .partial(let path, _), .onDisk(let path), .missing(let path), .replaced(let path, _): path
            }
        }

        /// Whether something of the task is at ``path``: its finished file, or partial data.
        public var exists: Bool {
            switch self {
            case .partial(_, let bytes): bytes != nil
            case .onDisk: true
            case .missing, .replaced: false
            }
        }
    }

    /// The task as the log projects it, with its bytes as the disk has them (a running transfer's partial file
    /// holds more than the log last recorded).
    public var task: DownloadTask
    /// Its section and index in the list; nil in the to-delete list.
    public var location: Location?
    /// The title of its section (in the to-delete list: the section it was deleted from).
    public var sectionTitle: String
    /// Its entry in the to-delete list, if it is there.
    public var trash: TrashEntry?
    public var file: File
    /// Whether a downloader holds the ledger now: without one, a task the log says is downloading was interrupted.
    public var downloaderRunning: Bool

    public init(
        task: DownloadTask, location: Location?, sectionTitle: String, trash: TrashEntry?, file: File,
        downloaderRunning: Bool
    ) {
        self.task = task
        self.location = location
        self.sectionTitle = sectionTitle
        self.trash = trash
        self.file = file
        self.downloaderRunning = downloaderRunning
    }
}
