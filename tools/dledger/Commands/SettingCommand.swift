import DownloadLedger
import Foundation
import LedgerFrontEnd

/// `dledger set [<setting> on|off | <value setting> <value>|default]`: the ledger's switches, its maximum file
/// size and its defaults for splitting a download, each change one event (undo takes it back).
enum SettingCommand {
    /// Each switch: its name, what it switches, how the list reports it, and the command that sets it.
    static let switches:
        [(
            name: String, help: String, value: @Sendable (DownloadList) -> Bool,
            command: @Sendable (Bool) -> Command
        )] = [
            (
                "trash", "Deletes go to the to-delete list (on, the default) or erase at once (off).",
                { $0.trashEnabled }, { .setTrash($0) }
            ),
            (
                "auto-remove-sections",
                "A section emptied by a move or delete goes too (on: the default of new ledgers).",
                { $0.autoRemoveEmptySections }, { .setAutoRemoveEmptySections($0) }
            ),
        ]

    /// A setting with a value (``Setting``, those without a command of their own): its name, help, its value in
    /// words (the default: 0 or the empty text), and how the text given becomes a value (`default` is the default).
    struct ValueSetting: Sendable {
        var setting: Setting
        var placeholder: String
        var help: String
        var shown: @Sendable (SettingValue) -> String
        var parse: @Sendable (String) throws -> SettingValue
        var name: String { setting.spec.name }
    }

    static let values: [ValueSetting] = Setting.allCases.filter { !$0.spec.ownCommand }.map(valueSetting)

    /// The words of a setting: its table row's, read and shown after its unit, but where the downloader's
    /// default is worth naming.
    static func valueSetting(_ setting: Setting) -> ValueSetting {
        switch setting {
        case .maxSize:
            ValueSetting(
                setting: setting, placeholder: "<size>",
                help: "The largest file a download may become (e.g. 500M, 16GiB; 1KB to 1EB), or 'default':\n"
                    + "no maximum for a size the server announces, 16 GiB for a body without one.\n"
                    + "A larger file fails ('too large'); 'get/run --max-size' overrides it for one run.",
                shown: {
                    $0.isDefault ? "default (16 GiB without an announced size)" : Format.bytes($0.number)
                },
                parse: { .number(try Format.parseSize($0)) })
        case .connectionsPerServer:
            ValueSetting(
                setting: setting, placeholder: "<n>",
                help: "Connections to one server (one URL) of a download at most, 1 to 16 (aria2's -x), or\n"
                    + "'default' (\(TransferConfig().connectionsPerServer)). A task's own --max-connection-per-server wins.",
                shown: {
                    $0.isDefault ? "default (\(TransferConfig().connectionsPerServer))" : "\($0.number)"
                },
                parse: { .number(try Numbers.whole($0, "max-connection-per-server", in: 1...16)) })
        case .minSplitSize:
            ValueSetting(
                setting: setting, placeholder: "<size>",
                help: "The smallest piece a download is split into, 1M to 1G (aria2's -k; 4M is 4 MiB), or\n"
                    + "'default' (\(Format.binaryBytes(TransferConfig().minPieceSize))); a file with less than twice it\n"
                    + "left stays on one connection. A task's own --min-split-size wins.",
                shown: {
                    $0.isDefault
                        ? "default (\(Format.binaryBytes(TransferConfig().minPieceSize)))"
                        : Format.binaryBytes($0.number)
                },
                parse: { .number(try Format.parseSplitSize($0)) })
        case .pauseHold:
            ValueSetting(
                setting: setting, placeholder: "<seconds>",
                help: "How long a paused download keeps its connections, 1 to 3600 seconds, or 'default'\n"
                    + "(\(Int(TransferConfig().holdLimit)) s): a resume within it goes on with the same responses, on one\n"
                    + "connection or all of a split download's; past it the connections close and the resume asks again.",
                shown: { $0.isDefault ? "default (\(Int(TransferConfig().holdLimit)) s)" : "\($0.number) s" },
                parse: { .number(try Numbers.whole($0, "pause-hold", in: DownloadList.pauseHoldRange)) })
        case .claimLease:
            ValueSetting(
                setting: setting, placeholder: "<seconds>",
                help:
                    "How long a downloader's claim on a task of a shared (PostgreSQL) ledger lasts unrenewed,\n"
                    + "1 to 3600 seconds, or 'default' (\(DownloadList.defaultClaimLease) s): a host that dies loses its\n"
                    + "tasks to the others that long after its last renewal.",
                shown: { $0.isDefault ? "default (\(DownloadList.defaultClaimLease) s)" : "\($0.number) s" },
                parse: { .number(try Numbers.whole($0, "claim-lease", in: DownloadList.claimLeaseRange)) })
        default:
            ValueSetting(
                setting: setting, placeholder: placeholder(setting.spec.unit), help: setting.spec.help,
                shown: { $0.isDefault ? "default" : shown($0, setting.spec.unit) },
                parse: { try parse($0, setting) })
        }
    }

    /// What a setting's value is called in the usage line.
    static func placeholder(_ unit: SettingSpec.Unit) -> String {
        switch unit {
        case .count: "<n>"
        case .seconds: "<seconds>"
        case .rate: "<rate>"
        case .bytes, .binaryBytes: "<size>"
        case .text: "<text>"
        }
    }

    /// A value in words, after its unit.
    static func shown(_ value: SettingValue, _ unit: SettingSpec.Unit) -> String {
        switch unit {
        case .count: "\(value.number)"
        case .seconds: "\(value.number) s"
        case .rate: Format.rate(Double(value.number))
        case .bytes: Format.bytes(value.number)
        case .binaryBytes: Format.binaryBytes(value.number)
        case .text: value.text
        }
    }

    /// The value a text gives, after the setting's unit (its range is checked when the command is decided).
    static func parse(_ raw: String, _ setting: Setting) throws -> SettingValue {
        let spec = setting.spec
        switch spec.unit {
        case .count: return .number(try Numbers.whole(raw, spec.name, in: 0...spec.range.upperBound))
        case .seconds: return .number(try Numbers.whole(raw, spec.name, in: spec.range))
        case .rate: return .number(try Format.parseRate(raw))
        case .bytes: return .number(try Format.parseSize(raw))
        case .binaryBytes: return .number(try Format.parseSplitSize(raw))
        case .text:
            guard !raw.allSatisfy(\.isWhitespace) else {
                throw CLIError.usage("set \(spec.name): give a text, or 'default'")
            }
            return .text(raw)
        }
    }

    static let names = ["dir"] + switches.map(\.name) + values.map(\.name) + Hook.allCases.map(\.settingName)

    static let dirHelp =
        "The ledger's download folder, for tasks added from now on (those in the list keep theirs);\n"
        + "a new ledger's is $XDG_DOWNLOAD_DIR, else 'xdg-user-dir DOWNLOAD', else ~/Downloads."

    static let spec = CommandSpec(
        name: "set", abstract: "Show the ledger's settings, or change one.",
        usage: "set [dir <path> | <setting> on|off | <setting> <value>|default]",
        arguments: [("<setting>", names.joined(separator: ", ") + " (see below).")]
            + [("  dir <path>", dirHelp)] + switches.map { ("  " + $0.name, $0.help) }
            + values.map { ("  " + $0.name + " " + $0.placeholder, $0.help) } + HookOptions.settingHelp,
        discussion:
            "The maximum download count, the speed limit and the connections per download have commands of their\n"
            + "own ('limit', 'speed-limit', 'connections'). Sizes: a bare K, M, G is 1024-based (4M is 4 MiB),\n"
            + "KB, MB, GB 1000-based.",
        json: true, writes: true,
        run: { inv in
            guard let name = inv.positionals.first else {
                show(inv, try inv.context.openForReading().list)
                return CLIError.success
            }
            if name == "dir" {
                try inv.require(["<setting>", "<path>"])
                try inv.perform(.setDirectory(try folder(inv.positionals[1], inv: inv)))
                return CLIError.success
            }
            if let hook = HookOptions.setting(named: name) {
                try HookOptions.set(hook, inv)
                return CLIError.success
            }
            if let setting = values.first(where: { $0.name == name }) {
                try inv.require(["<setting>", setting.placeholder])
                let raw = inv.positionals[1]
                let value = raw == "default" ? setting.setting.spec.defaultValue : try setting.parse(raw)
                try inv.perform(.set(setting.setting, value))
                return CLIError.success
            }
            guard let setting = switches.first(where: { $0.name == name }) else {
                throw CLIError.usage("unknown setting '\(name)' (\(names.joined(separator: ", ")))")
            }
            try inv.require(["<setting>", "on|off"])
            let raw = inv.positionals[1]
            guard raw == "on" || raw == "off" else { throw CLIError.usage("give on or off, not '\(raw)'") }
            try inv.perform(setting.command(raw == "on"))
            return CLIError.success
        })

    /// The folder `set dir PATH` names, as `--dir` is taken: absolute against the current directory, `~`
    /// expanded, in normal form, and not something other than a folder (one that does not exist yet is made by
    /// the downloader).
    static func folder(_ raw: String, inv: Invocation) throws -> String {
        guard !raw.isEmpty else { throw CLIError.usage("set dir: give a folder") }
        let absolute = Context.absolute(raw, cwd: inv.context.cwd)
        guard let folder = FileNaming.normalizedDirectory(absolute) else {
            throw CLIError.usage("set dir \(raw): not a usable folder path (\(absolute))")
        }
        var st = stat()
        let found = stat(folder, &st) == 0
        if found ? st.st_mode & S_IFMT != S_IFDIR : errno == ENOTDIR {
            throw CLIError.usage("set dir \(folder): not a folder")
        }
        return folder
    }

    /// Every setting, one a line (`--json`: one object, a value setting's default as 0).
    private static func show(_ inv: Invocation, _ list: DownloadList) {
        if inv.context.json {
            inv.console.out(
                JSONValue.object(
                    [("dir", .string(list.directory))]
                        + switches.map { ($0.name, .bool($0.value(list))) }
                        + values.map { s in
                            let value = list[s.setting]
                            return (s.name, s.setting.spec.isText ? .string(value.text) : .int(value.number))
                        }
                        + Hook.allCases.map { ($0.settingName, .opt(list.hooks[$0])) }
                )
                .rendered(pretty: true))
            return
        }
        inv.console.out(Format.fit("dir", 27) + list.directory)
        for s in switches { inv.console.out(Format.fit(s.name, 27) + (s.value(list) ? "on" : "off")) }
        for s in values { inv.console.out(Format.fit(s.name, 27) + s.shown(list[s.setting])) }
        for (name, value) in HookOptions.shown(list) { inv.console.out(Format.fit(name, 27) + value) }
    }
}
