import Foundation

/// How the downloader runs hooks (aria2's `--on-download-complete` and `--on-download-error`): which program, for
/// how long, with what environment. The programs default to the ledger's settings (`dledger set on-download-…`).
///
/// ```swift
/// let scheduler = try Scheduler(ledger: ledger)
/// scheduler.hooks.overrides[.complete] = "/usr/local/bin/after-download"
/// ```
public struct HookSettings: Sendable {
    /// Programs given for this run (`run --on-download-complete PATH`), over the ledger's settings.
    public var overrides: [Hook: String] = [:]
    /// How long a hook may run before its process group is sent SIGTERM.
    public var timeLimit: Duration = .seconds(60)
    /// How long after SIGTERM its process group is sent SIGKILL: 5 s, or the time limit when that is shorter.
    public var grace: Duration { min(.seconds(5), timeLimit) }
    /// The environment hooks start from: the downloader's. Credentials are taken out (``hookEnvironment(id:)``).
    public var environment: [String: String] = ProcessInfo.processInfo.environment

    /// What ``timeLimit`` may be, in milliseconds: 100 ms to one day.
    public static let timeLimitRangeMs: ClosedRange<Int64> = 100...86_400_000

    public init() {}

    /// The environment a hook for task `id` gets: the downloader's without `DLEDGER_RPC_SECRET` and without any
    /// `*_proxy` variable that carries a login (`http://user:pass@proxy:3128`), plus `DLEDGER_TASK_ID`, the task's
    /// number for `dledger` commands (the first argument is its aria2 GID).
    public func hookEnvironment(id: TaskID) -> [String] {
        var lines: [String] = []
        for (name, value) in environment.sorted(by: { $0.key < $1.key }) {
            if name == "DLEDGER_RPC_SECRET" || name == "DLEDGER_TASK_ID" { continue }
            if name.lowercased().hasSuffix("_proxy") && Self.carriesLogin(value) { continue }
            lines.append(name + "=" + value)
        }
        lines.append("DLEDGER_TASK_ID=\(id)")
        return lines
    }

    /// Whether a proxy value names a user: an `@` in its authority (`user:pass@host`, with or without a scheme).
    static func carriesLogin(_ value: String) -> Bool {
        let rest = value.range(of: "://").map { value[$0.upperBound...] } ?? value[...]
        return rest.prefix { $0 != "/" && $0 != "?" && $0 != "#" }.contains("@")
    }

    /// Checks that `command` can be a hook: an absolute path (``Hook/check(command:)``) to a regular file this
    /// process may execute.
    /// - Throws: `LedgerError.invalidValue` with one line saying why not.
    public static func check(command: String) throws {
        try Hook.check(command: command)
        var info = stat()
        guard stat(command, &info) == 0 else {
            throw LedgerError.invalidValue(
                "no hook program at '\(command)': \(String(cString: strerror(errno)))")
        }
        guard (info.st_mode & S_IFMT) == S_IFREG else {
            throw LedgerError.invalidValue("the hook '\(command)' is not a regular file")
        }
        guard access(command, X_OK) == 0 else {
            throw LedgerError.invalidValue("the hook '\(command)' is not executable (chmod +x)")
        }
    }
}
