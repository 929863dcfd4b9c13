import LedgerCore
import LedgerTransfer

/// A list row in the manner of SDE's activity cell: name, state, progress bar, "10.2 MB / 117 MB", speed, ETA,
/// a failure reason in words. Only the rows on screen are formatted.
extension UIModel {
    /// The columns the progress part takes at this width (after the 12-column state).
    static func progressColumns(_ width: Int) -> (bar: Int, detail: Bool, speed: Bool, eta: Bool) {
        if width >= 120 { return (16, true, true, true) }
        if width >= 90 { return (10, true, true, false) }
        if width >= 70 { return (0, true, true, false) }
        if width >= 56 { return (0, false, true, false) }
        return (0, false, false, false)
    }

    static func restWidth(_ width: Int) -> Int {
        let p = progressColumns(width)
        return 4 + (p.bar > 0 ? 1 + p.bar : 0) + (p.detail ? 20 : 0) + (p.speed ? 11 : 0) + (p.eta ? 10 : 0)
    }

    func idWidth(_ list: DownloadList) -> Int { "#\(max(1, list.nextID - 1))".count }

    func headerLine(title: String, section: Int?, count: Int, width: Int, isCursor: Bool) -> String {
        var line = Line(width: width, color: color, base: isCursor ? [.cursor] : [])
        line.add(isCursor ? ">" : " ")
        line.add(" ")
        line.add((section.map { "\($0) " } ?? "") + title, .bold)
        line.add("  (\(count) task\(count == 1 ? "" : "s"))", .dim)
        return line.finished()
    }

    func taskLine(_ id: TaskID, in list: DownloadList, width: Int, isCursor: Bool) -> String {
        var line = Line(width: width, color: color, base: isCursor ? [.cursor] : [])
        line.add(isCursor ? ">" : " ")
        line.add(selection.contains(id) && history == nil ? "*" : " ", .bold)
        line.addRight("#\(id)", .dim, columns: idWidth(list))
        line.add(" ")
        guard let t = list.tasks[id] else { return line.finished() }
        if case .prompt(let p) = overlay, case .renameTask(id) = p.purpose {
            line.add("[", .bold)
            line.add(p.value + "_", .bold, columns: max(1, line.room - 1))
            line.add("]", .bold)
            return line.finished()
        }
        let rest = Self.restWidth(width)
        let nameWidth = max(4, line.room - 13 - rest)
        line.add(showsURLs ? t.url : DownloadList.shownName(t), columns: nameWidth)
        line.add(" ")
        if list.isTrashed(id) {
            addTrashCells(t, list: list, into: &line)
        } else if t.state == .downloading, let a = activity[id], history == nil {
            addActivityCells(a, into: &line)
        } else {
            addStateCells(t, into: &line)
        }
        return line.finished()
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

    private func addActivityCells(_ a: TransferActivity, into line: inout Line) {
        let p = Self.progressColumns(line.width)
        let fraction = a.expected.map { $0 > 0 ? min(1, Double(a.bytes) / Double($0)) : 1 }
        line.add("downloading", .cyan, columns: 12)
        line.addRight(fraction.map { "\(Int($0 * 100))%" } ?? "", columns: 4)
        if p.bar > 0 {
            line.add(" ")
            line.add(Self.bar(fraction, width: p.bar), .cyan)
        }
        if p.detail { line.addRight(a.detail, columns: 20) }
        if p.speed { line.addRight(Units.rate(a.speed), columns: 11) }
        if p.eta { line.addRight(a.eta.map { "ETA " + Units.duration($0) } ?? "", columns: 10) }
    }

    private func addStateCells(_ t: DownloadTask, into line: inout Line) {
        line.add(t.state.rawValue, Self.stateStyle(t.state), columns: 12)
        var words: String
        switch t.state {
        case .failed: words = Units.failure(t.failure)
        case .finished: words = Units.bytes(t.bytes)
        case _ where t.bytes == 0: words = t.size.map(Units.bytes) ?? ""
        default:
            let fraction =
                t.size.map { $0 > 0 ? "\(Int(min(1, Double(t.bytes) / Double($0)) * 100))%  " : "" } ?? ""
            words = fraction + TransferActivity.detail(bytes: t.bytes, expected: t.size)
        }
        if t.state == .failed { line.add(words, .red) } else { line.add(words) }
    }

    private func addTrashCells(_ t: DownloadTask, list: DownloadList, into line: inout Line) {
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
        line.add(entry.mode == .all ? "record+file" : "record only", .dim, columns: 12)
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
