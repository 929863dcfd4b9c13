import DownloadLedger
import LedgerFrontEnd

/// Hooks as aria2 users script them: `run`/`serve --on-download-complete PATH`, `--on-download-error PATH`, and
/// the ledger settings of the same names (`dledger set on-download-complete PATH|none`).
enum HookOptions {
    /// The options of `run` and `serve`.
    static let runOptions: [(String, String)] = [
        (
            "--on-download-complete <path>",
            "Run this program after each finished download, as aria2 does: <GID> 1 <file path>, no shell\n"
                + "(over the ledger's 'set on-download-complete')."
        ),
        (
            "--on-download-error <path>",
            "Run this program after each download that failed for good: <GID> 1 <file path>\n"
                + "(over the ledger's 'set on-download-error')."
        ),
    ]

    /// The environment variable that sets a hook's time limit, in milliseconds (tests; default 60 s).
    static let timeLimitVariable = "DLEDGER_HOOK_TIME_LIMIT_MS"

    /// The run's hook settings: its options, each checked to name an executable file (exit 64 before anything is
    /// opened or written), and the time limit.
    static func settings(_ inv: Invocation) throws -> HookSettings {
        var settings = HookSettings()
        settings.environment = inv.context.environment
        for hook in Hook.allCases {
            guard let command = inv.args.value("--" + hook.settingName) else { continue }
            try HookSettings.check(command: command)
            settings.overrides[hook] = command
        }
        if let raw = inv.context.environment[timeLimitVariable] {
            let ms = try Numbers.whole(raw, timeLimitVariable, in: HookSettings.timeLimitRangeMs)
            settings.timeLimit = .milliseconds(ms)
        }
        return settings
    }

    /// The hook setting named `name`, if it is one.
    static func setting(named name: String) -> Hook? {
        Hook.allCases.first { $0.settingName == name }
    }

    /// `set on-download-complete PATH|none`: the path checked before the ledger is opened.
    static func set(_ hook: Hook, _ inv: Invocation) throws {
        try inv.require(["<setting>", "<path>"])
        let raw = inv.positionals[1]
        let command: String? = raw == "none" || raw == "default" ? nil : raw
        if let command { try HookSettings.check(command: command) }
        try inv.perform(.setHook(hook, command: command))
    }

    /// The help lines of the hook settings in `set --help`.
    static let settingHelp: [(String, String)] = Hook.allCases.map { hook in
        (
            "  \(hook.settingName) <path>",
            "The program run after each "
                + (hook == .complete ? "finished download" : "download that failed for good")
                + " (aria2's --\(hook.settingName)):\nan absolute path to an executable, run without a shell"
                + " with <GID> 1 <path>; 'none' for none."
        )
    }

    /// `set`'s lines for the hooks.
    static func shown(_ list: DownloadList) -> [(name: String, value: String)] {
        Hook.allCases.map { ($0.settingName, list.hooks[$0] ?? "none") }
    }
}
