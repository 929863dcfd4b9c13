import LedgerCore

/// The options of `addUri` this server applies, read and checked before anything is appended.
struct AddOptions {
    var dir: String?
    var out: String?
    var sha256: String?
    /// `header`, `user-agent`, `referer`, `all-proxy`, `max-download-limit`, `split`,
    /// `max-connection-per-server`, `min-split-size`: kept with the task.
    var request = TaskOptions()

    /// Options aria2 knows that a task here does not keep: accepted and ignored, as aria2 ignores options that do
    /// not apply to a download.
    static let ignored: Set<String> = [
        "continue", "allow-overwrite",
        "auto-file-renaming", "pause", "check-integrity", "remote-time", "file-allocation",
    ]

    /// The keys that are a task's request options, which `changeOption` changes too.
    static let requestKeys: Set<String> = [
        "header", "user-agent", "referer", "all-proxy", "max-download-limit", "split",
        "max-connection-per-server", "min-split-size",
    ]

    /// The `dir` option: an absolute path, with `.` and `..` resolved as the CLI resolves `--dir` (aria2c takes
    /// `/data/../tmp` as `/tmp`); a path the downloader would refuse later is not taken now.
    static func directory(_ text: String) throws -> String {
        guard text.hasPrefix("/") else {
            throw RPCError.failed("option dir must be an absolute path: \(text)")
        }
        var parts: [Substring] = []
        for part in text.split(separator: "/") where part != "." {
            if part == ".." { _ = parts.popLast() } else { parts.append(part) }
        }
        return "/" + parts.joined(separator: "/")
    }

    init(_ fields: [(String, RPCValue)], defaultDir: String?) throws {
        dir = defaultDir
        for (key, value) in fields {
            if Self.requestKeys.contains(key) {
                try Self.apply(key, value, to: &request)
                continue
            }
            let text = try Self.text(key, value)
            switch key {
            case "dir":
                dir = try Self.directory(text)
            case "out":
                out = text
            case "checksum":
                let parts = text.split(separator: "=", maxSplits: 1)
                guard parts.count == 2, parts[0].lowercased() == "sha-256" else {
                    throw RPCError.failed(
                        "option checksum: only sha-256=<hex digest> is supported, not \(text)")
                }
                sha256 = String(parts[1]).lowercased()
            default:
                guard Self.ignored.contains(key) else {
                    throw RPCError.failed("option \(key) is not supported")
                }
            }
        }
    }

    private static func text(_ key: String, _ value: RPCValue) throws -> String {
        switch value {
        case .string(let s): return s
        case .int(let n): return String(n)
        case .bool(let b): return b ? "true" : "false"
        default: throw RPCError.invalidParams("option \(key) must be a string")
        }
    }

    /// Sets one request option from aria2's form: `header` a string or a list of `Name: value` strings (each
    /// given `header` replaces the list), `max-download-limit` aria2's speed syntax, `split` 1 to 64,
    /// `max-connection-per-server` 1 to 16, `min-split-size` 1M to 1G (aria2's K and M, 1024-based), an empty
    /// `all-proxy` none. The values are checked by the ledger when the command is decided.
    static func apply(_ key: String, _ value: RPCValue, to o: inout TaskOptions) throws {
        if key == "header" {
            let lines: [String]
            switch value {
            case .array(let items): lines = try items.map { try Self.text(key, $0) }
            default: lines = [try Self.text(key, value)]
            }
            do {
                o.headers = try lines.filter { !$0.isEmpty }.map(Validation.header)
            } catch let e as LedgerError {
                throw RPCError.failed(e.description)
            }
            return
        }
        let text = try Self.text(key, value)
        switch key {
        case "user-agent": o.userAgent = text.isEmpty ? nil : text
        case "referer":
            o.referer = text.isEmpty ? nil : text
            o.refererUserinfo = nil
        case "all-proxy":
            o.proxy = text.isEmpty ? nil : text
            o.proxyUserinfo = nil
        case "max-download-limit":
            let n = try Aria2Service.speed(text, option: key)
            o.maxSpeed = n == 0 ? nil : n
        case "split":
            guard let n = Int(text), TaskOptions.connectionRange.contains(n) else {
                throw RPCError.failed("option split must be 1 to 64, not \(text)")
            }
            o.connections = n
        case "max-connection-per-server": o.connectionsPerServer = try connectionsPerServer(text)
        case "min-split-size": o.minSplitSize = try minSplitSize(text)
        default: break
        }
    }

    /// aria2's `max-connection-per-server`: 1 to 16.
    static func connectionsPerServer(_ text: String) throws -> Int {
        guard let n = Int(text), TaskOptions.connectionPerServerRange.contains(n) else {
            throw RPCError.failed("option max-connection-per-server must be 1 to 16, not \(text)")
        }
        return n
    }

    /// aria2's `min-split-size`: bytes with an optional K or M (1024-based), 1M to 1024M.
    static func minSplitSize(_ text: String) throws -> Int64 {
        let n = try? Aria2Service.speed(text, option: "min-split-size")
        guard let n, TaskOptions.minSplitSizeRange.contains(n) else {
            throw RPCError.failed("option min-split-size must be 1M to 1024M, not \(text)")
        }
        return n
    }
}
