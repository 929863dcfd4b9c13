import LedgerCore

/// The screen as lines: a header, the totals, the table's header row, the list area (with any overlay or pane), the
/// status line, the key bar.
extension UIModel {
    /// Exactly `size.rows` lines of exactly `size.columns` columns each (escape sequences aside).
    /// - Complexity: O(rows on screen + sections): only the visible rows are formatted.
    public func lines() -> [String] {
        let width = size.columns
        let layout = tableLayout(width)
        var out = [headerBar(width), totalsLine(width), columnHeader(layout, width: width)]
        out += listArea(width, layout: layout)
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
        if let outage {
            // The database is away: that is what the header says, the view only where there is room for both.
            let right = outage + " "
            if TextWidth.width(view) + 4 + TextWidth.width(right) <= line.room { line.add("  " + view) }
            let room = line.room
            line.add(String(repeating: " ", count: max(2, room - TextWidth.width(right))))
            line.add(right, .yellow)
            return line.finished()
        }
        line.add("  " + view)
        let runnerWords: String
        switch runner {
        case .starting: runnerWords = "starting the downloader"
        case .here(let pid): runnerWords = "downloading here (pid \(pid))"
        case .elsewhere(let pid): runnerWords = "watching: pid \(pid.map(String.init) ?? "?") downloads"
        case .nobody: runnerWords = "not downloading"
        }
        let right = (ledgerIsNew ? "new ledger" : "seq \(list.head)") + " · \(runnerWords) "
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

    private func listArea(_ width: Int, layout: TableLayout) -> [String] {
        let height = listHeight
        if paneRows > 0 {
            var out = listRows(width, height: height, layout: layout)
            if case .audit(let id, _, let scroll) = overlay {
                out += pane(
                    title: "Audit #\(id) \(paneName(id))", paneText(width), scroll: scroll, width: width)
            } else if case .details(let id, let scroll, _) = overlay {
                out += pane(
                    title: "Details #\(id) \(paneName(id))", paneText(width), scroll: scroll, width: width)
            }
            return out
        }
        var rowsShown = listRows(width, height: height, layout: layout)
        let panel: [String]
        switch overlay {
        case .help(let scroll):
            return panelLines(
                ["Keys (j/k scroll, Esc closes)"] + Array(KeyHelp.lines(width: width).dropFirst(scroll)),
                width: width, height: height)
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

    private func paneName(_ id: TaskID) -> String {
        shownList.tasks[id].map(DownloadList.shownName) ?? list.tasks[id].map(DownloadList.shownName) ?? ""
    }

    /// The pane under the list (the audit trail, a task's details): as wide as the list, its title on a rule,
    /// then its lines from `scroll` on, wrapped to the width rather than cut.
    private func pane(title: String, _ text: [String], scroll: Int, width: Int) -> [String] {
        var head = Line(width: width, color: color)
        head.add("─ ", .dim)
        head.add(title, .bold)
        head.add(" " + String(repeating: "─", count: max(0, head.room - 1)), .dim)
        var out = [head.finished()]
        for t in text.dropFirst(scroll).prefix(max(0, paneRows - 1)) {
            var line = Line(width: width, color: color)
            line.add(t)
            out.append(line.finished())
        }
        while out.count < paneRows { out.append(String(repeating: " ", count: width)) }
        return out
    }

    /// The open pane's text wrapped to `width`: one entry per screen line.
    func paneText(_ width: Int) -> [String] {
        switch overlay {
        case .audit(_, let lines, _):
            return lines.flatMap { TextWidth.wrap(" " + $0, width, indent: 3) }
        case .details(let id, _, let file):
            return detailLines(id, file: file).flatMap { TextWidth.wrap(" " + $0, width, indent: 13) }
        default:
            return []
        }
    }

    /// The visible rows of the list (or of the history point).
    func listRows(_ width: Int, height: Int, layout: TableLayout) -> [String] {
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
                out.append(taskLine(id, in: shown, layout: layout, width: width, isCursor: r == cursor))
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
            line.add(p.purpose == .search ? p.label : p.label + " ", .bold)
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
        } else if overlay == .none, let id = cursorTaskID, let t = shownList.tasks[id], t.state == .failed {
            // The row may cut the reason short: here it is whole.
            line.add("#\(id) failed: ", .red)
            line.add(Units.failure(t.failure), .red)
        }
        return line.finished()
    }
}
