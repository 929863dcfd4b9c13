/// The command line split into positionals, options with values and flags.
///
/// Options are global: they may come before or after the subcommand. `--opt value` and `--opt=value` are the
/// same; `-j4` is `-j 4`; `--` ends the options (everything after it is positional, `-` alone is positional).
/// Which options a command accepts is checked by the command (`Invocation.accept`). An option that takes a
/// value may be given once (`--name a --name b` is a usage error, not "last wins"), unless it is listed in
/// `repeatable`; a flag given twice is the flag.
struct Arguments {
    /// Options that take a value.
    static let valueOptions: Set<String> = [
        "--ledger", "--dir", "--section", "--section-index", "--at", "--name", "--sha256", "--from-file",
        "-j",
        "--to", "--mode", "--task", "--since", "--limit", "--recent", "--sort", "--by", "--new-section",
        "--at-section", "--rpc-listen-port", "--rpc-secret", "--connections", "--header", "--user-agent",
        "--referer", "--proxy", "--max-speed", "--mirror", "--max-size", "--max-connection-per-server",
        "--min-split-size", "--rpc-allow-origin", "--allow-dir", "--on-download-complete",
        "--on-download-error", "--first", "--host-name", "--host",
    ]
    /// Options that take none.
    static let flagOptions: Set<String> = [
        "--json", "--quiet", "--no-color", "--help", "--version", "--all", "--until-idle", "--unfinished",
        "--finished", "--trash", "--desc", "--skip-files", "--checksums", "--keep", "--fast", "--past",
        "--now",
        "--urls", "--rpc-listen-all", "--rpc-allow-origin-all", "--print-secret",
        "--man",
        "--watch",
        "--ui",
        "--clear",
    ]
    /// Options that may be given several times, each value kept in order.
    static let repeatable: Set<String> = ["--header", "--mirror", "--rpc-allow-origin", "--allow-dir"]
    /// Short spellings.
    static let aliases: [String: String] = [
        "-q": "--quiet", "-h": "--help", "-V": "--version", "--jobs": "-j",
    ]

    var positionals: [String] = []
    /// Values by canonical option name, in the order given.
    var values: [String: [String]] = [:]
    var flags: Set<String> = []

    /// Splits `tokens` (the arguments without the program name).
    /// - Throws: `CLIError.usage` for an unknown option or an option missing its value.
    init(_ tokens: [String]) throws(CLIError) {
        var rest = tokens[...]
        while let token = rest.popFirst() {
            if token == "--" {
                positionals.append(contentsOf: rest)
                break
            }
            guard token.hasPrefix("-"), token != "-", !Self.isNegativeNumber(token) else {
                positionals.append(token)
                continue
            }
            var name = token
            var inline: String?
            if token.hasPrefix("--"), let eq = token.firstIndex(of: "=") {
                name = String(token[..<eq])
                inline = String(token[token.index(after: eq)...])
            } else if !token.hasPrefix("--"), token.count > 2,
                Self.valueOptions.contains(String(token.prefix(2)))
            {
                name = String(token.prefix(2))
                inline = String(token.dropFirst(2))
            }
            name = Self.aliases[name] ?? name
            if Self.valueOptions.contains(name) {
                guard let value = inline ?? rest.popFirst() else {
                    throw .usage("option '\(name)' needs a value")
                }
                if values[name] != nil, !Self.repeatable.contains(name) {
                    throw .usage("option '\(name)' is given twice (give it once)")
                }
                values[name, default: []].append(value)
            } else if Self.flagOptions.contains(name) {
                guard inline == nil else { throw .usage("option '\(name)' takes no value") }
                flags.insert(name)
            } else {
                throw .usage("unknown option '\(name)'")
            }
        }
    }

    /// The value given for `name` (the last, for a repeatable option).
    func value(_ name: String) -> String? { values[name]?.last }

    /// Every value given for a repeatable option, in order.
    func all(_ name: String) -> [String] { values[name] ?? [] }

    func has(_ flag: String) -> Bool { flags.contains(flag) }

    /// Every option name used.
    var given: Set<String> { flags.union(values.keys) }

    private static func isNegativeNumber(_ s: String) -> Bool {
        s.count > 1 && s.dropFirst().allSatisfy(\.isNumber)
    }
}
