/// Terminal cells: how many columns text takes, and text cut or padded to a number of columns.
///
/// Names come from URLs, servers and users: they may hold wide characters (CJK, emoji take two columns),
/// combining marks (none) and control characters, which are shown as `?` so that no name can move the cursor or
/// change colours on the user's terminal.
public enum TextWidth {
    /// Columns one scalar takes once made safe: 0, 1 or 2.
    public static func columns(_ s: Unicode.Scalar) -> Int {
        let v = s.value
        if v < 0x300 { return 1 }
        switch s.properties.generalCategory {
        case .nonspacingMark, .enclosingMark, .format: return 0
        default: break
        }
        if v == 0x200B { return 0 }
        if isWide(v) || s.properties.isEmojiPresentation { return 2 }
        return 1
    }

    private static func isWide(_ v: UInt32) -> Bool {
        switch v {
        case 0x1100...0x115F, 0x231A...0x231B, 0x2329...0x232A, 0x2E80...0x303E, 0x3041...0x33FF,
            0x3400...0x4DBF, 0x4E00...0x9FFF, 0xA000...0xA4CF, 0xA960...0xA97F, 0xAC00...0xD7A3,
            0xF900...0xFAFF, 0xFE10...0xFE19, 0xFE30...0xFE6F, 0xFF00...0xFF60, 0xFFE0...0xFFE6,
            0x1F300...0x1F64F, 0x1F900...0x1F9FF, 0x20000...0x2FFFD, 0x30000...0x3FFFD:
            return true
        default:
            return false
        }
    }

    /// Whether the scalar would act on the terminal instead of showing (C0, DEL, C1, bidi overrides).
    static func isControl(_ s: Unicode.Scalar) -> Bool {
        let v = s.value
        return v < 0x20 || (0x7F...0x9F).contains(v) || (0x202A...0x202E).contains(v)
            || (0x2066...0x2069).contains(v)
    }

    /// Columns `text` takes, controls counted as the `?` they are shown as.
    public static func width(_ text: String) -> Int {
        // ASCII (most names, every label): one column a byte, a control shown as its `?` too.
        if text.utf8.allSatisfy({ $0 < 0x80 }) { return text.utf8.count }
        var n = 0
        for s in text.unicodeScalars { n += isControl(s) ? 1 : columns(s) }
        return n
    }

    /// `text` made safe and fitted to exactly `width` columns: padded with spaces, or cut with `…`.
    /// A wide character that would straddle the edge is replaced by a space.
    public static func fit(_ text: String, _ width: Int) -> String {
        guard width > 0 else { return "" }
        var out = String.UnicodeScalarView()
        var used = 0
        let total = Self.width(text)
        let limit = total <= width ? width : width - 1
        for s in text.unicodeScalars {
            let safe: Unicode.Scalar = isControl(s) ? "?" : s
            let w = columns(safe)
            if used + w > limit { break }
            out.append(safe)
            used += w
        }
        var result = String(out)
        if total > width {
            result += "…"
            used += 1
        }
        if used < width { result += String(repeating: " ", count: width - used) }
        return result
    }

    /// `text` right-aligned in `width` columns (cut from the end when longer).
    public static func right(_ text: String, _ width: Int) -> String {
        let w = Self.width(text)
        return w >= width ? fit(text, width) : String(repeating: " ", count: width - w) + fit(text, w)
    }
}

extension TextWidth {
    /// `text` in lines of at most `width` columns, broken after a space where one is near the edge, else anywhere;
    /// every line after the first starts with `indent` spaces.
    public static func wrap(_ text: String, _ width: Int, indent: Int = 0) -> [String] {
        guard width > indent + 4, Self.width(text) > width else { return [text] }
        var lines: [String] = []
        var current = String.UnicodeScalarView()
        var used = 0
        var lastSpace: (index: String.UnicodeScalarView.Index, used: Int)?
        for s in text.unicodeScalars {
            let w = isControl(s) ? 1 : columns(s)
            if used + w > width {
                var rest = String.UnicodeScalarView()
                // Break after the last space if it leaves at least half a line; else here.
                if let space = lastSpace, space.used > width / 2 {
                    rest.append(contentsOf: current[current.index(after: space.index)...])
                    current = String.UnicodeScalarView(current[...space.index])
                }
                lines.append(String(current))
                current = String.UnicodeScalarView(repeating: " ", count: indent)
                current.append(contentsOf: rest)
                used = Self.width(String(current))
                lastSpace = nil
            }
            current.append(s)
            used += w
            if s == " " && used > indent { lastSpace = (current.index(before: current.endIndex), used) }
        }
        if used > indent { lines.append(String(current)) }
        return lines
    }
}
