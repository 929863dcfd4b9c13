import LedgerCore

/// `/` as in less, htop and lazygit: text found in the names and URLs of the view, `n` and `N` to its next and
/// previous match, `Esc` to forget it.
extension UIModel {
    /// The search keys: `/` opens the prompt; while a search is on, `n`, `N` and `Esc` are its own (they insert a
    /// section, add into a new one, and clear the selection or leave the history again once it is cleared).
    /// Returns nil for any other key.
    mutating func searchKey(_ key: Key) -> [Effect]? {
        switch key {
        case .char("/"):
            overlay = .prompt(Prompt(.search, label: "/"))
            return []
        case .char("n") where search != nil:
            step(forward: true)
            return []
        case .char("N") where search != nil:
            step(forward: false)
            return []
        case .escape where search != nil:
            search = nil
            report("search cleared")
            return []
        default:
            return nil
        }
    }

    /// Whether a task's name or URL holds the text searched for (case-insensitively).
    func matches(_ t: DownloadTask) -> Bool {
        guard let search else { return false }
        return Self.holds(DownloadList.shownName(t), search) || Self.holds(t.url, search)
    }

    /// Searches the view for `text` (Enter in the `/` prompt; empty text searches for the last text again): the
    /// cursor goes to the first match from its row down, wrapping around.
    mutating func find(_ text: String) {
        let wanted = text.isEmpty ? (search ?? "") : text
        guard !wanted.isEmpty else { return }
        search = wanted
        let found = matchRows()
        guard !found.isEmpty else {
            search = nil
            report("no name or URL holds '\(wanted)'", isError: true)
            return
        }
        go(to: found.first { $0 >= cursor } ?? found[0], of: found)
    }

    /// The next (or previous) match from the cursor, wrapping around the view.
    private mutating func step(forward: Bool) {
        let found = matchRows()
        guard !found.isEmpty else {
            report("no name or URL holds '\(search ?? "")' any more (Esc clears the search)", isError: true)
            return
        }
        let next =
            forward
            ? (found.first { $0 > cursor } ?? found[0])
            : (found.last { $0 < cursor } ?? found[found.count - 1])
        go(to: next, of: found)
    }

    private mutating func go(to row: Int, of found: [Int]) {
        cursor = row
        clampCursor()
        let n = (found.firstIndex(of: row) ?? 0) + 1
        report("/\(search ?? ""): match \(n) of \(found.count) (n next, N previous, Esc clears)")
    }

    /// The rows of the view whose task matches, top to bottom. - Complexity: O(rows of the view).
    func matchRows() -> [Int] {
        let shown = shownList
        var out: [Int] = []
        for r in 0..<rows.count {
            guard case .task(let id, _)? = rows.row(r, in: shown), let t = shown.tasks[id], matches(t) else {
                continue
            }
            out.append(r)
        }
        return out
    }

    /// Whether `text` holds `part`, ignoring case.
    static func holds(_ text: String, _ part: String) -> Bool {
        text.lowercased().contains(part.lowercased())
    }
}
