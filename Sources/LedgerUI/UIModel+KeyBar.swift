/// The key bar at the bottom: the keys of what the screen shows, in fewer words as the terminal narrows, and
/// `? help` and `q quit` always.
extension UIModel {
    /// One hint of the key bar: the key, what it does in words, and in fewer words for a narrow terminal.
    struct Hint {
        var key: String
        var long: String
        var short: String
        /// The hints of the highest rank give way first when the bar is too narrow; rank 0 always stays.
        var rank: Int

        init(_ key: String, _ long: String, _ short: String? = nil, rank: Int) {
            self.key = key
            self.long = long
            self.short = short ?? long
            self.rank = rank
        }
    }

    func hintBar(_ width: Int) -> String {
        var line = Line(width: width, color: color, base: [.reverse])
        line.add(Self.hintText(hints, width: width))
        return line.finished()
    }

    /// The key bar's hints for what the screen shows.
    var hints: [Hint] {
        let help = Hint("?", "help", rank: 0)
        let quit = Hint("q", "quit", rank: 0)
        switch overlay {
        case .prompt(let p):
            if p.purpose == .search {
                return [Hint("Enter", "search", rank: 0), Hint("Esc", "cancels", rank: 0)]
            }
            return p.isMultiLine
                ? [
                    Hint("Enter", "adds", rank: 0), Hint("", "paste many lines", rank: 1),
                    Hint("Esc", "cancels", rank: 0),
                ]
                : [Hint("Enter", "", rank: 0), Hint("Esc", "cancels", rank: 0)]
        case .help, .audit, .details:
            return [Hint("j/k", "scroll", rank: 0), Hint("Esc", "closes", rank: 0)]
        case .deleteMenu: return [Hint("1 2 3", "choose", rank: 0), Hint("Esc", "cancels", rank: 0)]
        case .confirm: return [Hint("y", "yes", rank: 0), Hint("", "any other key: no", rank: 0)]
        case .sectionPicker:
            return [Hint("0-9 or Enter", "choose", rank: 0), Hint("Esc", "cancels", rank: 0)]
        case .none: break
        }
        if search != nil {
            return [
                help, Hint("n", "next match", "next", rank: 1), Hint("N", "previous match", "prev", rank: 1),
                Hint("Esc", "clears the search", "clear", rank: 2),
                Hint("/", "search again", "search", rank: 3),
                Hint("I", "details", "info", rank: 3), quit,
            ]
        }
        if history != nil {
            return [
                help, Hint("←/→", "event", rank: 1), Hint("[ ]", "minute", rank: 2),
                Hint(":", "jump", rank: 2),
                Hint("i", "audit", rank: 3), Hint("/", "search", rank: 3), Hint("Esc", "now", rank: 0), quit,
            ]
        }
        if filter == .trash {
            return [
                help, Hint("r", "restore", rank: 1), Hint("d", "purge", rank: 1), Hint("A", "all", rank: 2),
                Hint("t", "list", rank: 0), Hint("u", "undo", rank: 2), Hint("/", "search", rank: 3), quit,
            ]
        }
        return [
            help, Hint("/", "search", "find", rank: 1), Hint("a", "add", rank: 2),
            Hint("space", "select", "sel", rank: 5), Hint("Enter", "pause/resume", "pause", rank: 4),
            Hint("d", "delete", "del", rank: 3), Hint("e", "rename", "ren", rank: 6),
            Hint("u", "undo", rank: 3),
            Hint("I", "details", "info", rank: 4), Hint("h", "history", "hist", rank: 1),
            Hint("t", "to-delete", "trash", rank: 1), quit,
        ]
    }

    /// The bar's text in `width` columns: every hint in words if they fit, else in fewer words, else without the
    /// hints of the highest rank, one rank after another (`? help` and `q quit` stay).
    static func hintText(_ hints: [Hint], width: Int) -> String {
        func text(_ shown: [Hint], short: Bool) -> String {
            " "
                + shown.map { h in
                    let words = short ? h.short : h.long
                    return h.key.isEmpty ? words : words.isEmpty ? h.key : h.key + " " + words
                }.joined(separator: short ? "  " : "   ")
        }
        var shown = hints
        var full = text(shown, short: false)
        if TextWidth.width(full) <= width { return full }
        full = text(shown, short: true)
        while TextWidth.width(full) > width, let top = shown.map(\.rank).max(), top > 0 {
            shown.removeAll { $0.rank == top }
            full = text(shown, short: true)
        }
        return full
    }
}
