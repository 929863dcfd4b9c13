/// A stored snapshot that is not loaded, and why (`EventStore.snapshotProblems`).
public struct SnapshotProblem: Sendable, Equatable, CustomStringConvertible {
    /// The seq the snapshot claims to be taken at.
    public var seq: Int64
    /// Why it is not loaded, in words.
    public var reason: String

    public init(seq: Int64, reason: String) {
        self.seq = seq
        self.reason = reason
    }

    public var description: String { "snapshot at #\(seq) is not used: \(reason)" }
}

/// Where the audit index (`event_tasks`) disagrees with the tasks the events list (`EventStore.verifyIndex`).
public struct IndexProblem: Sendable, Equatable, CustomStringConvertible {
    /// (task, seq) links that events list but the index lacks: hidden from `events(touching:)`.
    public var missing: Int64
    /// Links in the index that no event lists: they would add events to a task's history.
    public var extra: Int64
    /// The first disagreement in seq order: the event, the task, and whether the link is missing (or extra).
    public var firstSeq: Int64
    public var firstTask: Int64
    public var firstIsMissing: Bool

    public init(missing: Int64, extra: Int64, firstSeq: Int64, firstTask: Int64, firstIsMissing: Bool) {
        self.missing = missing
        self.extra = extra
        self.firstSeq = firstSeq
        self.firstTask = firstTask
        self.firstIsMissing = firstIsMissing
    }

    public var description: String {
        let first =
            firstIsMissing
            ? "event #\(firstSeq) touches task #\(firstTask), which the index does not record"
            : "the index links task #\(firstTask) to event #\(firstSeq), which does not touch it"
        return
            "the audit index disagrees with the log (\(missing) links missing, \(extra) extra); first: \(first)"
    }
}
