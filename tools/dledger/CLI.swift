import DownloadLedger
import Foundation
import LedgerFrontEnd

/// The root command: finds the subcommand, validates its options, runs it and turns errors into exit codes.
enum CLI {
    static let version = "0.1.0"

    /// Every subcommand, in the order `dledger --help` lists them.
    static let commands: [CommandSpec] =
        [
            AddCommand.spec, RunCommands.get, RunCommands.run, ServeCommand.spec, ListCommand.spec,
            InfoCommand.spec, UICommand.spec,
        ]
        + TaskCommands.specs + OptionCommands.specs + [SettingCommand.spec] + SectionCommands.specs
        + InspectCommands.specs
        + UndoCommands.specs
        + [DemoCommand.spec, CompletionsCommand.spec] + ServiceCommands.specs

    /// The options every command accepts, as the root `--help` lists them (a `\n` continues the help text on
    /// the next row).
    static let globalOptions: [(String, String)] = [
        (
            "--ledger <path>",
            "The ledger file (default: $DLEDGER_LEDGER, else\n"
                + "$XDG_DATA_HOME/dledger/ledger.sqlite, else ~/.local/share/dledger/ledger.sqlite)."
        ),
        (
            "--dir <path>",
            "Download directory for tasks added now (default: the ledger's; get: the current one)."
        ),
        ("--json", "Print data as JSON (commands that print data)."),
        ("-q, --quiet", "Print less."),
        ("--no-color", "No colors (also when NO_COLOR is set)."),
        ("--version", "Show the version."),
        ("-h, --help", "Show help information."),
    ]

    static let helpAbstract = "Show help for a command."
    /// What `dledger help` accepts besides a command name.
    static let helpOptions: [(String, String)] = [("--man", "Print the manual page (roff, for man -l).")]

    /// The one-line description of a group of nested commands (`section`, `service`).
    static func groupAbstract(_ word: String) -> String {
        switch word {
        case "section": "Manage the list's sections."
        case "service": "Run the downloader as a systemd user service."
        default: "The \(word) commands."
        }
    }

    /// Whether `word` starts nested commands (`section add`, `service enable`).
    static func isGroup(_ word: String) -> Bool {
        commands.contains { $0.name.hasPrefix(word + " ") }
    }

    /// Runs the process's command line.
    static func main(_ tokens: [String]) async -> Int32 {
        let environment = ProcessInfo.processInfo.environment
        let cwd = FileManager.default.currentDirectoryPath
        do {
            let args = try Arguments(tokens)
            let console = Console(
                noColor: args.has("--no-color"), quiet: args.has("--quiet"), environment: environment)
            return await run(args, console: console, environment: environment, cwd: cwd)
        } catch {
            let hint = commandNamed(in: tokens).map { "dledger \($0) --help" } ?? "dledger --help"
            let line = Console.visible("error: \(error)\nhint: see '\(hint)'", keepingStyles: false)
            FileHandle.standardError.write(Data((line + "\n").utf8))
            return CLIError.usageStatus
        }
    }

    /// The command a command line that could not be parsed was meant for: the first word that names one.
    static func commandNamed(in tokens: [String]) -> String? {
        for (i, word) in tokens.enumerated() where !word.hasPrefix("-") {
            if isGroup(word), i + 1 < tokens.count,
                commands.contains(where: { $0.name == word + " " + tokens[i + 1] })
            {
                return word + " " + tokens[i + 1]
            }
            if commands.contains(where: { $0.name == word }) { return word }
        }
        return nil
    }

    /// Runs one parsed command line (also used by the demo, in-process).
    static func run(_ args: Arguments, console: Console, environment: [String: String], cwd: String) async
        -> Int32
    {
        var args = args
        var words = args.positionals
        if words.first == "help" {
            words.removeFirst()
            args.flags.insert("--help")
        }
        if args.has("--man") {
            guard words.isEmpty, args.given.isSubset(of: ["--man", "--help", "--no-color", "--quiet"]) else {
                return report(
                    .usage("'--man' goes alone with 'dledger help'"), hintFor: nil, console: console)
            }
            console.out(ManPage.render())
            return CLIError.success
        }
        guard let first = words.first else {
            if args.has("--version") {
                console.out("dledger \(version)")
                return CLIError.success
            }
            console.out(rootHelp())
            return args.has("--help") ? CLIError.success : CLIError.usageStatus
        }
        var name = first
        var used = 1
        if isGroup(first) {
            guard words.count > 1 else {
                console.out(groupHelp(first))
                return args.has("--help") ? CLIError.success : CLIError.usageStatus
            }
            name = first + " " + words[1]
            used = 2
        }
        guard let spec = commands.first(where: { $0.name == name }) else {
            return report(.usage("unknown command '\(name)'"), hintFor: nil, console: console)
        }
        if args.has("--help") {
            console.out(spec.help())
            return CLIError.success
        }
        if let bad = args.given.subtracting(spec.accepted).sorted().first {
            return report(
                .usage("option '\(bad)' does not apply to 'dledger \(name)'"), hintFor: name, console: console
            )
        }
        args.positionals = Array(args.positionals.drop { $0 == "help" }.dropFirst(used))
        let context = Context(arguments: args, console: console, environment: environment, cwd: cwd)
        defer { context.finish() }
        do {
            return try await spec.run(Invocation(spec: spec, args: args, context: context))
        } catch {
            return report(CLIError(error), hintFor: name, console: console)
        }
    }

    /// Prints `error: ...` (and, for usage errors, a hint) and returns the exit status.
    static func report(_ error: CLIError, hintFor name: String?, console: Console) -> Int32 {
        console.err(console.style("error:", .red) + " \(error)")
        if case .usage = error {
            console.err("hint: see 'dledger \(name.map { $0 + " " } ?? "")--help'")
        }
        return error.exitCode
    }

    static func rootHelp() -> String {
        var lines = [
            "OVERVIEW: A download manager whose source of truth is an append-only event log.",
            "",
            "USAGE: dledger <command> [options]",
            "",
            "Sections and positions are numbered from 0 as 'ls' shows them ('--to 1:0' is the top of the",
            "second section). Global options may come before or after the command.",
            "",
            "COMMANDS:",
        ]
        lines += commands.map { CommandSpec.row($0.name, $0.abstract) }
        lines += [
            CommandSpec.row("help [<command>]", helpAbstract),
            CommandSpec.row("help --man", "Print the manual page (roff, for man -l)."),
            "",
            "GLOBAL OPTIONS:",
        ]
        for (shown, help) in globalOptions {
            let parts = help.split(separator: "\n").map(String.init)
            lines.append(CommandSpec.row(shown, parts[0]))
            lines += parts.dropFirst().map { CommandSpec.row("", $0) }
        }
        lines += [
            "",
            "EXIT STATUS: 0 done, 1 failed, 64 usage error, 65 bad ledger file, 130 interrupted.",
            "Start with 'dledger demo'.",
        ]
        return lines.joined(separator: "\n")
    }

    static func groupHelp(_ word: String) -> String {
        var lines = [
            "OVERVIEW: \(groupAbstract(word))", "", "USAGE: dledger \(word) <subcommand>", "",
            "SUBCOMMANDS:",
        ]
        lines += commands.filter { $0.name.hasPrefix(word + " ") }.map {
            CommandSpec.row($0.name, $0.abstract)
        }
        return lines.joined(separator: "\n")
    }
}
