import DownloadLedger
import LedgerFrontEnd

/// Commands on tasks and settings: pause, resume, stop, mv, rm, restore, purge, redownload, rename, limit,
/// speed-limit, sort. Each appends one event and prints it in words.
enum TaskCommands {
    static let selectionOptions: [(String, String)] = [
        ("--section <n>", "Every task of section N (from 0)."),
        ("--all", "Every task in the list."),
    ]

    static func stateCommand(
        _ name: String, _ abstract: String, _ make: @escaping @Sendable (Selection) -> Command
    )
        -> CommandSpec
    {
        CommandSpec(
            name: name, abstract: abstract, usage: "\(name) (<id>... | --section <n> | --all)",
            arguments: [("<id>", "A task id as 'ls' shows it (7 or #7).")], options: selectionOptions,
            json: true,
            writes: true,
            run: { inv in
                try inv.perform(make(try inv.selection()))
                return CLIError.success
            })
    }

    static let specs: [CommandSpec] = [
        stateCommand(
            "pause",
            "Pause tasks: a running transfer keeps its connections, all of a split one's, for 'set pause-hold' (60 s)."
        ) { .pause($0) },
        stateCommand("resume", "Resume paused, stopped or failed tasks.") { .resume($0) },
        stateCommand("stop", "Stop tasks (like pause; 'resume' starts them again).") { .stop($0) },
        CommandSpec(
            name: "mv", abstract: "Move tasks to a section and index (relative order kept).",
            usage: "mv <id>... --to <section[:index]>",
            arguments: [("<id>", "A task id.")],
            options: [("--to <section[:index]>", "Where: '1' is the end of section 1, '1:0' its top.")],
            json: true, writes: true,
            run: { inv in
                guard let to = inv.args.value("--to") else {
                    throw CLIError.usage("missing --to SECTION[:INDEX]")
                }
                let ids = try inv.ids()
                guard !ids.isEmpty else { throw CLIError.usage("give the ids of the tasks to move") }
                try inv.perform(.move(ids, to: try inv.location(to)))
                return CLIError.success
            }),
        CommandSpec(
            name: "rm", abstract: "Delete tasks to the to-delete list (restore brings them back).",
            usage: "rm (<id>... | --section <n> | --all) [--mode all|file|record] [--now]",
            arguments: [("<id>", "A task id.")],
            options: selectionOptions + [
                ("--mode <mode>", "all: record and file (default); record: keep the file when purged;"),
                ("", "file: delete only the file now, the task stays and waits again."),
                ("--now", "Delete at once, without the to-delete list: nothing is kept, undo is refused."),
            ],
            discussion:
                "With the to-delete list turned off ('dledger set trash off') every rm deletes at once, as --now.",
            json: true, writes: true,
            run: { inv in
                let raw = inv.args.value("--mode") ?? "all"
                guard let mode = DeleteMode(rawValue: raw) else {
                    throw CLIError.usage("unknown mode '\(raw)' (all, file, record)")
                }
                if inv.args.has("--now") {
                    guard mode != .file else {
                        throw CLIError.usage(
                            "--now does not apply to --mode file (it never uses the to-delete list)")
                    }
                    try inv.perform(.erase(try inv.selection(), mode: mode))
                } else {
                    try inv.perform(.delete(try inv.selection(), mode: mode))
                }
                return CLIError.success
            }),
        CommandSpec(
            name: "restore", abstract: "Bring tasks back from the to-delete list.",
            usage: "restore (<id>... | --all) [--to <section[:index]>]",
            arguments: [("<id>", "A task id in the to-delete list ('ls --trash').")],
            options: [
                ("--all", "The whole to-delete list."),
                (
                    "--to <section[:index]>",
                    "Where (default: where each task was; its section by title if moved)."
                ),
            ],
            json: true, writes: true,
            run: { inv in
                let ids = try trashIDs(inv)
                let to = try inv.args.value("--to").map { raw in try inv.location(raw) }
                try inv.perform(.restore(ids, to: to))
                return CLIError.success
            }),
        CommandSpec(
            name: "purge", abstract: "Remove tasks from the to-delete list for good (their files go too).",
            usage: "purge (<id>... | --all)",
            arguments: [("<id>", "A task id in the to-delete list.")],
            options: [("--all", "Empty the to-delete list.")],
            json: true, writes: true,
            run: { inv in
                try inv.perform(.purge(try trashIDs(inv)))
                return CLIError.success
            }),
        CommandSpec(
            name: "redownload", abstract: "Discard tasks' files and partial data; download them again.",
            usage: "redownload (<id>... | --section <n> | --all)", arguments: [("<id>", "A task id.")],
            options: selectionOptions,
            discussion:
                "With --section or --all, the tasks that downloaded nothing yet are left as they are.",
            json: true, writes: true,
            run: { inv in
                try inv.perform(.redownload(try inv.selection()))
                return CLIError.success
            }),
        CommandSpec(
            name: "rename", abstract: "Rename a task (and its file, once finished).",
            usage: "rename <id> <name>",
            arguments: [("<id>", "A task id."), ("<name>", "The new file name.")],
            json: true, writes: true,
            run: { inv in
                try inv.require(["<id>", "<name>"])
                try inv.perform(.rename(try inv.ids([inv.positionals[0]])[0], name: inv.positionals[1]))
                return CLIError.success
            }),
        CommandSpec(
            name: "limit",
            abstract: "Show or set the maximum number of simultaneous downloads (0 = no limit).",
            usage: "limit [<n> | default] [--host <name>]",
            arguments: [("<n>", "The new maximum; without it, the current one is shown.")],
            options: [HostOptions.settingOption],
            json: true, writes: true,
            run: { inv in
                let host = try HostOptions.settingHost(inv)
                return try inv.showOrSet(
                    "<n>",
                    shown: { list in
                        let n = list.maxDownloads(for: host)
                        return (
                            n,
                            HostOptions.prefix(host) + "downloads at a time: "
                                + (n == 0 ? "no limit" : "at most \(n)")
                        )
                    },
                    set: { raw in
                        let n = try HostOptions.value(raw, host: host) {
                            Int64(try inv.number($0, "the maximum download count", in: Numbers.downloads))
                        }
                        guard let host else { return .setMaxDownloads(Int(n ?? 0)) }
                        return .setForHost(host, .maxDownloads, n)
                    })
            }),
        CommandSpec(
            name: "speed-limit",
            abstract: "Show or set the speed limit for all downloads together (0 = none).",
            usage: "speed-limit [<rate> | default] [--host <name>]",
            arguments: [
                ("<rate>", "Bytes per second: 500K, 2M, 1.5G (1024-based; 500KB: 1000-based), 0 for none.")
            ],
            options: [HostOptions.settingOption],
            json: true, writes: true,
            run: { inv in
                let host = try HostOptions.settingHost(inv)
                return try inv.showOrSet(
                    "<rate>",
                    shown: { list in
                        let n = list.speedLimit(for: host)
                        return (
                            Int(n),
                            HostOptions.prefix(host) + "speed limit: "
                                + (n == 0 ? "none" : Format.rate(Double(n)))
                        )
                    },
                    set: { raw in
                        let n = try HostOptions.value(raw, host: host) { try Format.parseRate($0) }
                        guard let host else { return .setSpeedLimit(n ?? 0) }
                        return .setForHost(host, .speedLimit, n)
                    })
            }),
        CommandSpec(
            name: "sort",
            abstract:
                "Show the sort, or sort the list: manual (your sections), added, name, size, type or finished.",
            usage: "sort [<mode> [--desc]]",
            arguments: [
                (
                    "<mode>",
                    "manual, added, name, size, type or finished (completion time; unfinished apart)."
                ),
                ("", "Your sections are kept for 'manual'. Without it, the current sort is shown."),
            ],
            options: [("--desc", "Descending.")], json: true, writes: true,
            run: { inv in
                guard let raw = inv.positionals.first else {
                    guard !inv.args.has("--desc") else {
                        throw CLIError.usage("--desc goes with a sort mode ('sort name --desc')")
                    }
                    let list = try inv.context.openForReading().list
                    showSort(inv, list.sortMode, descending: list.sortDescending)
                    return CLIError.success
                }
                try inv.require(["<mode>"])
                guard let mode = SortMode(rawValue: raw) else {
                    throw CLIError.usage("unknown sort mode '\(raw)' (\(ListCommand.sortModes))")
                }
                try inv.perform(.sort(mode, descending: inv.args.has("--desc")))
                return CLIError.success
            }),
    ]

    /// The current sort: `sort: name, descending` (`--json`: `{"sort": "name", "descending": true}`).
    static func showSort(_ inv: Invocation, _ mode: SortMode, descending: Bool) {
        if inv.context.json {
            inv.console.out(
                JSONValue.obj(["sort": .string(mode.rawValue), "descending": .bool(descending)]).rendered())
        } else {
            inv.console.out("sort: \(mode.rawValue)" + (descending ? ", descending" : ""))
        }
    }

    /// `<id>... | --all` for the to-delete list: nil means all.
    static func trashIDs(_ inv: Invocation) throws -> [TaskID]? {
        let all = inv.args.has("--all")
        guard all != !inv.positionals.isEmpty else {
            throw CLIError.usage(all ? "give ids or --all, not both" : "give task ids or --all")
        }
        return all ? nil : try inv.ids()
    }
}
