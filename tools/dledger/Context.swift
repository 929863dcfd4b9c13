import DownloadLedger
import Foundation
import Synchronization

/// What every command sees: where the ledger is, where downloads go, how to print.
struct Context: Sendable {
    let console: Console
    let environment: [String: String]
    /// Absolute current directory.
    let cwd: String
    /// Absolute path of the ledger file, or a `postgresql://` URI.
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
        let location = given ?? Self.defaultLedgerPath(environment)
        // A `postgresql://` URI is libpq's to read, as written.
        ledgerPath = PostgresLocation.isPostgres(location) ? location : Self.absolute(location, cwd: cwd)
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
    /// Without `keepingUndo`, the ledger's undo history is not kept up (a command that never shows it).
    func openForReading(keepingUndo: Bool = true) throws -> Ledger {
        try Ledger(path: ledgerPath, creatingWithDirectory: nil, readOnly: true, keepingUndo: keepingUndo)
    }

    /// Opens the ledger for a command that changes it, creating it when there is none, with the user's download
    /// folder as its own (``newLedgerFolder``; `--dir` is for the command's tasks only).
    func openForWriting() throws -> Ledger {
        // xdg-user-dir is asked only for a ledger that is not there yet: most commands find theirs.
        let folder =
            FileManager.default.fileExists(atPath: ledgerPath)
            ? Self.userDownloadFolder(environment, askingXDG: false) : newLedgerFolder
        let ledger = opened.add(
            try Ledger(
                path: ledgerPath, creatingWithDirectory: folder, readOnly: false, deferringCreation: true))
        // On a shared ledger, the commands of this process touch files as the host `$DLEDGER_HOST_NAME` names
        // (a downloader's `--host-name` sets its own).
        if let host = environment[HostOptions.variable], Validation.isHostName(host) {
            ledger.hostName = host
        }
        return ledger
    }

    /// Opens the ledger for writing, creating its file at once (with ``newLedgerFolder``) when there is none:
    /// for a command that hands the ledger to another process (`service enable`).
    /// - Returns: the ledger and whether this call created it.
    func openCreatingNow() throws -> (ledger: Ledger, created: Bool) {
        // A ledger in PostgreSQL exists when its schema does (a look at the catalog, without reading the ledger).
        let existed =
            PostgresLocation.isPostgres(ledgerPath)
            ? try EventStoreLocation.postgresLedgerExists(ledgerPath)
            : FileManager.default.fileExists(atPath: ledgerPath)
        let ledger = opened.add(
            try Ledger(
                path: ledgerPath,
                creatingWithDirectory: existed
                    ? Self.userDownloadFolder(environment, askingXDG: false) : newLedgerFolder,
                readOnly: false))
        return (ledger, !existed)
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
