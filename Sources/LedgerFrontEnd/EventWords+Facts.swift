import DownloadLedger
import Foundation

extension EventWords {
    /// What the downloader or a hook reported (nil for other events).
    static func factText(_ event: Event) -> String? {
        switch event {
        case .transferStarted(let id, let attempt, let offset):
            let from = offset > 0 ? "resumed at \(Format.bytes(offset)) (Range request)" : "started from zero"
            return "#\(id) \(from), attempt \(attempt)"
        case .transferResolved(let id, let size, let serverName, _, let ranges, let restarted):
            var parts = [size.map(Format.bytes) ?? "size unknown", ranges ? "ranges accepted" : "no ranges"]
            if let serverName { parts.append("server name '\(serverName)'") }
            if let restarted { parts.append("restarted from zero: \(restarted)") }
            return "#\(id) resolved: " + parts.joined(separator: ", ")
        case .transferPaused(let id, let bytes):
            return
                "#\(id) transfer stopped at \(Format.bytes(bytes)) (connection closed; resumes with a Range request)"
        case .transferHeld(let id, let bytes):
            return
                "#\(id) transfer paused at \(Format.bytes(bytes)), connection kept (resumes the same response)"
        case .transferContinued(let id):
            return "#\(id) transfer went on with the kept connection (no new request)"
        case .transferCompleted(let id, let bytes, let sha, let file, _, let host, let directory):
            let place = directory.map { "'\($0)/\(file)'" } ?? "'\(file)'"
            return
                "#\(id) finished: \(Format.bytes(bytes)), sha256 \(Format.shortHash(sha)), saved as \(place)"
                + (host.map { " on host \($0)" } ?? "")
        case .transferClaimed(let id, let host, let leaseMs, let expired):
            let lease = String(format: "%g s", Double(leaseMs) / 1000)
            guard let expired else { return "#\(id) claimed by host \(host), lease \(lease)" }
            return "#\(id) taken over by host \(host), lease \(lease): the lease of host \(expired) ran out,"
                + " its partial data is left there, the download starts from zero"
        case .transferFailed(let id, let failure, let bytes):
            return
                "#\(id) failed: \(Format.failure(failure)) (\(failure.retryable ? "retryable" : "not retryable"))"
                + (bytes > 0 ? " at \(Format.bytes(bytes))" : "")
        case .transferRetrying(let id, let failure, let bytes, let delayMs):
            return "#\(id) attempt failed: \(Format.failure(failure))"
                + (bytes > 0 ? " at \(Format.bytes(bytes))" : "")
                + ", retrying in \(String(format: "%.1f", Double(delayMs) / 1000)) s"
        case .transferConnections(let id, _, let detail):
            return "#\(id) \(detail)"
        case .hookFinished(let id, let hook, let command, let result, let line):
            return "#\(id) \(hook.settingName) hook \(command) " + Self.hookResult(result)
                + (line.isEmpty ? "" : ": \(line)")
        default: return nil
        }
    }
}
