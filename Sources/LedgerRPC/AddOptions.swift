import LedgerCore

/// The options of `addUri` this server applies, read and checked before anything is appended.
struct AddOptions {
    var dir: String?
    var out: String?
    var sha256: String?

    /// Options aria2 knows that a task here does not keep: accepted and ignored, as aria2 ignores options that do
    /// not apply to a download.
    static let ignored: Set<String> = [
        "split", "max-connection-per-server", "min-split-size", "continue", "allow-overwrite",
        "auto-file-renaming", "pause", "check-integrity", "remote-time", "file-allocation",
    ]

    init(_ fields: [(String, RPCValue)], defaultDir: String?) throws {
        dir = defaultDir
        for (key, value) in fields {
            let text: String
            switch value {
            case .string(let s): text = s
            case .int(let n): text = String(n)
            case .bool(let b): text = b ? "true" : "false"
            default: throw RPCError.invalidParams("option \(key) must be a string")
            }
            switch key {
            case "dir":
                guard text.hasPrefix("/") else {
                    throw RPCError.failed("option dir must be an absolute path: \(text)")
                }
                dir = text
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
}
