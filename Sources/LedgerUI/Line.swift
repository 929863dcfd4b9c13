/// A text attribute the screen uses: the 8 basic colours (every 16-colour terminal has them), bold, dim and
/// reverse video.
public enum Style: Sendable {
    case plain, bold, dim, reverse, red, green, yellow, blue, magenta, cyan
    /// The cursor's row: reverse video.
    case cursor

    var sgr: String {
        switch self {
        case .plain: return "0"
        case .bold: return "1"
        case .dim: return "2"
        case .reverse, .cursor: return "7"
        case .red: return "31"
        case .green: return "32"
        case .yellow: return "33"
        case .blue: return "34"
        case .magenta: return "35"
        case .cyan: return "36"
        }
    }
}

/// One screen line being built from pieces, exactly `width` columns wide. With colour off no escape sequence is
/// written (NO_COLOR, `--no-color`, and the tests).
struct Line {
    let width: Int
    let color: Bool
    /// Attributes kept under every piece (the cursor row's reverse video).
    var base: [Style] = []
    private(set) var text = ""
    private(set) var used = 0

    init(width: Int, color: Bool, base: [Style] = []) {
        self.width = width
        self.color = color
        self.base = base
        if color && !base.isEmpty { text = Self.sgr(base) }
    }

    var room: Int { max(0, width - used) }

    /// Appends `piece` fitted to `columns` (default: as wide as it is, cut at the edge).
    mutating func add(_ piece: String, _ style: Style? = nil, columns: Int? = nil) {
        let want = min(columns ?? TextWidth.width(piece), room)
        guard want > 0 else { return }
        let fitted = TextWidth.fit(piece, want)
        if color, let style, style != .plain {
            text += Self.sgr(base + [style]) + fitted + Self.sgr(base)
        } else {
            text += fitted
        }
        used += want
    }

    /// Appends `piece` right-aligned in `columns`.
    mutating func addRight(_ piece: String, _ style: Style? = nil, columns: Int) {
        let w = TextWidth.width(piece)
        if w < columns { add(String(repeating: " ", count: min(room, columns - w))) }
        add(piece, style, columns: min(w, columns))
    }

    /// The line padded to its width, attributes reset at the end.
    func finished() -> String {
        var out = text
        if used < width { out += String(repeating: " ", count: width - used) }
        if color && (!base.isEmpty || out.contains("\u{1B}")) { out += "\u{1B}[0m" }
        return out
    }

    private static func sgr(_ styles: [Style]) -> String {
        "\u{1B}[0;" + styles.map(\.sgr).joined(separator: ";") + "m"
    }
}
