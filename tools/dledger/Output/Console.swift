import Foundation
import LedgerFrontEnd
import Synchronization

/// Where every line of output goes. On a terminal it also owns a live region at the bottom (the progress lines),
/// redrawn in place: a line printed while the region is shown goes above it.
final class Console: Sendable {
    let isTTY: Bool
    let color: Bool
    let quiet: Bool

    /// The live region: its lines, and how many of them are on the screen now. Its lock also keeps each write whole.
    private struct Live {
        var count = 0
        var lines: [String] = []
    }

    private let live = Mutex(Live())

    init(noColor: Bool, quiet: Bool, environment: [String: String]) {
        isTTY = isatty(STDOUT_FILENO) == 1
        color =
            isTTY && !noColor && environment["NO_COLOR"].map(\.isEmpty) != false
            && environment["TERM"] != "dumb"
        self.quiet = quiet
    }

    /// Terminal width in columns (80 when unknown).
    var width: Int {
        var size = winsize()
        guard isTTY, ioctl(STDOUT_FILENO, UInt(TIOCGWINSZ), &size) == 0, size.ws_col > 0 else { return 80 }
        return Int(size.ws_col)
    }

    /// Terminal height in rows (24 when unknown).
    var height: Int {
        var size = winsize()
        guard isTTY, ioctl(STDOUT_FILENO, UInt(TIOCGWINSZ), &size) == 0, size.ws_row > 0 else { return 24 }
        return Int(size.ws_row)
    }

    /// One line of data or narration on stdout.
    func out(_ line: String = "") {
        live.withLock { live in
            write(STDOUT_FILENO, Self.erase(&live) + visible(line) + "\n" + Self.drawn(&live))
        }
    }

    /// A JSON document on stdout, written as it is rendered (large ones are never held whole).
    func out(_ json: JSONValue, pretty: Bool = true) {
        live.withLock { live in
            write(STDOUT_FILENO, Self.erase(&live))
            json.stream(pretty: pretty) { write(STDOUT_FILENO, $0) }
            write(STDOUT_FILENO, "\n" + Self.drawn(&live))
        }
    }

    /// A JSON document on stdout produced member by member (``JSONStream``): never held whole, as a tree or as text.
    func outJSON(pretty: Bool = true, _ body: (inout JSONStream) -> Void) {
        live.withLock { live in
            write(STDOUT_FILENO, Self.erase(&live))
            var stream = JSONStream(pretty: pretty) { [self] in write(STDOUT_FILENO, $0) }
            body(&stream)
            stream.finish()
            write(STDOUT_FILENO, "\n" + Self.drawn(&live))
        }
    }

    /// Lines on stdout written through one buffer (``ConsoleLines``), in pieces of 256 KB.
    func outLines(_ body: (inout ConsoleLines) -> Void) {
        live.withLock { live in
            write(STDOUT_FILENO, Self.erase(&live))
            var lines = ConsoleLines(color: color) { [self] in write(STDOUT_FILENO, $0) }
            body(&lines)
            lines.finish()
            write(STDOUT_FILENO, Self.drawn(&live))
        }
    }

    /// A line on stdout unless `-q` was given.
    func info(_ line: String = "") {
        if !quiet { out(line) }
    }

    /// One line on stderr.
    func err(_ line: String) {
        live.withLock { live in
            if live.count > 0 { write(STDOUT_FILENO, Self.erase(&live)) }
            write(STDERR_FILENO, visible(line) + "\n")
            if live.count > 0 { write(STDOUT_FILENO, Self.drawn(&live)) }
        }
    }

    /// `line` with every character that could steer the terminal shown as an escape: names, URLs and messages
    /// come from input files, servers and ledgers that may be hostile. Only this console's own styles are kept.
    func visible(_ line: String) -> String { Self.visible(line, keepingStyles: color) }

    /// C0 controls but newline and tab, DEL, C1 controls and the bidi overrides become `\x1B`, `\u{202E}`…;
    /// with `keepingStyles`, the exact sequences `style` writes pass.
    static func visible(_ text: String, keepingStyles: Bool) -> String {
        guard text.unicodeScalars.contains(where: isSteering) else { return text }
        let scalars = Array(text.unicodeScalars)
        var shown = String.UnicodeScalarView()
        var i = 0
        while i < scalars.count {
            if keepingStyles, let n = styleLength(scalars, at: i) {
                shown.append(contentsOf: scalars[i..<i + n])
                i += n
                continue
            }
            let c = scalars[i]
            if isSteering(c) {
                let hex = String(c.value, radix: 16, uppercase: true)
                shown.append(
                    contentsOf: (c.value < 0x80 ? "\\x" + (hex.count < 2 ? "0" : "") + hex : "\\u{\(hex)}")
                        .unicodeScalars)
            } else {
                shown.append(c)
            }
            i += 1
        }
        return String(shown)
    }

    private static func isSteering(_ c: Unicode.Scalar) -> Bool {
        switch c.value {
        case 0x0A, 0x09: return false
        case 0..<0x20, 0x7F, 0x80...0x9F, 0x061C, 0x200E, 0x200F, 0x202A...0x202E, 0x2066...0x2069:
            return true
        default: return false
        }
    }

    /// The length of one of `style`'s own sequences (`ESC [ 1 m`, `ESC [ 3 1 m`…) starting at `i`, else nil.
    private static func styleLength(_ s: [Unicode.Scalar], at i: Int) -> Int? {
        guard i + 3 < s.count, s[i] == "\u{1B}", s[i + 1] == "[" else { return nil }
        if s[i + 3] == "m", ["0", "1", "2"].contains(s[i + 2]) { return 4 }
        if i + 4 < s.count, s[i + 2] == "3", ["1", "2", "3", "6"].contains(s[i + 3]), s[i + 4] == "m" {
            return 5
        }
        return nil
    }

    /// Replaces the live region (terminal only; elsewhere this does nothing).
    func setLive(_ lines: [String]) {
        guard isTTY else { return }
        live.withLock { live in
            let erase = Self.erase(&live)
            live.lines = lines.map(visible)
            write(STDOUT_FILENO, erase + Self.drawn(&live))
        }
    }

    /// Removes the live region, leaving the cursor where it began.
    func clearLive() {
        setLive([])
    }

    /// `text` in an ANSI style when colors are on.
    func style(_ text: String, _ code: Style) -> String {
        color ? "\u{1B}[\(code.rawValue)m\(text)\u{1B}[0m" : text
    }

    enum Style: String {
        case bold = "1"
        case dim = "2"
        case red = "31"
        case green = "32"
        case yellow = "33"
        case cyan = "36"
    }

    /// What moves the cursor back over the live region and clears it; the region then counts as not shown.
    private static func erase(_ live: inout Live) -> String {
        guard live.count > 0 else { return "" }
        let n = live.count
        live.count = 0
        return "\u{1B}[\(n)F\u{1B}[J"
    }

    /// The live region's lines, to write; the region then counts as shown.
    private static func drawn(_ live: inout Live) -> String {
        live.count = live.lines.count
        return live.lines.map { $0 + "\n" }.joined()
    }

    private func write(_ fd: Int32, _ text: String) {
        guard !text.isEmpty else { return }
        var text = text
        text.withUTF8 { write(fd, UnsafeRawBufferPointer($0)) }
    }

    private func write(_ fd: Int32, _ bytes: [UInt8]) {
        bytes.withUnsafeBytes { write(fd, $0) }
    }

    private func write(_ fd: Int32, _ bytes: UnsafeRawBufferPointer) {
        var offset = 0
        while offset < bytes.count {
            let n = Glibc.write(fd, bytes.baseAddress! + offset, bytes.count - offset)
            if n < 0 && errno == EINTR { continue }
            guard n > 0 else { return }
            offset += n
        }
    }
}
