import LedgerCore

/// The screen as lines: a header, the totals, the list area (with any overlay), the status line, the hint bar.
extension UIModel {
    /// Exactly `size.rows` lines of exactly `size.columns` columns each (escape sequences aside).
    /// - Complexity: O(rows on screen + sections): only the visible rows are formatted.
    public func lines() -> [String] {
        let width = size.columns
        var out = [headerBar(width), totalsLine(width)]
        out += listArea(width)
        out.append(statusLine(width))
        out.append(hintBar(width))
        if out.count > size.rows {
            // Too few rows: keep the header, the list, and the status line.
            out = Array(out.prefix(max(0, size.rows - 1))) + (size.rows > 0 ? [statusLine(width)] : [])
        }
        return out
    }

    private func headerBar(_ width: Int) -> String {
        var line = Line(width: width, color: color, base: [.reverse])
        if let h = history {
            line.add(" HISTORY  after #\(h.seq) of \(h.head) · \(formatTime(h.time))", .bold)
            line.add("  (read-only)")
            return line.finished()
        }
        line.add(" dledger ui", .bold)
        let view =
            filter == .trash
            ? "to-delete list"
            : (list.sortMode == .manual
                ? "manual order" : "by \(list.sortMode.rawValue)\(list.sortDescending ? " ↓" : " ↑")")
                + filterWords + (subsection != nil ? ", '\(rows.title(ofGroup: 0))' only" : "")
        line.add("  " + view)
        let runnerWords: String
        switch runner {
        case .starting: runnerWords = "starting the downloader"
        case .here(let pid): runnerWords = "downloading here (pid \(pid))"
        case .elsewhere(let pid): runnerWords = "watching: pid \(pid.map(String.init) ?? "?") downloads"
        case .nobody: runnerWords = "not downloading"
        }
        let right = "seq \(list.head) · \(runnerWords) "
        let room = line.room
        if TextWidth.width(right) + 2 <= room {
            line.add(String(repeating: " ", count: room - TextWidth.width(right)))
            line.add(right)
        } else {
            line.add("  " + right)
        }
        return line.finished()
    }

    private var filterWords: String {
        switch filter {
        case .all, .trash: return ""
        case .unfinished: return ", unfinished only"
        case .finished: return ", finished only"
        case .finishedWithin(let d): return ", finished in \(d) days"
        }
    }

    private func totalsLine(_ width: Int) -> String {
        var line = Line(width: width, color: color)
        if let h = history {
            line.add(" #\(h.seq) ", .bold)
            line.add(h.words)
            return line.finished()
        }
        var parts: [(String, Style)] = []
        for s in [TaskState.downloading, .waiting, .paused, .stopped, .failed, .finished] {
            let n = counts[s]
            if n > 0 { parts.append(("\(n) \(s.rawValue)", Self.stateStyle(s))) }
        }
        if parts.isEmpty { parts.append(("no tasks", .dim)) }
        line.add(" ")
        for (i, p) in parts.enumerated() {
            if i > 0 { line.add(" · ", .dim) }
            line.add(p.0, p.1)
        }
        let speed = activity.values.reduce(0.0) { $0 + $1.speed }
        var extra = [
            Units.rate(speed),
            list.maxDownloads == 0 ? "no limit on downloads" : "max \(list.maxDownloads) at a time",
            list.speedLimit == 0 ? "no speed limit" : "limit \(Units.rate(Double(list.speedLimit)))",
        ]
        if !list.trash.isEmpty { extra.append("\(list.trash.count) to delete") }
        if !selection.isEmpty { extra.append("\(selection.count) selected") }
        for e in extra where TextWidth.width(e) + 3 <= line.room {
            line.add(" │ ", .dim)
            line.add(e)
        }
        return line.finished()
    }

    private func listArea(_ width: Int) -> [String] {
        let height = listHeight
        if case .audit(let id, let lines, let scroll) = overlay {
            if width >= 90 {
                let paneWidth = min(70, width / 2)
                let left = listRows(width - paneWidth - 1, height: height)
                let right = auditPane(id, lines, scroll: scroll, width: paneWidth, height: height)
                let bar = color ? "\u{1B}[2m│\u{1B}[0m" : "│"
                return zip(left, right).map { $0 + bar + $1 }
            }
            return auditPane(id, lines, scroll: scroll, width: width, height: height)
        }
        var rowsShown = listRows(width, height: height)
        let panel: [String]
        switch overlay {
        case .help(let scroll):
            return panelLines(
                ["Keys (j/k scroll, Esc closes)"] + Array(KeyHelp.lines.dropFirst(scroll)), width: width,
                height: height)
        case .deleteMenu(let ids):
            let what = ids.count == 1 ? "#\(ids[0])" : "\(ids.count) tasks"
            panel = [
                "Delete \(what):", "  1  Move to the to-delete list (record and file)",
                "  2  Move to the to-delete list, keep the file",
                "  3  Delete the file only (the task stays)",
                "  Esc  cancel",
            ]
        case .sectionPicker(_, let at):
            panel =
                ["Move to section (digit, or j/k and Enter; Esc cancels):"]
                + list.sections.enumerated().map { i, s in (i == at ? "> " : "  ") + "\(i) \(s.title)" }
        default:
            return rowsShown
        }
        let box = panelLines(panel, width: width, height: min(height, panel.count + 1))
        rowsShown.replaceSubrange((height - box.count)..<height, with: box)
        return rowsShown
    }

    /// Lines of an overlay panel: a rule on top, then the text, padded to `height`.
    private func panelLines(_ text: [String], width: Int, height: Int) -> [String] {
        var out: [String] = []
        var rule = Line(width: width, color: color)
        rule.add(String(repeating: "─", count: width), .dim)
        out.append(rule.finished())
        for t in text.prefix(max(0, height - 1)) {
            var line = Line(width: width, color: color)
            line.add(t, t.hasPrefix(" ") ? nil : .bold)
            out.append(line.finished())
        }
        while out.count < height { out.append(String(repeating: " ", count: width)) }
        return out
    }

    private func auditPane(_ id: TaskID, _ lines: [String], scroll: Int, width: Int, height: Int) -> [String]
    {
        let name = list.tasks[id].map(DownloadList.shownName) ?? ""
        var title = Line(width: width, color: color)
        title.add(" Audit #\(id) \(name)", .bold)
        var out = [title.finished()]
        for text in lines.dropFirst(scroll).prefix(max(0, height - 1)) {
            var line = Line(width: width, color: color)
            line.add(" " + text)
            out.append(line.finished())
        }
        while out.count < height { out.append(String(repeating: " ", count: width)) }
        return out
    }

    /// The visible rows of the list (or of the history point).
    func listRows(_ width: Int, height: Int) -> [String] {
        let shown = shownList
        var out: [String] = []
        out.reserveCapacity(height)
        if rows.count == 0 {
            var line = Line(width: width, color: color)
            line.add(
                filter == .trash
                    ? "  The to-delete list is empty."
                    : filter == .all
                        ? "  The list is empty: a adds URLs, N into a new section."
                        : "  No task matches the filter (f).",
                .dim)
            out.append(line.finished())
        }
        for r in top..<(top + height) where r < rows.count {
            switch rows.row(r, in: shown) {
            case .header(let title, let section, let count, _)?:
                out.append(
                    headerLine(
                        title: title, section: section, count: count, width: width, isCursor: r == cursor))
            case .task(let id, _)?:
                out.append(taskLine(id, in: shown, width: width, isCursor: r == cursor))
            case nil:
                out.append(String(repeating: " ", count: width))
            }
        }
        while out.count < height { out.append(String(repeating: " ", count: width)) }
        return out
    }

    private func statusLine(_ width: Int) -> String {
        var line = Line(width: width, color: color)
        switch overlay {
        case .prompt(let p):
            if case .renameTask = p.purpose {
                line.add(p.label + " edit the name in its row; Enter renames, Esc cancels", .bold)
                return line.finished()
            }
            line.add(p.label + " ", .bold)
            let text = p.value.replacingOccurrences(of: "\n", with: " ⏎ ")
            // Keep the end of long text (the caret) visible.
            let room = max(1, line.room - 1)
            let w = TextWidth.width(text)
            line.add(w > room ? "…" + String(text.suffix(room - 1)) : text)
            line.add("_", .bold)
            return line.finished()
        case .confirm(let question, _):
            line.add(question, .yellow)
            return line.finished()
        default: break
        }
        if let m = message {
            if m.isError {
                line.add("error: ", .red)
                line.add(m.text, .red)
            } else {
                line.add(m.text)
            }
        }
        return line.finished()
    }

    private func hintBar(_ width: Int) -> String {
        var line = Line(width: width, color: color, base: [.reverse])
        let hints: [String]
        switch overlay {
        case .prompt(let p):
            hints =
                p.isMultiLine ? ["Enter adds", "paste many lines", "Esc cancels"] : ["Enter", "Esc cancels"]
        case .help, .audit: hints = ["j/k scroll", "Esc closes"]
        case .deleteMenu: hints = ["1 2 3 choose", "Esc cancels"]
        case .confirm: hints = ["y yes", "any other key: no"]
        case .sectionPicker: hints = ["0-9 or Enter choose", "Esc cancels"]
        case .none:
            if history != nil {
                hints = ["←/→ event", "[ ] minute", ": jump", "i audit", "Esc now", "q quit"]
            } else if filter == .trash {
                hints = ["r restore", "d purge", "A all", "t list", "u undo", "? help", "q quit"]
            } else {
                hints = [
                    "? help", "a add", "space select", "Enter pause/resume", "d delete", "e rename", "u undo",
                    "h history", "t to-delete", "q quit",
                ]
            }
        }
        for h in hints where TextWidth.width(h) + 2 <= line.room { line.add(" " + h + " ") }
        return line.finished()
    }
}
