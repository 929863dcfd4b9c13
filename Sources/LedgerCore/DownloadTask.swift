/// A task's identity: assigned by the ledger, stable for the task's whole life, never reused.
public typealias TaskID = Int64

/// Where a task is in its life. The to-delete list is not a state: a task in it keeps its state.
public enum TaskState: String, Sendable, CaseIterable, Comparable {
    case waiting, downloading, paused, stopped, finished, failed

    public static func < (a: TaskState, b: TaskState) -> Bool {
        allCases.firstIndex(of: a)! < allCases.firstIndex(of: b)!
    }

    /// Waiting tasks, and tasks a crashed downloader left marked as downloading, are what a downloader starts.
    public var isRunnable: Bool { self == .waiting || self == .downloading }
}

/// Why a transfer failed, as the downloader reported it.
public struct TaskFailure: Sendable, Equatable {
    /// A stable short code such as `http`, `timeout`, `checksumMismatch`, `diskFull`.
    public var code: String
    /// Human detail, e.g. `HTTP 404`.
    public var detail: String
    public var retryable: Bool

    public init(code: String, detail: String, retryable: Bool) {
        self.code = code
        self.detail = detail
        self.retryable = retryable
    }
}

/// One download in the list, as the log projects it.
public struct DownloadTask: Sendable, Equatable {
    public var id: TaskID
    public var url: String
    /// The name the user gave, if any; else the best name known so far.
    public var displayName: String
    /// True when the user chose the name (add --name or rename): the downloader must use it for the file.
    public var nameIsUserChosen: Bool
    /// The file name on disk, known once the transfer completed.
    public var fileName: String?
    /// Absolute download directory.
    public var directory: String
    /// Expected SHA-256 (lowercase hex) given when the task was added.
    public var expectedSHA256: String?
    public var state: TaskState
    public var bytes: Int64
    public var size: Int64?
    /// Why the last attempt failed; kept through a resume until the next attempt starts.
    public var failure: TaskFailure?
    public var attempts: Int
    /// Milliseconds since the Unix epoch.
    public var added: Int64
    public var finished: Int64?
    /// ETag or Last-Modified of the partial file, for If-Range on resume.
    public var validator: String?
    /// SHA-256 of the completed file, as the downloader computed it.
    public var sha256: String?
    /// How many times the task's data was discarded (redownload, file deleted): a running transfer that sees
    /// this change must restart from zero.
    public var resets: Int = 0

    public init(
        id: TaskID, url: String, displayName: String, nameIsUserChosen: Bool, directory: String,
        expectedSHA256: String?, added: Int64
    ) {
        self.id = id
        self.url = url
        self.displayName = displayName
        self.nameIsUserChosen = nameIsUserChosen
        self.fileName = nil
        self.directory = directory
        self.expectedSHA256 = expectedSHA256
        self.state = .waiting
        self.bytes = 0
        self.size = nil
        self.failure = nil
        self.attempts = 0
        self.added = added
        self.finished = nil
        self.validator = nil
        self.sha256 = nil
    }

    /// Every field at once (the snapshot reader).
    init(
        id: TaskID, url: String, displayName: String, nameIsUserChosen: Bool, fileName: String?,
        directory: String,
        expectedSHA256: String?, state: TaskState, bytes: Int64, size: Int64?, failure: TaskFailure?,
        attempts: Int,
        added: Int64, finished: Int64?, validator: String?, sha256: String?, resets: Int
    ) {
        self.id = id
        self.url = url
        self.displayName = displayName
        self.nameIsUserChosen = nameIsUserChosen
        self.fileName = fileName
        self.directory = directory
        self.expectedSHA256 = expectedSHA256
        self.state = state
        self.bytes = bytes
        self.size = size
        self.failure = failure
        self.attempts = attempts
        self.added = added
        self.finished = finished
        self.validator = validator
        self.sha256 = sha256
        self.resets = resets
    }

    /// Forget everything a transfer learned: back to waiting, from zero.
    mutating func resetTransfer() {
        resets += 1
        state = .waiting
        bytes = 0
        failure = nil
        attempts = 0
        finished = nil
        fileName = nil
        validator = nil
        sha256 = nil
    }
}
