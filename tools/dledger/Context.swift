import DownloadLedger
import Foundation
import Synchronization

/// What every command sees: where the ledger is, where downloads go, how to print.
struct Context: Sendable {
    let console: Console
    let environment: [String: String]
    /// Absolute current directory.
    let cwd: String
    /// Absolute path of the ledger file.
    let ledgerPath: String
    /// Absolute `--dir`, when given.
    let dir: String?
    let json: Bool
    /// The ledgers this command opened for writing, checkpointed when it ends (`finish`).
    private let opened = OpenedLedgers()

    init(arguments: Arguments, console: Console, environment: [String: String], cwd: String) {
        self.console = console
        self.environment = environment
        self.cwd = cwd
        let given = arguments.value("--ledger")
        ledgerPath = Self.absolute(given ?? Self.defaultLedgerPath(environment), cwd: cwd)
        dir = arguments.value("--dir").map { Self.absolute($0, cwd: cwd) }
        json = arguments.has("--json")
    }

    /// `$DLEDGER_LEDGER`, else `$XDG_DATA_HOME/dledger/ledger.sqlite`, else `~/.local/share/dledger/ledger.sqlite`.
    static func defaultLedgerPath(_ env: [String: String]) -> String {
        if let path = env["DLEDGER_LEDGER"], !path.isEmpty { return path }
        if let data = env["XDG_DATA_HOME"], !data.isEmpty { return data + "/dledger/ledger.sqlite" }
        let home = env["HOME"].flatMap { $0.isEmpty ? nil : $0 } ?? NSHomeDirectory()
        return home + "/.local/share/dledger/ledger.sqlite"
    }

    /// `path` made absolute against `cwd`, with `~` expanded and `.`/`..` resolved.
    static func absolute(_ path: String, cwd: String) -> String {
        let expanded = (path as NSString).expandingTildeInPath
        let full = expanded.hasPrefix("/") ? expanded : cwd + "/" + expanded
        return (full as NSString).standardizingPath
    }

    /// Opens the ledger for inspection: never creates it and never writes to it.
    func openForReading() throws -> Ledger {
        try Ledger(path: ledgerPath, creatingWithDirectory: nil, readOnly: true)
    }

    /// Opens the ledger for a command that changes it, creating it (default directory: `--dir`, else the
    /// current directory) when there is none.
    func openForWriting() throws -> Ledger {
        opened.add(
            try Ledger(
                path: ledgerPath, creatingWithDirectory: dir ?? cwd, readOnly: false, deferringCreation: true)
        )
    }

    /// Opens an existing ledger for writing: never creates it.
    func openExisting() throws -> Ledger {
        opened.add(try Ledger(path: ledgerPath, creatingWithDirectory: nil, readOnly: false))
    }

    /// The command is done: the write-ahead log of every ledger it wrote is folded into the main file (when no
    /// other process still reads it), so that the main file alone holds every event, and the file is left in
    /// rollback-journal mode when no other process has it open (any copy then opens in the plain sqlite3 shell).
    func finish() {
        for ledger in opened.all() {
            // A command that left a long tail snapshots it, so that the readers after it decode none of it.
            try? ledger.saveSnapshotIfTailIsLong()
            ledger.leaveQuiet()
        }
    }
}

/// The ledgers one command opened for writing.
final class OpenedLedgers: Sendable {
    private let ledgers = Mutex<[Ledger]>([])

    func add(_ ledger: Ledger) -> Ledger {
        ledgers.withLock { $0.append(ledger) }
        return ledger
    }

    func all() -> [Ledger] { ledgers.withLock { $0 } }
}

/// One run of one command: its spec, its arguments (command words removed) and the context.
struct Invocation {
    let spec: CommandSpec
    let args: Arguments
    let context: Context

    var console: Console { context.console }
    var positionals: [String] { args.positionals }

    /// Exactly `count` positionals, named for the error message.
    func require(_ names: [String]) throws {
        if positionals.count < names.count {
            throw CLIError.usage("missing \(names[positionals.count]) (usage: dledger \(spec.usage))")
        }
        if positionals.count > names.count {
            throw CLIError.usage("unexpected argument '\(positionals[names.count])'")
        }
    }

    /// `ID... | --section N | --all`: exactly one of them.
    func selection() throws -> Selection {
        let section =
            try int("--section-index")
            ?? args.value("--section").map { raw in
                try sectionIndex(raw)
            }
        let all = args.has("--all")
        let chosen = (positionals.isEmpty ? 0 : 1) + (section == nil ? 0 : 1) + (all ? 1 : 0)
        guard chosen == 1 else {
            throw CLIError.usage(
                chosen == 0
                    ? "give task ids, --section N or --all" : "give only one of: ids, --section, --all")
        }
        if let section { return .section(section) }
        if all { return .all }
        return .tasks(try ids())
    }
}
