/// Why a ledger could not be opened or read, beyond what the store reports.
public enum LedgerOpenError: Error, Sendable, Equatable, CustomStringConvertible {
    /// No ledger file at the path and none was to be created.
    case noLedger(String)
    /// An event in the log could not be decoded.
    case unreadableEvent(seq: Int64, detail: String)
    /// Another process runs transfers for this ledger.
    case runnerActive(pid: Int32?, lockPath: String)

    public var description: String {
        switch self {
        case .noLedger(let path): return "no ledger at \(path) (add a URL to create one)"
        case .unreadableEvent(let seq, let detail): return "event #\(seq) cannot be read: \(detail)"
        case .runnerActive(let pid, let lockPath):
            let who = pid.map { "pid \($0)" } ?? "another process"
            return "another downloader (\(who)) is already running for this ledger (lock \(lockPath))"
        }
    }
}
