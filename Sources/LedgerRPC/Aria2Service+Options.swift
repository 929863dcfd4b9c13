import DownloadLedger

extension Aria2Service {
    /// aria2's speed syntax: bytes per second, with an optional K or M (1024-based).
    static func speed(_ text: String, option: String) throws -> Int64 {
        var digits = Substring(text)
        var unit: Int64 = 1
        switch digits.last {
        case "K", "k": unit = 1 << 10
        case "M", "m": unit = 1 << 20
        default: break
        }
        if unit != 1 { digits = digits.dropLast() }
        guard let n = Int64(digits), n >= 0, n <= Int64.max / unit else {
            throw RPCError.failed("We encountered a problem while processing the option '--\(option)'.")
        }
        return n * unit
    }

    static func text(_ value: RPCValue, option: String) throws -> String {
        switch value {
        case .string(let s): return s
        case .int(let n): return String(n)
        default: throw RPCError.failed("We encountered a problem while processing the option '--\(option)'.")
        }
    }

    func globalOptions() -> RPCValue {
        let list = ledger.latestList
        return .object([
            ("dir", .string(settings.withLock { $0.dir } ?? list.directory)),
            ("max-concurrent-downloads", .number(Int64(list.maxDownloads))),
            ("max-connection-per-server", .number(Int64(Self.connectionsPerServer(list)))),
            ("max-download-limit", .string("0")),
            (
                "split",
                .number(Int64(list.connections > 0 ? list.connections : TransferConfig().connectionsPerTask))
            ),
            ("max-overall-download-limit", .number(list.speedLimit)),
            ("max-overall-upload-limit", .string("0")),
            ("max-upload-limit", .string("0")),
            ("min-split-size", .number(Self.minSplitSize(list))),
            ("user-agent", .string(Self.userAgent(list))),
        ])
    }

    /// The connections to one server a task without its own gets: the ledger's, else the downloader's.
    static func connectionsPerServer(_ list: DownloadList) -> Int {
        list.connectionsPerServer > 0 ? list.connectionsPerServer : TransferConfig().connectionsPerServer
    }

    /// The User-Agent a task without its own sends: the ledger's, else the downloader's.
    static func userAgent(_ list: DownloadList) -> String {
        let own = list[.userAgent].text
        return own.isEmpty ? TransferConfig().userAgent : own
    }

    /// The smallest piece for a task without its own, in bytes: the ledger's, else the downloader's.
    static func minSplitSize(_ list: DownloadList) -> Int64 {
        list.minSplitSize > 0 ? list.minSplitSize : TransferConfig().minPieceSize
    }

    /// `changeGlobalOption`: every value is checked first, then the changes are made all or nothing, in one
    /// transaction (``execute(all:)``): `max-concurrent-downloads`, `max-overall-download-limit`, `split`,
    /// `max-connection-per-server`, `min-split-size`, `user-agent` are the ledger's settings, `dir` this server's;
    /// options this server does not keep are answered "OK" and ignored, as aria2 answers options it cannot change.
    func changeGlobalOption(_ p: RPCParams) throws -> RPCValue {
        guard let fields = try p.options(0) else {
            throw RPCError.invalidParams("The parameter at 0 is missing.")
        }
        var commands: [Command] = []
        var dir: String?
        for (key, value) in fields {
            let text = try Self.text(value, option: key)
            if key == "dir" {
                dir = try confined(AddOptions.directory(text))
            } else if let command = try Self.globalCommand(key, text) {
                commands.append(command)
            }
        }
        try execute(all: commands)
        if let dir { settings.withLock { $0.dir = dir } }
        return .string("OK")
    }

    /// The ledger's command setting one of aria2's global options to `text`; nil for an option the ledger does not
    /// keep.
    static func globalCommand(_ key: String, _ text: String) throws -> Command? {
        let refused = RPCError.failed("We encountered a problem while processing the option '--\(key)'.")
        switch key {
        case "max-concurrent-downloads":
            guard let n = Int(text), (1...1000).contains(n) else { throw refused }
            return .setMaxDownloads(n)
        case "max-overall-download-limit":
            return .setSpeedLimit(try speed(text, option: key))
        case "split":
            guard let n = Int(text), TaskOptions.connectionRange.contains(n) else { throw refused }
            return .setConnections(n)
        case "max-connection-per-server":
            return .setConnectionsPerServer(try AddOptions.connectionsPerServer(text))
        case "min-split-size":
            return .setMinSplitSize(try AddOptions.minSplitSize(text))
        case "user-agent":
            if text.isEmpty { return .set(.userAgent, .text("")) }
            guard let agent = try? Validation.userAgent(text) else { throw refused }
            return .set(.userAgent, .text(agent))
        default:
            return nil
        }
    }

    /// `getOption(gid)`: the task's options, numbers as strings and credentials `[redacted]`; `header` is the
    /// headers each ended by a newline, as aria2 answers a list option.
    func getOption(_ p: RPCParams) throws -> RPCValue {
        let (task, _) = try task(try p.string(0))
        let o = task.options
        let list = ledger.latestList
        var fields: [(String, RPCValue)] = []
        // aria2 reads a proxy back with the path it gave it, `/`.
        if let proxy = o.redactedProxy { fields.append(("all-proxy", .string(proxy + "/"))) }
        if let sha = task.expectedSHA256 { fields.append(("checksum", .string("sha-256=" + sha))) }
        fields.append(("dir", .string(task.directory)))
        if !o.headers.isEmpty {
            fields.append(("header", .string(o.headers.map { $0.redacted + "\n" }.joined())))
        }
        if let n = o.connectionsPerServer ?? (list.connectionsPerServer > 0 ? list.connectionsPerServer : nil)
        {
            fields.append(("max-connection-per-server", .number(Int64(n))))
        }
        fields.append(("max-download-limit", .number(o.maxSpeed ?? 0)))
        if let n = o.minSplitSize ?? (list.minSplitSize > 0 ? list.minSplitSize : nil) {
            fields.append(("min-split-size", .number(n)))
        }
        if task.nameIsUserChosen { fields.append(("out", .string(task.displayName))) }
        if let referer = o.redactedReferer { fields.append(("referer", .string(referer))) }
        if let n = o.connections ?? (list.connections > 0 ? list.connections : nil) {
            fields.append(("split", .number(Int64(n))))
        }
        if let ua = o.userAgent { fields.append(("user-agent", .string(ua))) }
        return .object(fields)
    }

    /// `changeOption(gid, options)`: the task's request options (`header`, `user-agent`, `referer`, `all-proxy`,
    /// `max-download-limit`, `split`, `max-connection-per-server`, `min-split-size`) change as one event; a running download takes a new speed limit at once and
    /// the rest from its next request. `dir`, `out` and `checksum` cannot change after the add; other options are
    /// answered "OK" and ignored, as aria2 answers options it cannot change.
    func changeOption(_ p: RPCParams) throws -> RPCValue {
        let (task, trashed) = try task(try p.string(0))
        guard let fields = try p.options(1) else {
            throw RPCError.invalidParams("The parameter at 1 is missing.")
        }
        for (key, _) in fields where ["dir", "out", "checksum"].contains(key) {
            throw RPCError.failed("option \(key) cannot be changed for a download that was added")
        }
        var o = task.options
        for (key, value) in fields where AddOptions.requestKeys.contains(key) {
            try AddOptions.apply(key, value, to: &o)
        }
        guard o != task.options else { return .string("OK") }
        if trashed { throw RPCError.failed("GID#\(GID.of(task.id)) is in the to-delete list") }
        _ = try execute(.setOptions(task.id, o))
        return .string("OK")
    }
}
