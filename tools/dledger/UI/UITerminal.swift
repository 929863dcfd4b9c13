import Foundation
import Synchronization

/// The terminal of `dledger ui`: raw mode, the alternate screen, bracketed paste, and a redraw of only the lines
/// that changed. The terminal is given back as it was on every way out: `restore()` on a normal exit or a
/// signal, and a handler for the fatal signals (a trap in our own code) that restores it before the process dies.
/// Used from the session's loop, and `restore()` also on a second signal, just before `_exit`.
final class UITerminal: Sendable {
    private struct State {
        /// The lines on screen, as last drawn.
        var previous: [String] = []
        var restored = false
    }

    private let state = Mutex(State())

    /// What a fatal-signal handler needs, kept where it can reach it without allocating or locking.
    private nonisolated(unsafe) static var saved = termios()
    private nonisolated(unsafe) static var active = false
    private nonisolated(unsafe) static let leaveBytes: UnsafeMutableBufferPointer<UInt8> = {
        let bytes = Array(UITerminal.leave.utf8)
        let buffer = UnsafeMutableBufferPointer<UInt8>.allocate(capacity: bytes.count)
        _ = buffer.initialize(from: bytes)
        return buffer
    }()

    /// Leaves bracketed paste, shows the cursor, resets attributes, leaves the alternate screen.
    private static let leave = "\u{1B}[?2004l\u{1B}[?25h\u{1B}[0m\u{1B}[?1049l"
    private static let enter = "\u{1B}[?1049h\u{1B}[?25l\u{1B}[?2004h\u{1B}[H\u{1B}[2J"

    /// Whether stdin and stdout are both terminals.
    static var isInteractive: Bool { isatty(STDIN_FILENO) == 1 && isatty(STDOUT_FILENO) == 1 }

    /// Switches the terminal to raw mode and the alternate screen.
    /// - Throws: when the terminal's settings cannot be read or changed.
    init() throws {
        var original = termios()
        guard tcgetattr(STDIN_FILENO, &original) == 0 else {
            throw CLIError.failed("cannot read the terminal's settings: \(String(cString: strerror(errno)))")
        }
        Self.saved = original
        _ = Self.leaveBytes
        var raw = original
        raw.c_iflag &= ~tcflag_t(BRKINT | ICRNL | INPCK | ISTRIP | IXON)
        raw.c_oflag &= ~tcflag_t(OPOST)
        raw.c_cflag |= tcflag_t(CS8)
        raw.c_lflag &= ~tcflag_t(ECHO | ICANON | IEXTEN | ISIG)
        withUnsafeMutableBytes(of: &raw.c_cc) { cc in
            cc[Int(VMIN)] = 1
            cc[Int(VTIME)] = 0
        }
        guard tcsetattr(STDIN_FILENO, TCSAFLUSH, &raw) == 0 else {
            throw CLIError.failed("cannot set the terminal to raw mode: \(String(cString: strerror(errno)))")
        }
        Self.active = true
        for sig in [SIGSEGV, SIGBUS, SIGILL, SIGTRAP, SIGABRT, SIGFPE] {
            signal(sig) { sig in
                UITerminal.restoreFromSignal()
                signal(sig, SIG_DFL)
                raise(sig)
            }
        }
        write(Self.enter)
    }

    deinit { restore() }

    /// Only async-signal-safe calls: the terminal back as it was, whatever state the process is in.
    private static func restoreFromSignal() {
        guard active else { return }
        active = false
        _ = Glibc.write(STDOUT_FILENO, leaveBytes.baseAddress, leaveBytes.count)
        _ = tcsetattr(STDIN_FILENO, TCSAFLUSH, &saved)
    }

    /// Gives the terminal back: main screen, cursor shown, settings as they were. Safe to call twice.
    func restore() {
        let first = state.withLock { state in
            defer { state.restored = true }
            return !state.restored
        }
        guard first else { return }
        Self.active = false
        write(Self.leave)
        _ = tcsetattr(STDIN_FILENO, TCSAFLUSH, &Self.saved)
        for sig in [SIGSEGV, SIGBUS, SIGILL, SIGTRAP, SIGABRT, SIGFPE] { signal(sig, SIG_DFL) }
    }

    /// Columns and rows (80x24 when the terminal does not say).
    func size() -> (columns: Int, rows: Int) {
        var ws = winsize()
        guard ioctl(STDOUT_FILENO, UInt(TIOCGWINSZ), &ws) == 0, ws.ws_col > 0, ws.ws_row > 0 else {
            return (80, 24)
        }
        return (Int(ws.ws_col), Int(ws.ws_row))
    }

    /// Draws `lines`, writing only those that differ from the last drawing, in one write.
    /// - Returns: how many lines were written.
    @discardableResult
    func draw(_ lines: [String]) -> Int {
        var out = ""
        var changed = 0
        state.withLock { state in
            if lines.count != state.previous.count { state.previous = [] }
            for (i, line) in lines.enumerated() where i >= state.previous.count || state.previous[i] != line {
                out += "\u{1B}[\(i + 1);1H" + line
                changed += 1
            }
            state.previous = lines
        }
        if !out.isEmpty { write(out) }
        return changed
    }

    /// Forgets what is on screen: the next `draw` writes every line (after a resize).
    func invalidate() {
        state.withLock { $0.previous = [] }
        write("\u{1B}[0m\u{1B}[H\u{1B}[2J")
    }

    private func write(_ text: String) {
        var bytes = Array(text.utf8)
        var offset = 0
        while offset < bytes.count {
            let n = bytes.withUnsafeMutableBytes {
                Glibc.write(STDOUT_FILENO, $0.baseAddress! + offset, $0.count - offset)
            }
            if n < 0 {
                if errno == EINTR || errno == EAGAIN { continue }
                return
            }
            offset += n
        }
    }
}
