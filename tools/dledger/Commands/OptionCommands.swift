import DownloadLedger
import LedgerFrontEnd

/// `dledger option` (a task's request options) and `dledger connections` (the ledger's default count).
enum OptionCommands {
    static let specs: [CommandSpec] = [
        CommandSpec(
            name: "option", abstract: "Show a task's request options, or change some of them (one event).",
            usage: "option <id> [--clear] [request options]",
            arguments: [("<id>", "A task id.")],
            options: [("--clear", "Remove every option first (then set the ones given).")]
                + AddCommand.requestOptions + [AddCommand.connectionsOption],
            discussion:
                "Only the options given change; --header and --mirror replace all headers or mirrors, and\n"
                + "--max-speed 0 removes the task's own limit. A running download takes a new speed limit at once,\n"
                + "the rest from its next request. Credentials are always shown as [redacted].",
            json: true, writes: true, run: { try option($0) }),
        CommandSpec(
            name: "connections",
            abstract: "Show or set the connections per download (0 = the downloader decides).",
            usage: "connections [<n>]",
            arguments: [("<n>", "1 to 64, or 0: one connection, split over up to 8 when it proves slow.")],
            discussion: "A task's own count ('add --connections', 'option') wins over this one.",
            json: true, writes: true,
            run: { inv in
                try inv.showOrSet(
                    "<n>",
                    shown: { list in
                        let n = list.connections
                        return (
                            n, "connections per download: " + (n == 0 ? "the downloader decides" : "\(n)")
                        )
                    },
                    set: { .setConnections(try inv.number($0, "the connection count", in: 0...64)) })
            }),
    ]

    /// The request option names (`--header`, …): given, they change the task's options.
    static let names = [
        "--header", "--user-agent", "--referer", "--proxy", "--max-speed", "--connections", "--mirror",
        "--max-size", "--max-connection-per-server", "--min-split-size",
    ]

    static func option(_ inv: Invocation) throws -> Int32 {
        try inv.require(["<id>"])
        let id = try inv.ids([inv.positionals[0]])[0]
        let given = Set(names).intersection(inv.args.given)
        guard !given.isEmpty || inv.args.has("--clear") else {
            let list = try inv.context.openForReading().list
            guard let t = list.tasks[id] else { throw LedgerError.noSuchTask(id) }
            if inv.context.json {
                inv.console.out(Output.options(t.options).rendered(pretty: true))
            } else if t.options.isEmpty {
                inv.console.info("#\(id) has no options of its own")
            } else {
                for line in t.options.redactedLines { inv.console.out(Format.fit(line.key, 12) + line.value) }
            }
            return CLIError.success
        }
        let wanted = try AddCommand.requestOptions(inv)
        let list = try inv.context.openForReading().list
        guard let t = list.tasks[id] else { throw LedgerError.noSuchTask(id) }
        var o = t.options
        if inv.args.has("--clear") {
            // The URL's own login is part of the URL, not an option: clearing the options keeps it.
            o = TaskOptions()
            o.userinfo = t.options.userinfo
        }
        if given.contains("--header") { o.headers = wanted.headers }
        if given.contains("--user-agent") { o.userAgent = wanted.userAgent }
        if given.contains("--referer") {
            o.referer = wanted.referer
            o.refererUserinfo = wanted.refererUserinfo
        }
        if given.contains("--proxy") {
            o.proxy = wanted.proxy
            o.proxyUserinfo = wanted.proxyUserinfo
        }
        if given.contains("--max-speed") { o.maxSpeed = wanted.maxSpeed }
        if given.contains("--connections") { o.connections = wanted.connections }
        if given.contains("--max-connection-per-server") {
            o.connectionsPerServer = wanted.connectionsPerServer
        }
        if given.contains("--min-split-size") { o.minSplitSize = wanted.minSplitSize }
        if given.contains("--mirror") { o.mirrors = wanted.mirrors }
        if given.contains("--max-size") { o.maxSize = wanted.maxSize }
        try inv.perform(.setOptions(id, o))
        return CLIError.success
    }
}

extension Output {
    /// A task's options as JSON, credentials redacted: `headers` (`Name: value` lines), `userAgent`, `referer`,
    /// `proxy`, `login` (`[redacted]` when the URL had a `user:password`), `maxSpeed`, `connections`,
    /// `connectionsPerServer`, `minSplitSize`, `mirrors`; absent options are null (lists empty).
    static func options(_ o: TaskOptions) -> JSONValue {
        .obj([
            "headers": .array(o.headers.map { .string($0.redacted) }),
            "userAgent": .opt(o.userAgent),
            "referer": .opt(o.redactedReferer),
            "proxy": .opt(o.redactedProxy),
            "login": o.userinfo == nil ? .null : .string(TaskOptions.redaction),
            "maxSpeed": .opt(o.maxSpeed),
            "connections": o.connections.map { .int($0) } ?? .null,
            "connectionsPerServer": o.connectionsPerServer.map { .int($0) } ?? .null,
            "minSplitSize": .opt(o.minSplitSize),
            "mirrors": .array(o.mirrors.map { .string($0) }),
            "maxSize": .opt(o.maxSize),
        ])
    }
}

extension Invocation {
    /// A setting command (`limit`, `speed-limit`, `connections`): without its value, the current setting
    /// (`--json`: the number; else `name: value`, as `speed limit: 205 KB/s`: it says what is, not what was set);
    /// with it, the command `set` makes of the value.
    func showOrSet(
        _ placeholder: String, shown: (DownloadList) -> (value: Int, text: String),
        set: (String) throws -> Command
    ) throws -> Int32 {
        guard let raw = positionals.first else {
            let now = shown(try context.openForReading().list)
            console.out(context.json ? "\(now.value)" : now.text)
            return CLIError.success
        }
        try require([placeholder])
        try perform(try set(raw))
        return CLIError.success
    }
}
