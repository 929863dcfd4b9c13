import Foundation

/// A real terminal for `dledger ui`: a tmux server of its own (its own socket, no config), one window of a
/// given size running a shell line; keys go in with `send-keys`, the screen comes out with `capture-pane`.
final class TmuxTerminal: @unchecked Sendable {
    let socket: String
    private static let tmux = ["/usr/bin/tmux", "/usr/local/bin/tmux"].first {
        FileManager.default.isExecutableFile(atPath: $0)
    }

    /// Whether tmux is installed (the tests that need it are skipped otherwise).
    static var isAvailable: Bool { tmux != nil }

    /// Starts `command` (a shell line) in a `columns` x `rows` window, with `environment` added.
    init(_ command: String, columns: Int = 100, rows: Int = 24, environment: [String: String]) throws {
        socket = "dledger-ui-\(getpid())-\(UUID().uuidString.prefix(8))"
        var exports = environment.map { "export \($0.key)=\(Self.quote($0.value)); " }.joined()
        exports += "export TERM=xterm; "
        // The shell reports how the program ended and how the terminal was left, then a last line that says the
        // report is complete (it may reach the screen in more than one piece).
        let line =
            exports + "\(command); echo \"EXIT=$?\"; stty -a | tr '\\n' ' '; echo; echo \(Self.reportEnd)"
        // The pane stays, with what it printed, after the shell ends: no process is left to outlive the test.
        let config = NSTemporaryDirectory() + socket + ".conf"
        try "set -g remain-on-exit on\n".write(toFile: config, atomically: true, encoding: .utf8)
        defer { try? FileManager.default.removeItem(atPath: config) }
        try tmux([
            "-f", config, "new-session", "-d", "-x", "\(columns)", "-y", "\(rows)", "sh", "-c", line,
        ])
    }

    deinit { close() }

    /// Ends the tmux server and what runs in it.
    func close() { _ = try? tmux(["kill-session", "-t", "0"]) }

    static func quote(_ s: String) -> String { "'" + s.replacingOccurrences(of: "'", with: "'\\''") + "'" }

    /// Runs one tmux client command, through posix_spawn and waitpid: Foundation's `Process` can wait forever
    /// for a `new-session` client (its forked server keeps running).
    @discardableResult
    private func tmux(_ args: [String], output: Bool = false) throws -> String {
        var pipe: [Int32] = [-1, -1]
        guard Glibc.pipe(&pipe) == 0 else { throw POSIXError(.EMFILE) }
        var actions = posix_spawn_file_actions_t()
        posix_spawn_file_actions_init(&actions)
        defer { posix_spawn_file_actions_destroy(&actions) }
        posix_spawn_file_actions_addopen(&actions, 0, "/dev/null", O_RDONLY, 0)
        if output {
            posix_spawn_file_actions_adddup2(&actions, pipe[1], 1)
        } else {
            posix_spawn_file_actions_addopen(&actions, 1, "/dev/null", O_WRONLY, 0)
        }
        posix_spawn_file_actions_addopen(&actions, 2, "/dev/null", O_WRONLY, 0)
        posix_spawn_file_actions_addclose(&actions, pipe[0])
        posix_spawn_file_actions_addclose(&actions, pipe[1])
        Self.closeOnExec()
        let argv = [Self.tmux ?? "/usr/bin/tmux", "-L", socket] + args
        var cArgs = argv.map { strdup($0) } + [nil]
        defer { for a in cArgs { free(a) } }
        var pid: pid_t = 0
        let rc = posix_spawn(&pid, argv[0], &actions, nil, &cArgs, environ)
        Glibc.close(pipe[1])
        defer { Glibc.close(pipe[0]) }
        guard rc == 0 else { throw POSIXError(POSIXErrorCode(rawValue: rc) ?? .ENOENT) }
        var data = [UInt8]()
        if output {
            var buffer = [UInt8](repeating: 0, count: 65_536)
            while true {
                let n = read(pipe[0], &buffer, buffer.count)
                if n < 0 && errno == EINTR { continue }
                if n <= 0 { break }
                data += buffer[0..<n]
            }
        }
        var status: Int32 = 0
        while waitpid(pid, &status, 0) < 0 && errno == EINTR {}
        return String(decoding: data, as: UTF8.self)
    }

    /// Marks every descriptor above stderr close-on-exec, so that none of the test runner's (its output pipes)
    /// lives on in the tmux server: the runner would wait for it to close.
    private static func closeOnExec() {
        guard let fds = try? FileManager.default.contentsOfDirectory(atPath: "/proc/self/fd") else { return }
        for name in fds {
            guard let fd = Int32(name), fd > 2 else { continue }
            let flags = fcntl(fd, F_GETFD)
            if flags >= 0 { _ = fcntl(fd, F_SETFD, flags | FD_CLOEXEC) }
        }
    }

    /// The line the shell prints after the report of how the program ended.
    static let reportEnd = "END-OF-REPORT"

    /// The visible screen with wrapped lines joined into one (a long report line is one string).
    func joinedScreen() throws -> [String] {
        try tmux(["capture-pane", "-p", "-J", "-t", "0"], output: true)
            .split(separator: "\n", omittingEmptySubsequences: false).map(String.init)
    }

    /// Sends tmux key names (`"j"`, `"Enter"`, `"Escape"`, `"C-r"`, `"Up"`).
    func keys(_ names: String...) throws { try tmux(["send-keys", "-t", "0"] + names) }

    /// Types text literally.
    func type(_ text: String) throws { try tmux(["send-keys", "-t", "0", "-l", text]) }

    /// Pastes text as a terminal paste (bracketed when the program asked for it).
    func paste(_ text: String) throws {
        try tmux(["set-buffer", "--", text])
        try tmux(["paste-buffer", "-p", "-t", "0"])
    }

    /// The visible screen, one string per row.
    func screen() throws -> [String] {
        var rows = try tmux(["capture-pane", "-p", "-t", "0"], output: true)
            .split(separator: "\n", omittingEmptySubsequences: false).map(String.init)
        if rows.last == "" { rows.removeLast() }
        return rows
    }

    func resize(columns: Int, rows: Int) throws {
        try tmux(["resize-window", "-t", "0", "-x", "\(columns)", "-y", "\(rows)"])
    }

    /// The pid of the program the shell runs (its child).
    func programPID() throws -> Int32? {
        guard
            let shell = Int32(
                try tmux(["list-panes", "-t", "0", "-F", "#{pane_pid}"], output: true).trimmingCharacters(
                    in: .whitespacesAndNewlines))
        else { return nil }
        let children =
            (try? String(contentsOfFile: "/proc/\(shell)/task/\(shell)/children", encoding: .utf8)) ?? ""
        return children.split(separator: " ").first.flatMap { Int32($0) }
    }

    /// Waits until the screen satisfies `condition` (polling every 50 ms), at most `seconds`.
    ///
    /// A big frame reaches tmux in pieces on a loaded machine, so a screen that satisfies
    /// the condition is returned once it stops changing (two captures 40 ms apart agree,
    /// for at most a second): what the caller then reads is the whole frame.
    /// - Returns: the screen that satisfied it, or nil (the last screen is in `lastScreen`).
    @discardableResult
    func waitFor(_ seconds: Double = 5, _ condition: ([String]) -> Bool) async throws -> [String]? {
        let deadline = Date().addingTimeInterval(seconds)
        repeat {
            let s = try screen()
            lastScreen = s
            if condition(s) { return try await settled(s, condition) }
            try await Task.sleep(for: .milliseconds(50))
        } while Date() < deadline
        return nil
    }

    /// The screen once it stops changing, as long as it still satisfies `condition`.
    private func settled(_ first: [String], _ condition: ([String]) -> Bool) async throws -> [String] {
        var last = first
        let until = Date().addingTimeInterval(1)
        while Date() < until {
            try await Task.sleep(for: .milliseconds(40))
            let s = try screen()
            guard condition(s) else { return last }
            lastScreen = s
            if s == last { return s }
            last = s
        }
        return last
    }

    /// Waits until some row contains `text`.
    @discardableResult
    func waitFor(_ text: String, seconds: Double = 5) async throws -> [String]? {
        try await waitFor(seconds) { $0.contains { $0.contains(text) } }
    }

    private(set) var lastScreen: [String] = []

    /// The last screen as one string, for failure messages.
    var shown: String { lastScreen.joined(separator: "\n") }
}
