import LedgerCore

/// The totals line under the header: the counts by state, the total speed, the limits, the to-delete list and the
/// selection, in fewer words as the terminal narrows.
extension UIModel {
    func totalsLine(_ width: Int) -> String {
        var line = Line(width: width, color: color)
        if let h = history {
            line.add(" #\(h.seq) ", .bold)
            line.add(h.words)
            return line.finished()
        }
        let parts = Self.totals(
            counts: TaskState.allCases.map { counts[$0] },
            speed: activity.values.reduce(0.0) { $0 + $1.speed },
            maxDownloads: list.maxDownloads, speedLimit: list.speedLimit, toDelete: list.trash.count,
            selected: selection.count, width: width)
        line.add(" ")
        for (i, p) in parts.enumerated() {
            if i > 0 { line.add(p.separator, .dim) }
            line.add(p.text, p.style)
        }
        return line.finished()
    }

    /// The totals line's parts for `width` columns: the counts by state, then the total speed, the limits, the
    /// to-delete list and the selection. The first of these forms that fits is taken: all in words
    /// (`3 downloading`, `limit 500 KB/s`, `2 to delete`); the figures short (`lim 500K/s`, `trash 2`); the states
    /// short too (`3 down`); then the last counts by state give way (`…`), never the figures.
    /// `counts` is by ``TaskState/allCases``.
    static func totals(
        counts: [Int], speed: Double, maxDownloads: Int, speedLimit: Int64, toDelete: Int, selected: Int,
        width: Int
    ) -> [(separator: String, text: String, style: Style?)] {
        let shown: [TaskState] = [.downloading, .waiting, .paused, .stopped, .failed, .finished]
        let all = TaskState.allCases
        let states = shown.compactMap { s -> (TaskState, Int)? in
            let n = counts[all.firstIndex(of: s)!]
            return n > 0 ? (s, n) : nil
        }
        func figures(short: Bool) -> [String] {
            var out = [short ? Units.shortRate(speed) : Units.rate(speed)]
            if short {
                out.append(maxDownloads == 0 ? "no max" : "max \(maxDownloads)")
                out.append(speedLimit == 0 ? "no lim" : "lim \(Units.shortRate(Double(speedLimit)))")
                if toDelete > 0 { out.append("trash \(toDelete)") }
                if selected > 0 { out.append("\(selected) sel") }
            } else {
                out.append(maxDownloads == 0 ? "no limit on downloads" : "max \(maxDownloads) at a time")
                out.append(speedLimit == 0 ? "no speed limit" : "limit \(Units.rate(Double(speedLimit)))")
                if toDelete > 0 { out.append("\(toDelete) to delete") }
                if selected > 0 { out.append("\(selected) selected") }
            }
            return out
        }
        func form(shortFigures: Bool, shortStates: Bool, keep: Int) -> [(String, String, Style?)] {
            var out: [(String, String, Style?)] = []
            for (s, n) in states.prefix(keep) {
                out.append(
                    (
                        out.isEmpty ? "" : " · ", "\(n) \(shortStates ? shortWord(s) : s.rawValue)",
                        stateStyle(s)
                    ))
            }
            if keep < states.count { out.append((out.isEmpty ? "" : " · ", "…", .dim)) }
            if states.isEmpty { out.append(("", "no tasks", .dim)) }
            for f in figures(short: shortFigures) { out.append((" │ ", f, nil)) }
            return out
        }
        let room = width - 1
        let tries =
            [(false, false), (true, false), (true, true)].map {
                form(shortFigures: $0.0, shortStates: $0.1, keep: states.count)
            }
            + (0..<states.count).reversed().map { form(shortFigures: true, shortStates: true, keep: $0) }
        for parts in tries
        where parts.reduce(0, { $0 + TextWidth.width($1.0) + TextWidth.width($1.1) }) <= room {
            return parts.map { ($0.0, $0.1, $0.2) }
        }
        return tries.last!.map { ($0.0, $0.1, $0.2) }
    }

    private static func shortWord(_ s: TaskState) -> String {
        switch s {
        case .downloading: return "down"
        case .waiting: return "wait"
        case .finished: return "done"
        default: return s.rawValue
        }
    }
}
