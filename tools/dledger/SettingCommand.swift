import DownloadLedger

/// `dledger set [<setting> on|off]`, `dledger set max-size <size>|default`: the ledger's switches and its maximum
/// file size, each change one event (undo takes it back).
enum SettingCommand {
    /// Each setting: its name, what it switches, how the list reports it, and the command that sets it.
    static let settings:
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

    static let spec = CommandSpec(
        name: "set", abstract: "Show the ledger's settings, or change one.",
        usage: "set [<setting> on|off | max-size <size>|default]",
        arguments: [("<setting>", "trash, auto-remove-sections or max-size (see below).")]
            + settings.map { ("  " + $0.name, $0.help) } + [
                (
                    "  max-size",
                    "The largest file a download may become (e.g. 500M, 16GiB; 1K to 1E), or 'default':\n"
                        + "no maximum for a size the server announces, 16 GiB for a body without one.\n"
                        + "A larger file fails ('too large'); 'get/run --max-size' overrides it for one run."
                )
            ],
        discussion:
            "The maximum download count and the speed limit have commands of their own ('limit', 'speed-limit').",
        json: true, writes: true,
        run: { inv in
            guard let name = inv.positionals.first else {
                let list = try inv.context.openForReading().list
                if inv.context.json {
                    inv.console.out(
                        JSON.object(
                            settings.map { JSON.Field(key: $0.name, value: .bool($0.value(list))) }
                                + [JSON.Field(key: "max-size", value: .int(list.maxSize))]
                        )
                        .rendered(pretty: true))
                } else {
                    for s in settings {
                        inv.console.out(Format.fit(s.name, 22) + (s.value(list) ? "on" : "off"))
                    }
                    inv.console.out(
                        Format.fit("max-size", 22)
                            + (list.maxSize == 0
                                ? "default (16 GiB without an announced size)" : Format.bytes(list.maxSize)))
                }
                return CLIError.success
            }
            if name == "max-size" {
                try inv.require(["<setting>", "<size>"])
                let raw = inv.positionals[1]
                try inv.perform(.setMaxSize(raw == "default" ? 0 : try Format.parseSize(raw)))
                return CLIError.success
            }
            guard let setting = settings.first(where: { $0.name == name }) else {
                throw CLIError.usage(
                    "unknown setting '\(name)' (\((settings.map(\.name) + ["max-size"]).joined(separator: ", ")))"
                )
            }
            try inv.require(["<setting>", "on|off"])
            let raw = inv.positionals[1]
            guard raw == "on" || raw == "off" else { throw CLIError.usage("give on or off, not '\(raw)'") }
            try inv.perform(setting.command(raw == "on"))
            return CLIError.success
        })
}
