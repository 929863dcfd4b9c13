import DownloadLedger

/// Events in words (`log`, `audit`, what a command did) and as JSON lines.
public enum EventWords {
    /// A sentence saying what the event did. `before` is the list just before it, when known (for section
    /// titles and names); without it the sentence uses numbers only.
    ///
    /// An undo or redo says which action it undid or redid, in words when `before` knows it, then what came back.
    ///
    /// `outline`: the add's, when the entry was read for one task's sake and holds only that task (`audit`).
    public static func describe(_ entry: Entry, before: DownloadList? = nil, outline: AddOutline? = nil)
        -> String
    {
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
    public static let kindWidth = EventKind.allCases.map(\.rawValue.count).max() ?? 18

    /// Task ids in words, a run of three or more consecutive ids as a range: `#1–#3 #5 #7 #8` (an en dash; one
    /// add of 100,000 URLs reads `#1–#100000`). Every sentence naming tasks says them this way; JSON keeps the ids.
    public static func ids(_ ids: [TaskID]) -> String {
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

    static func title(_ section: Int, _ list: DownloadList?) -> String {
        guard let list, list.sections.indices.contains(section) else { return "" }
        return " '\(list.sections[section].title)'"
    }

    /// "; kept the file of #3 ('a.iso'): not the file downloaded (replaced or changed since)", or "" for none.
    static func keptNote(_ kept: [TaskID], _ list: DownloadList?) -> String {
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
    public static func added(_ outline: AddOutline) -> String {
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
    public static func options(_ o: TaskOptions) -> String {
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
    static func printable(_ name: String) -> String {
        String(
            String.UnicodeScalarView(
                name.unicodeScalars.map { $0.properties.generalCategory == .control ? "?" : $0 }))
    }

    private static func text(_ event: Event, before list: DownloadList?) -> String {
        actionText(event, before: list) ?? settingText(event) ?? factText(event) ?? ""
    }

    /// How a hook ended, in words: `exited 0`, `was killed after its time limit (60 s)`.
    public static func hookResult(_ result: HookResult) -> String {
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
    public static func json(_ logged: LoggedEntry, before: DownloadList? = nil) -> JSONValue {
        let entry = logged.entry
        var payload = JSONValue(payload: entry.encodedPayload()) ?? .null
        if case .object(let fields) = payload {
            payload = .object(
                fields.filter { $0.0 != "undoes" && $0.0 != "redoes" && $0.0 != "origin" })
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
}
