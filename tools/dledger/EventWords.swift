import DownloadLedger

/// Events in words (`log`, `audit`, what a command did) and as JSON lines.
enum EventWords {
    /// A sentence saying what the event did. `before` is the list just before it, when known (for section
    /// titles and names); without it the sentence uses numbers only.
    static func describe(_ entry: Entry, before: DownloadList? = nil) -> String {
        let sentence = text(entry.event, before: before)
        if let undone = entry.undoes { return sentence + " (undoes #\(undone))" }
        if let redone = entry.redoes { return sentence + " (redoes #\(redone))" }
        return sentence
    }

    static func ids(_ ids: [TaskID]) -> String { ids.map { "#\($0)" }.joined(separator: " ") }

    private static func title(_ section: Int, _ list: DownloadList?) -> String {
        guard let list, list.sections.indices.contains(section) else { return "" }
        return " '\(list.sections[section].title)'"
    }

    private static func text(_ event: Event, before list: DownloadList?) -> String {
        switch event {
        case .ledgerCreated(let dir, let max):
            return
                "ledger created: downloads go to \(dir), \(max == 0 ? "no limit" : "at most \(max)") at a time"
        case .tasksAdded(let tasks, let section, let index, let newTitle):
            let what = "added " + ids(tasks.map(\.id))
            if let newTitle { return what + " to new section \(section) '\(newTitle)'" }
            let count = list.flatMap {
                $0.sections.indices.contains(section) ? $0.sections[section].tasks.count : nil
            }
            let at = count == index ? "" : " at index \(index)"
            return what + " to section \(section)" + title(section, list) + at
        case .tasksRemoved(let removed, let section):
            return "took \(ids(removed)) out of the list"
                + (section.map { ", and the empty section \($0)" } ?? "")
        case .tasksTrashed(let entries, _, _):
            return "put \(ids(entries.map(\.id))) back in the to-delete list"
        case .tasksMoved(let moved, let section, let index):
            return "moved \(ids(moved)) to \(section):\(index)"
        case .tasksPlaced(let placements, _):
            return "put back "
                + placements.map { "#\($0.id) at \($0.section):\($0.index)" }.joined(separator: ", ")
        case .sectionInserted(let index, let t):
            return "inserted section \(index) '\(t)'"
        case .sectionRenamed(let index, let t):
            return "renamed section \(index)"
                + title(index, list).replacingOccurrences(of: " '", with: " from '")
                + " to '\(t)'"
        case .sectionMoved(let from, let to):
            return "moved section \(from)" + title(from, list) + " to \(to)"
        case .sectionRemoved(let index):
            return "removed section \(index)" + title(index, list)
        case .tasksDeleted(let deleted, let modes):
            let mode = modes.count == 1 ? (modes[0] == .all ? " (record and file)" : " (record only)") : ""
            return "moved \(ids(deleted)) to the to-delete list" + mode
        case .filesDeleted(let deleted):
            return "deleted the files of \(ids(deleted)) (the tasks wait again)"
        case .tasksRestored(let restored, let to, _):
            return "restored \(ids(restored)) "
                + (to.map { "to \($0)" } ?? (restored.count == 1 ? "to where it was" : "to where they were"))
        case .trashPurged(let purged):
            return "purged \(ids(purged)) for good"
        case .tasksRedownloaded(let reset):
            return "reset \(ids(reset)) to download again from zero"
        case .taskRenamed(let id, let name, let file, _):
            return "renamed #\(id) to '\(name)'" + (file == nil ? "" : " (file renamed on disk)")
        case .tasksPaused(let paused): return "paused \(ids(paused))"
        case .tasksResumed(let resumed): return "resumed \(ids(resumed))"
        case .tasksStopped(let stopped): return "stopped \(ids(stopped))"
        case .statesRestored(let restored, let states):
            return "put back states: "
                + zip(restored, states).map { "#\($0) \($1.rawValue)" }.joined(separator: ", ")
        case .maxDownloadsChanged(let n):
            return n == 0
                ? "no limit on simultaneous downloads" : "at most \(n) download\(n == 1 ? "" : "s") at a time"
        case .speedLimitChanged(let n):
            return n == 0 ? "speed limit removed" : "speed limit set to \(Format.rate(Double(n)))"
        case .sortChanged(let mode, let descending):
            return mode == .manual
                ? "back to the manual order" : "sorted by \(mode.rawValue)\(descending ? ", descending" : "")"
        case .emptySectionsPolicyChanged(let on):
            return on ? "empty sections are now removed automatically" : "empty sections are now kept"
        case .transferStarted(let id, let attempt, let offset):
            let from = offset > 0 ? "resumed at \(Format.bytes(offset)) (Range request)" : "started from zero"
            return "#\(id) \(from), attempt \(attempt)"
        case .transferResolved(let id, let size, let serverName, _, let ranges, let restarted):
            var parts = [size.map(Format.bytes) ?? "size unknown", ranges ? "ranges accepted" : "no ranges"]
            if let serverName { parts.append("server name '\(serverName)'") }
            if let restarted { parts.append("restarted from zero: \(restarted)") }
            return "#\(id) resolved: " + parts.joined(separator: ", ")
        case .transferPaused(let id, let bytes):
            return "#\(id) transfer stopped at \(Format.bytes(bytes))"
        case .transferCompleted(let id, let bytes, let sha, let file):
            return
                "#\(id) finished: \(Format.bytes(bytes)), sha256 \(Format.shortHash(sha)), saved as '\(file)'"
        case .transferFailed(let id, let failure, let bytes):
            return
                "#\(id) failed: \(Format.failure(failure)) (\(failure.retryable ? "retryable" : "not retryable"))"
                + (bytes > 0 ? " at \(Format.bytes(bytes))" : "")
        case .transferRetrying(let id, let failure, let bytes, let delayMs):
            return "#\(id) attempt failed: \(Format.failure(failure))"
                + (bytes > 0 ? " at \(Format.bytes(bytes))" : "")
                + ", retrying in \(String(format: "%.1f", Double(delayMs) / 1000)) s"
        }
    }

    /// One `log --json` line: seq, time, timeMs, kind, tasks, undoes, redoes, payload (the stored fields).
    static func json(_ logged: LoggedEntry) -> JSON {
        let entry = logged.entry
        var payload = JSON.parse(entry.encodedPayload()) ?? .null
        if case .object(let fields) = payload {
            payload = .object(fields.filter { $0.key != "undoes" && $0.key != "redoes" })
        }
        return .obj([
            "seq": .int(logged.seq),
            "time": .string(Format.iso(logged.time)),
            "timeMs": .int(logged.time),
            "kind": .string(entry.event.kind),
            "tasks": .ids(entry.event.taskIDs),
            "undoes": .opt(entry.undoes),
            "redoes": .opt(entry.redoes),
            "text": .string(describe(entry)),
            "payload": payload,
        ])
    }

    /// One human log line: `#12  2026-11-29 18:00:01  tasksMoved          moved #2 to 1:0`.
    static func line(_ logged: LoggedEntry, before: DownloadList?, console: Console) -> String {
        let seq = Format.right("#\(logged.seq)", 6)
        let kind = Format.fit(logged.entry.event.kind, 18)
        let styledKind =
            logged.entry.event.isTransferFact ? console.style(kind, .dim) : console.style(kind, .cyan)
        return "\(seq)  \(Format.local(logged.time))  \(styledKind) \(describe(logged.entry, before: before))"
    }
}
