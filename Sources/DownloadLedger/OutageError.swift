/// Why a downloader stopped after its ledger's database was out of reach.
public enum OutageError: Error, Sendable, Equatable, CustomStringConvertible {
    /// While the database was away, another downloader took the run lock (the server dropped this run's session
    /// with the lock): this run recorded what it did and stopped.
    case lockTaken(pid: Int32?, lockPath: String)
    /// The run ended while the database was still out of reach: `count` facts could not be appended (the partial
    /// files stay, and the next run resumes from them).
    case factsNotRecorded(count: Int, reason: String)

    public var description: String {
        switch self {
        case .lockTaken(let pid, let lockPath):
            let who = pid.map { "pid \($0)" } ?? "another process"
            return "another downloader (\(who)) took this ledger while the database was out of reach: "
                + "stopped (lock \(lockPath))"
        case .factsNotRecorded(let count, let reason):
            return "the database is still out of reach (\(reason)): \(count) fact\(count == 1 ? "" : "s") "
                + "not recorded; partial files are kept for the next run"
        }
    }
}
