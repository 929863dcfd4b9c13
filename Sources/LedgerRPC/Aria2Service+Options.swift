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
        let list = ledger.list
        return .object([
            ("dir", .string(settings.withLock { $0.dir } ?? list.directory)),
            ("max-concurrent-downloads", .number(Int64(list.maxDownloads))),
            ("max-download-limit", .string("0")),
            ("max-overall-download-limit", .number(list.speedLimit)),
            ("max-overall-upload-limit", .string("0")),
            ("max-upload-limit", .string("0")),
        ])
    }

    /// `changeGlobalOption`: every value is checked first, then each change is its command; options this
    /// server does not keep are answered "OK" and ignored, as aria2 answers options it cannot change.
    func changeGlobalOption(_ p: RPCParams) throws -> RPCValue {
        guard let fields = try p.options(0) else {
            throw RPCError.invalidParams("The parameter at 0 is missing.")
        }
        var commands: [Command] = []
        var dir: String?
        for (key, value) in fields {
            let text = try Self.text(value, option: key)
            switch key {
            case "max-concurrent-downloads":
                guard let n = Int(text), (1...1000).contains(n) else {
                    throw RPCError.failed("We encountered a problem while processing the option '--\(key)'.")
                }
                commands.append(.setMaxDownloads(n))
            case "max-overall-download-limit":
                commands.append(.setSpeedLimit(try Self.speed(text, option: key)))
            case "dir":
                guard text.hasPrefix("/") else {
                    throw RPCError.failed("option dir must be an absolute path")
                }
                dir = text
            default:
                continue
            }
        }
        for command in commands {
            do {
                try ledger.execute(command, origin: Self.origin)
            } catch LedgerError.nothingToDo {
            } catch let e as LedgerError {
                throw RPCError.failed(e.description)
            }
        }
        if let dir { settings.withLock { $0.dir = dir } }
        return .string("OK")
    }

    func getOption(_ p: RPCParams) throws -> RPCValue {
        let (task, _) = try task(try p.string(0))
        var fields: [(String, RPCValue)] = []
        if let sha = task.expectedSHA256 { fields.append(("checksum", .string("sha-256=" + sha))) }
        fields.append(("dir", .string(task.directory)))
        fields.append(("max-download-limit", .string("0")))
        if task.nameIsUserChosen { fields.append(("out", .string(task.displayName))) }
        return .object(fields)
    }

    /// `changeOption(gid, options)`: nothing a task keeps can change after it was added yet.
    func changeOption(_ p: RPCParams) throws -> RPCValue {
        _ = try task(try p.string(0))
        guard let fields = try p.options(1) else {
            throw RPCError.invalidParams("The parameter at 1 is missing.")
        }
        for (key, _) in fields where ["dir", "out", "checksum", "max-download-limit"].contains(key) {
            throw RPCError.failed("option \(key) cannot be changed for a download that was added")
        }
        return .string("OK")
    }
}
