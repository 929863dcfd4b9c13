import Foundation

/// Where every line of output goes. On a terminal it also owns a live region at the bottom (the progress lines),
/// redrawn in place: a line printed while the region is shown goes above it.
final class Console: @unchecked Sendable {
    let isTTY: Bool
    let color: Bool
    let quiet: Bool
    private let lock = NSLock()
    private var liveCount = 0
    private var liveLines: [String] = []

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
        lock.withLock {
            write(STDOUT_FILENO, eraseLive() + line + "\n" + drawnLive())
        }
    }

    /// A JSON document on stdout, written as it is rendered (large ones are never held whole).
    func out(_ json: JSON, pretty: Bool = true) {
        lock.withLock {
            write(STDOUT_FILENO, eraseLive())
            json.stream(pretty: pretty) { write(STDOUT_FILENO, $0) }
            write(STDOUT_FILENO, "\n" + drawnLive())
        }
    }

    /// A line on stdout unless `-q` was given.
    func info(_ line: String = "") {
        if !quiet { out(line) }
    }

    /// One line on stderr.
    func err(_ line: String) {
        lock.withLock {
            if liveCount > 0 { write(STDOUT_FILENO, eraseLive()) }
            write(STDERR_FILENO, line + "\n")
            if liveCount > 0 { write(STDOUT_FILENO, drawnLive()) }
        }
    }

    /// Replaces the live region (terminal only; elsewhere this does nothing).
    func setLive(_ lines: [String]) {
        guard isTTY else { return }
        lock.withLock {
            let erase = eraseLive()
            liveLines = lines
            write(STDOUT_FILENO, erase + drawnLive())
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

    private func eraseLive() -> String {
        guard liveCount > 0 else { return "" }
        let n = liveCount
        liveCount = 0
        return "\u{1B}[\(n)F\u{1B}[J"
    }

    private func drawnLive() -> String {
        liveCount = liveLines.count
        return liveLines.map { $0 + "\n" }.joined()
    }

    private func write(_ fd: Int32, _ text: String) {
        guard !text.isEmpty else { return }
        var text = text
        text.withUTF8 { bytes in
            var offset = 0
            while offset < bytes.count {
                let n = Glibc.write(fd, bytes.baseAddress! + offset, bytes.count - offset)
                if n < 0 && errno == EINTR { continue }
                guard n > 0 else { return }
                offset += n
            }
        }
    }
}
