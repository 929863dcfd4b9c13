import LedgerCore
import LedgerTransfer

/// A list row in the manner of SDE's activity cell, as a table: name, state, progress and bar, "10.2 MB / 117 MB",
/// speed, ETA, a failure in words; the columns a ``TableLayout`` gives. Only the rows on screen are formatted.
extension UIModel {
    func idWidth(_ list: DownloadList) -> Int { "#\(max(1, list.nextID - 1))".count }

    /// The table's layout for the rows on screen: the name column as wide as the longest name shown.
    /// - Complexity: O(rows on screen).
    func tableLayout(_ width: Int) -> TableLayout {
        let shown = shownList
        var longest = 0
        for r in top..<min(rows.count, top + listHeight) {
            guard case .task(let id, _)? = rows.row(r, in: shown), let t = shown.tasks[id] else { continue }
            longest = max(longest, TextWidth.width(showsURLs ? t.url : DownloadList.shownName(t)))
        }
        return TableLayout(width: width, idWidth: idWidth(shown), longestName: longest)
    }

    /// The header row: each column's title over its cells.
    func columnHeader(_ layout: TableLayout, width: Int) -> String {
        var line = Line(width: width, color: color)
        line.addRight("id", .dim, columns: layout.lead - 1)
        line.add(" ")
        line.add(showsURLs ? "URL" : "name", .dim, columns: layout.name)
        let trashView = filter == .trash && history == nil
        for cell in layout.columns {
            line.add(String(repeating: " ", count: layout.gap))
            if trashView {
                if cell.column == .state { line.add("delete", .dim, columns: cell.width) }
                if cell.column == .progress { line.add("from", .dim) }
                continue
            }
            if cell.column == .progress {
                // The percentage alone is what is done; with the bar, the column is the progress.
                line.add(layout.bar > 0 ? "progress" : cell.column.title, .dim, columns: cell.width)
            } else if cell.column.isRightAligned {
                line.addRight(cell.column.title, .dim, columns: cell.width)
            } else {
                line.add(cell.column.title, .dim, columns: cell.width)
            }
        }
        return line.finished()
    }

    func headerLine(title: String, section: Int?, count: Int, width: Int, isCursor: Bool) -> String {
        var line = Line(width: width, color: color, base: isCursor ? [.cursor] : [])
        line.add(isCursor ? ">" : " ")
        line.add(" ")
        line.add((section.map { "\($0) " } ?? "") + title, .bold)
        line.add("  (\(count) task\(count == 1 ? "" : "s"))", .dim)
        return line.finished()
    }

    func taskLine(_ id: TaskID, in list: DownloadList, layout: TableLayout, width: Int, isCursor: Bool)
        -> String
    {
        var line = Line(width: width, color: color, base: isCursor ? [.cursor] : [])
        line.add(isCursor ? ">" : " ")
        line.add(selection.contains(id) && history == nil ? "*" : " ", .bold)
        line.addRight("#\(id)", .dim, columns: layout.lead - 3)
        line.add(" ")
        guard let t = list.tasks[id] else { return line.finished() }
        if case .prompt(let p) = overlay, case .renameTask(id) = p.purpose {
            line.add("[", .bold)
            line.add(p.value + "_", .bold, columns: max(1, line.room - 1))
            line.add("]", .bold)
            return line.finished()
        }
        let name = showsURLs ? t.url : DownloadList.shownName(t)
        line.add(name, matches(t) ? .yellow : nil, columns: layout.name)
        if list.isTrashed(id) {
            addTrashCells(t, list: list, layout: layout, into: &line)
        } else if t.state == .downloading, let retry = activity[id]?.retry, history == nil {
            // Waiting out a backoff: when it tries again, which attempt, and why, in place of a speed of zero.
            addCells(layout, state: t.state, stateOnly: true, into: &line)
            line.add(String(repeating: " ", count: layout.gap))
            line.add(retry.line(now: Double(now) / 1000), .yellow)
        } else if t.state == .downloading, let a = activity[id], history == nil {
            let fraction = a.expected.map { $0 > 0 ? min(1, Double(a.bytes) / Double($0)) : 1 }
            addCells(
                layout, state: t.state, fraction: fraction, size: a.detail, speed: Units.rate(a.speed),
                eta: a.eta.map(Units.duration) ?? "", into: &line)
        } else if t.state == .failed {
            addCells(layout, state: t.state, into: &line)
            line.add(String(repeating: " ", count: layout.gap))
            // A narrow row keeps the status code whole rather than the words before it.
            var why = Units.failure(t.failure)
            let answered = "the server answered "
            if TextWidth.width(why) > line.room, why.hasPrefix(answered) { why.removeFirst(answered.count) }
            line.add(why, .red)
        } else {
            let known = t.state == .finished ? t.bytes : t.size
            let fraction =
                t.state == .finished ? 1 : known.map { $0 > 0 ? min(1, Double(t.bytes) / Double($0)) : 0 }
            let size =
                t.state == .finished
                ? Units.bytes(t.bytes)
                : t.bytes == 0
                    ? (t.size.map(Units.bytes) ?? "")
                    : TransferActivity.detail(bytes: t.bytes, expected: t.size)
            addCells(
                layout, state: t.state, fraction: t.bytes == 0 && t.state != .finished ? nil : fraction,
                size: size,
                into: &line)
        }
        return line.finished()
    }

    /// The cells of a task's row, each in its column; only the state for a failure or with `stateOnly` (the words
    /// that follow take the rest of the row).
    private func addCells(
        _ layout: TableLayout, state: TaskState, stateOnly: Bool = false, fraction: Double? = nil,
        size: String = "",
        speed: String = "",
        eta: String = "", into line: inout Line
    ) {
        let gap = String(repeating: " ", count: layout.gap)
        for cell in layout.columns {
            switch cell.column {
            case .state:
                line.add(gap)
                line.add(state.rawValue, Self.stateStyle(state), columns: cell.width)
            case .progress where state == .failed || stateOnly:
                return
            case .progress:
                line.add(gap)
                line.addRight(
                    fraction.map { "\(Int($0 * 100))%" } ?? "", columns: TableLayout.Column.progress.width)
                guard layout.bar > 0 else { continue }
                line.add(" ")
                if let fraction, state != .finished {
                    line.add(Self.bar(fraction, width: layout.bar), Self.stateStyle(state))
                } else {
                    line.add("", columns: layout.bar)
                }
            case .size:
                line.add(gap)
                line.addRight(size, columns: cell.width)
            case .speed:
                line.add(gap)
                line.addRight(speed, columns: cell.width)
            case .eta:
                line.add(gap)
                line.addRight(eta, columns: cell.width)
            }
        }
    }

    static func stateStyle(_ s: TaskState) -> Style {
        switch s {
        case .waiting: return .dim
        case .downloading: return .cyan
        case .paused: return .yellow
        case .stopped: return .magenta
        case .finished: return .green
        case .failed: return .red
        }
    }

    private func addTrashCells(
        _ t: DownloadTask, list: DownloadList, layout: TableLayout, into line: inout Line
    ) {
        // The live list's entry by its place (found when the view was indexed), else by a search (history).
        let entry: TrashEntry?
        if list.head == self.list.head, let i = trashPlaces[t.id], list.trash.indices.contains(i),
            list.trash[i].id == t.id
        {
            entry = list.trash[i]
        } else {
            entry = list.trash.first { $0.id == t.id }
        }
        guard let entry else { return }
        let gap = String(repeating: " ", count: layout.gap)
        if let state = layout.columns.first(where: { $0.column == .state }) {
            line.add(gap)
            line.add(entry.mode == .all ? "record+file" : "record only", .dim, columns: state.width)
        }
        line.add(gap)
        line.add("from \(entry.section):\(entry.index) '\(entry.sectionTitle)', \(t.state.rawValue)")
    }

    static func bar(_ fraction: Double?, width: Int) -> String {
        guard width > 2 else { return "" }
        guard let fraction else { return "[" + String(repeating: "·", count: width - 2) + "]" }
        let filled = Int((fraction * Double(width - 2)).rounded(.down))
        return "[" + String(repeating: "█", count: filled) + String(repeating: "░", count: width - 2 - filled)
            + "]"
    }
}
