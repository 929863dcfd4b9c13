extension Ledger {
    /// Every download that ends after event `after` (nil: from now): finished, with its file's path, or failed
    /// for good, with the reason. Built on ``changes(pollInterval:)``, so it reports the downloads of a
    /// ``Scheduler`` in this process and those another process (`dledger run`, `serve`) records in the same ledger,
    /// each once, in the order of the log.
    ///
    /// ```swift
    /// for await outcome in ledger.outcomes() {
    ///     switch outcome.result {
    ///     case .finished(let path): print("\(outcome.url) is at \(path)")
    ///     case .failed(let failure): print("\(outcome.url) failed: \(failure.detail)")
    ///     }
    /// }
    /// ```
    /// A task purged or deleted at once before the stream read its outcome is left out (its URL is gone). The
    /// stream ends when the task iterating it is cancelled.
    public func outcomes(after: Int64? = nil, pollInterval: Duration = .milliseconds(250)) -> AsyncStream<
        TaskOutcome
    > {
        let start = after ?? list.head
        let changes = changes(pollInterval: pollInterval)
        let (stream, continuation) = AsyncStream<TaskOutcome>.makeStream()
        let reader = Task {
            var seen = start
            for await list in changes {
                // Only the events this list holds: a later one may name a task this list does not know yet.
                while seen < list.head, let page = try? log(after: seen, limit: 2000), let last = page.last {
                    for logged in page where logged.seq <= list.head {
                        if let outcome = Self.outcome(logged, in: list) { continuation.yield(outcome) }
                    }
                    seen = min(last.seq, list.head)
                }
            }
            continuation.finish()
        }
        continuation.onTermination = { _ in reader.cancel() }
        return stream
    }

    /// The outcome `logged` records, if it records one; the task's URL and folder are read from `list`.
    static func outcome(_ logged: LoggedEntry, in list: DownloadList) -> TaskOutcome? {
        switch logged.entry.event {
        case .transferCompleted(let id, _, _, let fileName, _, _, _):
            guard let t = list.tasks[id] else { return nil }
            return TaskOutcome(
                id: id, url: t.url, seq: logged.seq, result: .finished(path: t.directory + "/" + fileName))
        case .transferFailed(let id, let failure, _):
            guard let t = list.tasks[id] else { return nil }
            return TaskOutcome(id: id, url: t.url, seq: logged.seq, result: .failed(failure))
        default:
            return nil
        }
    }
}
