import DownloadLedger

/// Events in words (`log`, `audit`, what a command did) and as JSON lines.
enum EventWords {
    /// A sentence saying what the event did. `before` is the list just before it, when known (for section
    /// titles and names); without it the sentence uses numbers only.
    ///
    /// An undo or redo says which action it undid or redid, in words when `before` knows it, then what came back.
    ///
    /// `outline`: the add's, when the entry was read for one task's sake and holds only that task (`audit`).
    static func describe(_ entry: Entry, before: DownloadList? = nil, outline: AddOutline? = nil) -> String {
        let via = entry.origin.map { " (via \($0))" } ?? ""
        let sentence = outline.map(added) ?? text(entry.event, before: before)
        if let undone = entry.undoes {
            let action = before?.undoStack.last { $0.seq == undone }?.action
            return "undid #\(undone)" + (action.map { " (\(text($0, before: nil)))" } ?? "") + ": " + sentence
                + via
        }
        if let redone = entry.redoes { return "redid #\(redone): " + sentence + via }
        return sentence + via
    }

    /// The width of the kind column: the longest kind in the catalog.
    static let kindWidth = EventKind.allCases.map(\.rawValue.count).max() ?? 18

    /// A value setting's change in words; a setting without words of its own here says its name and value.
    static func setting(_ setting: Setting, _ value: SettingValue) -> String {
        if let words = settingWords[setting] { return words(value.number) }
        let shown = SettingCommand.valueSetting(setting).shown(value)
        return value.isDefault
            ? "\(setting.spec.name): \(shown)" : "\(setting.spec.name) set to \(printable(shown))"
    }

    /// The settings whose change says more than their name and value.
    private static let settingWords: [Setting: @Sendable (Int64) -> String] = [
        .maxDownloads: { n in
            n == 0
                ? "no limit on simultaneous downloads" : "at most \(n) download\(n == 1 ? "" : "s") at a time"
        },
        .speedLimit: { n in n == 0 ? "speed limit removed" : "speed limit set to \(Format.rate(Double(n)))" },
        .maxSize: { n in
            n == 0
                ? "max-size: the default (16 GiB for a body without a length, no maximum for an announced size)"
                : "max-size set to \(Format.bytes(n)): a larger file fails"
        },
        .connectionsPerServer: { n in
            n == 0
                ? "max-connection-per-server: the default (\(TransferConfig().connectionsPerServer))"
                : "max-connection-per-server set to \(n): at most \(n) connection\(n == 1 ? "" : "s") to one server"
        },
        .minSplitSize: { n in
            n == 0
                ? "min-split-size: the default (\(Format.binaryBytes(TransferConfig().minPieceSize)))"
                : "min-split-size set to \(Format.binaryBytes(n)): no piece smaller"
        },
        .connections: { n in
            n == 0
                ? "connections per download: the downloader decides" : "connections per download set to \(n)"
        },
    ]

    /// Task ids in words, a run of three or more consecutive ids as a range: `#1–#3 #5 #7 #8` (an en dash; one
    /// add of 100,000 URLs reads `#1–#100000`). Every sentence naming tasks says them this way; JSON keeps the ids.
    static func ids(_ ids: [TaskID]) -> String {
        var parts: [String] = []
        var i = ids.startIndex
        while i < ids.endIndex {
            var j = i
            while j + 1 < ids.endIndex, ids[j] < TaskID.max, ids[j + 1] == ids[j] + 1 { j += 1 }
            if j - i >= 2 {
                parts.append("#\(ids[i])–#\(ids[j])")
            } else {
                parts.append(contentsOf: ids[i...j].map { "#\($0)" })
            }
            i = j + 1
        }
        return parts.joined(separator: " ")
    }

    private static func title(_ section: Int, _ list: DownloadList?) -> String {
        guard let list, list.sections.indices.contains(section) else { return "" }
        return " '\(list.sections[section].title)'"
    }

    /// "; kept the file of #3 ('a.iso'): not the file downloaded (replaced or changed since)", or "" for none.
    private static func keptNote(_ kept: [TaskID], _ list: DownloadList?) -> String {
        guard !kept.isEmpty else { return "" }
        let names = kept.map { id in
            list?.tasks[id]?.fileName.map { "#\(id) ('\(printable($0))')" } ?? "#\(id)"
        }
        let files = kept.count == 1 ? "the file of" : "the files of"
        return
            "; kept \(files) \(names.joined(separator: ", ")): not the file downloaded (replaced or changed since)"
    }

    /// An add in words, from its outline: the same sentence whether the add was read whole (`log`) or for one of
    /// its tasks (`audit`). One wording whatever is known about the list before (log, log --json and audit agree).
    static func added(_ outline: AddOutline) -> String {
        // " with header 'X-A: 1', user-agent 'curl'" for an add whose tasks share options ("" for none).
        var opts = ""
        if let first = outline.firstOptions, !first.isEmpty {
            opts = outline.optionsShared ? " with " + options(first) : " (with options)"
        }
        if !outline.isGroups, let g = outline.groups.first {
            let what = "added " + ids(g.ids)
            if let newTitle = g.newSectionTitle {
                return what + " to new section \(g.section) '\(newTitle)'" + opts
            }
            return what + " to section \(g.section) at index \(g.index)" + opts
        }
        return "added "
            + zip(outline.groups, outline.finalSections).map { g, section in
                let title = outline.groups.first { $0.ids == g.ids }?.newSectionTitle
                return ids(g.ids)
                    + (title.map { " to new section \(section) '\($0)'" } ?? " to section \(section)")
            }.joined(separator: ", ") + opts
    }

    /// The options in words, credentials redacted: `header 'Cookie: [redacted]', max-speed 1.0 MB/s`.
    static func options(_ o: TaskOptions) -> String {
        o.redactedLines.map { key, value in
            switch key {
            case "max-speed": return "max-speed \(Format.rate(Double(o.maxSpeed ?? 0)))"
            case "max-size": return "max-size \(Format.bytes(o.maxSize ?? 0))"
            case "min-split": return "min-split \(Format.binaryBytes(o.minSplitSize ?? 0))"
            case "connections", "per-server", "proxy", "mirror", "login": return "\(key) \(printable(value))"
            default: return "\(key) '\(printable(value))'"
            }
        }.joined(separator: ", ")
    }

    /// `name` with control characters shown as `?` (a name read from an edited ledger may hold any).
    private static func printable(_ name: String) -> String {
        String(
            String.UnicodeScalarView(
                name.unicodeScalars.map { $0.properties.generalCategory == .control ? "?" : $0 }))
    }

    private static func text(_ event: Event, before list: DownloadList?) -> String {
        switch event {
        case .ledgerCreated(let dir, let max, let autoRemove):
            return
                "ledger created: downloads go to \(dir), \(max == 0 ? "no limit" : "at most \(max)") at a time"
                + (autoRemove ? ", emptied sections removed automatically" : "")
        case .tasksAdded, .groupsAdded:
            return AddOutline(event).map(added) ?? ""
        case .tasksRemoved(let removed, let sections):
            return "took \(ids(removed)) out of the list"
                + sections.map { ", and the empty section \($0)" + title($0, list) }.joined()
        case .tasksMoved(let moved, let section, let index):
            return "moved \(ids(moved)) to \(section):\(index)" + title(section, list)
        case .tasksPlaced(let placements, let recreating):
            return "put back "
                + placements.map { "#\($0.id) at \($0.section):\($0.index) '\($0.sectionTitle)'" }.joined(
                    separator: ", ")
                + recreating.compactMap { s in
                    placements.first { $0.section == s }.map {
                        ", section \(s) '\($0.sectionTitle)' recreated"
                    }
                }.joined()
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
        case .sectionSorted(let index, let order):
            return "sorted section \(index)" + title(index, list) + ": " + ids(order)
        case .tasksTrashed, .tasksDeleted, .filesDeleted, .tasksRestored, .trashPurged, .tasksErased,
            .tasksRedownloaded:
            return deletionText(event, before: list)
        case .taskRenamed(let id, let name, let file, _):
            return "renamed #\(id) to '\(name)'" + (file == nil ? "" : " (file renamed on disk)")
        case .tasksPaused(let paused): return "paused \(ids(paused))"
        case .tasksResumed(let resumed): return "resumed \(ids(resumed))"
        case .tasksStopped(let stopped): return "stopped \(ids(stopped))"
        case .statesRestored(let restored, let states):
            return "put back states: "
                + zip(restored, states).map { "#\($0) \($1.rawValue)" }.joined(separator: ", ")
        case .settingChanged(let setting, let value):
            return Self.setting(setting, value)
        case .directoryChanged(let path):
            return "download folder set to \(path): for tasks added from now on"
        case .taskOptionsChanged(let id, let options):
            return options.isEmpty
                ? "#\(id) options cleared" : "#\(id) options set: " + Self.options(options)
        case .sortChanged(let mode, let descending):
            return mode == .manual
                ? "back to the manual order" : "sorted by \(mode.rawValue)\(descending ? ", descending" : "")"
        case .emptySectionsPolicyChanged(let on):
            return on ? "empty sections are now removed automatically" : "empty sections are now kept"
        case .trashPolicyChanged(let on):
            return on
                ? "deletes go to the to-delete list again"
                : "the to-delete list is off: deletes erase at once"
        case .hookChanged(let hook, let command):
            return command.map { "\(hook.settingName) set to \($0)" } ?? "\(hook.settingName): none"
        case .transferStarted, .transferResolved, .transferPaused, .transferHeld, .transferContinued,
            .transferCompleted, .transferFailed, .transferRetrying, .transferConnections, .hookFinished:
            return factText(event)
        }
    }

    /// A delete, restore, purge or redownload in words.
    private static func deletionText(_ event: Event, before list: DownloadList?) -> String {
        switch event {
        case .tasksTrashed(let entries, _, let removing):
            return "put \(ids(entries.map(\.id))) back in the to-delete list"
                + removing.map { ", removed section \($0)" + title($0, list) + " again" }.joined()
        case .tasksDeleted(let deleted, let modes):
            let mode = modes.count == 1 ? (modes[0] == .all ? " (record and file)" : " (record only)") : ""
            return "moved \(ids(deleted)) to the to-delete list" + mode
        case .filesDeleted(let deleted, let kept):
            return "deleted the files of \(ids(deleted)) (the tasks wait again)" + keptNote(kept, list)
        case .tasksRestored(let restored, let to, let recreating):
            if let to { return "restored \(ids(restored)) to \(to)" + title(to.section, list) }
            let entries = list.map { l in restored.compactMap { id in l.trash.first { $0.id == id } } } ?? []
            guard entries.count == restored.count else {
                return "restored \(ids(restored)) to where \(restored.count == 1 ? "it was" : "they were")"
                    + recreating.map { ", recreating section \($0)" }.joined()
            }
            return "restored "
                + entries.map { "#\($0.id) to \($0.section):\($0.index) '\($0.sectionTitle)'" }.joined(
                    separator: ", ")
                + recreating.compactMap { s in
                    entries.first { $0.section == s }.map { ", section \(s) '\($0.sectionTitle)' recreated" }
                }.joined()
        case .trashPurged(let purged, let kept):
            return "purged \(ids(purged)) for good" + keptNote(kept, list)
        case .tasksErased(let erased, let modes, let kept):
            let mode = modes.count == 1 ? (modes[0] == .all ? " (record and file)" : " (record only)") : ""
            return "deleted \(ids(erased)) at once, without the to-delete list" + mode + keptNote(kept, list)
        case .tasksRedownloaded(let reset, let kept):
            return "reset \(ids(reset)) to download again from zero" + keptNote(kept, list)
        default:
            return ""
        }
    }

    /// A downloader's fact in words.
    private static func factText(_ event: Event) -> String {
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
        case .transferCompleted(let id, let bytes, let sha, let file, _):
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
        case .transferConnections(let id, _, let detail):
            return "#\(id) \(detail)"
        case .hookFinished(let id, let hook, let command, let result, let line):
            return "#\(id) \(hook.settingName) hook \(command) " + Self.hookResult(result)
                + (line.isEmpty ? "" : ": \(line)")
        default:
            return ""
        }
    }

    /// How a hook ended, in words: `exited 0`, `was killed after its time limit (60 s)`.
    static func hookResult(_ result: HookResult) -> String {
        switch result {
        case .exited(let status): return "exited \(status)"
        case .signalled(let signal): return "was ended by signal \(signal)"
        case .timedOut(let ms):
            let limit =
                ms < 1000 ? "\(ms) ms" : ms % 1000 == 0 ? "\(ms / 1000) s" : "\(Double(ms) / 1000) s"
            return "was killed after its time limit (\(limit))"
        case .notStarted(let reason): return "could not start (\(reason))"
        }
    }

    /// One `log --json` line: seq, time, timeMs, kind, tasks, undoes, redoes, payload (the stored fields).
    static func json(_ logged: LoggedEntry, before: DownloadList? = nil) -> JSON {
        let entry = logged.entry
        var payload = JSON.parse(entry.encodedPayload()) ?? .null
        if case .object(let fields) = payload {
            payload = .object(
                fields.filter { $0.key != "undoes" && $0.key != "redoes" && $0.key != "origin" })
        }
        return .obj([
            "seq": .int(logged.seq),
            "time": .string(Format.iso(logged.time)),
            "timeMs": .int(logged.time),
            "kind": .string(entry.event.kind),
            "tasks": .ids(entry.event.taskIDs),
            "undoes": .opt(entry.undoes),
            "redoes": .opt(entry.redoes),
            "origin": .opt(entry.origin),
            "text": .string(describe(entry, before: before)),
            "payload": payload,
        ])
    }

    /// One human log line: `#12  2026-11-29 18:00:01  tasksMoved          moved #2 to 1:0`.
    /// `outline` as for ``describe(_:before:outline:)``.
    static func line(
        _ logged: LoggedEntry, before: DownloadList?, outline: AddOutline? = nil, console: Console
    )
        -> String
    {
        let seq = Format.right("#\(logged.seq)", 6)
        let kind = Format.fit(logged.entry.event.kind, kindWidth)
        let styledKind =
            logged.entry.event.isTransferFact ? console.style(kind, .dim) : console.style(kind, .cyan)
        let words = describe(logged.entry, before: before, outline: outline)
        return "\(seq)  \(Format.local(logged.time))  \(styledKind) \(words)"
    }
}
