/// How one download ended, as ``Ledger/outcomes(after:pollInterval:)`` reports it: SDEDownloadManager's
/// completion and failure callback, `onDownloadFinished(url, success, error)`, as values.
public struct TaskOutcome: Sendable, Equatable {
    public enum Result: Sendable, Equatable {
        /// Every byte is in, checked, and the file is at `path`.
        case finished(path: String)
        /// The download failed for good (no retry is left or none helps): `failure` says why.
        case failed(TaskFailure)
    }

    public var id: TaskID
    /// The task's URL, as it was added.
    public var url: String
    /// The seq of the event that recorded the outcome.
    public var seq: Int64
    public var result: Result

    /// True for ``Result/finished(path:)``.
    public var succeeded: Bool {
        if case .finished = result { return true }
        return false
    }

    public init(id: TaskID, url: String, seq: Int64, result: Result) {
        self.id = id
        self.url = url
        self.seq = seq
        self.result = result
    }
}
