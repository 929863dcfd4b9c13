import DownloadLedger
import Foundation

/// `dledger service units DIR`, `service enable [COMMAND]`, `service disable [COMMAND]`: dledger's long-lived
/// commands as systemd user services (`ServiceUnit.table`). tools/install.sh installs the units.
enum ServiceCommands {
    static let commandArgument = (
        "<command>",
        ServiceUnit.table.map { "\($0.command): \($0.name)" }.joined(separator: ", ") + " (default: run)"
    )

    static let specs: [CommandSpec] = [
        CommandSpec(
            name: "service enable",
            abstract: "Enable and start the user service of 'dledger run' (or of 'serve').",
            usage: "service enable [<command>]", arguments: [commandArgument],
            discussion: "The service runs on the ledger this command sees (--ledger, $DLEDGER_LEDGER, else\n"
                + "$XDG_DATA_HOME/dledger/ledger.sqlite), written to a drop-in next to the unit. Its output\n"
                + "goes to the journal: journalctl --user -u dledger.service.",
            run: { try enable($0) }),
        CommandSpec(
            name: "service disable", abstract: "Stop and disable the systemd user service; the ledger stays.",
            usage: "service disable [<command>]", arguments: [commandArgument],
            run: { try disable($0) }),
        CommandSpec(
            name: "service units",
            abstract: "Write the systemd user unit files into a folder (tools/install.sh).",
            usage: "service units <dir>", arguments: [("<dir>", "An existing folder; no file is replaced.")],
            run: { try writeUnits($0) }),
    ]

    static func enable(_ inv: Invocation) throws -> Int32 {
        let unit = try ServiceUnit.named(try single(inv))
        let ledger = inv.context.ledgerPath
        // A ledger in PostgreSQL is named by its URI, which the drop-in keeps in clear: no password in it.
        let shown = PostgresLocation.isPostgres(ledger) ? PostgresLocation.mask(ledger) : ledger
        if shown != ledger {
            throw CLIError.usage(
                "the ledger's URI holds a password, which the service's drop-in would keep in clear: "
                    + "put it in ~/.pgpass (or a passfile= parameter) and give the URI without it")
        }
        // The service's downloader takes this host name on a shared ledger, as this shell's commands do.
        // Only a name given is written: without one, the service's downloader takes its machine's name.
        let host = inv.context.environment[HostOptions.variable] == nil ? nil : try HostOptions.hostName(inv)
        let systemctl = try userManager()
        let path = unit.dropInPath(environment: inv.context.environment)
        let previous = FileManager.default.contents(atPath: path)
        if let previous, !String(decoding: previous, as: UTF8.self).hasPrefix(ServiceUnit.dropInMarker) {
            throw CLIError.failed("\(path) exists and was not written by dledger: not replacing it")
        }
        let content = try ServiceUnit.ledgerDropIn(ledger: ledger, host: host)
        // Right after tools/install.sh there is no ledger yet: the service gets a new one, empty.
        let opened = try inv.context.openCreatingNow()
        if opened.created {
            inv.console.info(
                "created the ledger \(shown): downloads will go to \(opened.ledger.list.directory)")
        }
        let folder = (path as NSString).deletingLastPathComponent
        let createdFolder = !FileManager.default.fileExists(atPath: folder)
        do {
            try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
            try Data(content.utf8).write(to: URL(fileURLWithPath: path), options: .atomic)
        } catch {
            throw CLIError.failed("cannot write \(path): \(error.localizedDescription)")
        }
        do {
            try run(systemctl, ["--user", "daemon-reload"])
            try run(systemctl, ["--user", "enable", "--now", unit.name])
        } catch {
            if let previous {
                try? previous.write(to: URL(fileURLWithPath: path), options: .atomic)
            } else {
                try? FileManager.default.removeItem(atPath: path)
                if createdFolder { try? FileManager.default.removeItem(atPath: folder) }
            }
            throw error
        }
        inv.console.info(
            "enabled \(unit.name): 'dledger \(unit.arguments.joined(separator: " "))' on \(shown)"
                + (host.map { " as host \($0)" } ?? ""))
        inv.console.info("its output: journalctl --user -u \(unit.name)")
        return CLIError.success
    }

    static func disable(_ inv: Invocation) throws -> Int32 {
        let unit = try ServiceUnit.named(try single(inv))
        let path = unit.dropInPath(environment: inv.context.environment)
        let folder = (path as NSString).deletingLastPathComponent
        let ours = FileManager.default.contents(atPath: path).map {
            String(decoding: $0, as: UTF8.self).hasPrefix(ServiceUnit.dropInMarker)
        }
        let systemctl: String
        do {
            systemctl = try userManager()
        } catch CLIError.failed(let line) where ours != true {
            // Nothing of dledger's is enabled: nothing to undo, and nothing to say but why.
            inv.console.info(line)
            return CLIError.success
        }
        guard ours == true || (try? run(systemctl, ["--user", "is-enabled", "--quiet", unit.name])) != nil
        else {
            // An empty folder a drop-in once was in goes (the folder is named for the unit: ours).
            rmdir(folder)
            inv.console.info("\(unit.name) is not enabled: nothing to disable")
            return CLIError.success
        }
        var failure: Error?
        do { try run(systemctl, ["--user", "disable", "--now", unit.name]) } catch { failure = error }
        if ours == true {
            try? FileManager.default.removeItem(atPath: path)
            // The folder goes too when nothing else is in it.
            rmdir(folder)
            try? run(systemctl, ["--user", "daemon-reload"])
        }
        if let failure { throw failure }
        inv.console.info("disabled \(unit.name) (the ledger stays)")
        return CLIError.success
    }

    static func writeUnits(_ inv: Invocation) throws -> Int32 {
        try inv.require(["<dir>"])
        let dir = Context.absolute(inv.positionals[0], cwd: inv.context.cwd)
        var isDir: ObjCBool = false
        guard FileManager.default.fileExists(atPath: dir, isDirectory: &isDir), isDir.boolValue else {
            throw CLIError.invalid("not a folder: \(dir)")
        }
        let executable = ServiceUnit.executable()
        for unit in ServiceUnit.table {
            let path = dir + "/" + unit.name
            let bytes = Array(try unit.file(executable: executable).utf8)
            let fd = open(path, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0o644)
            guard fd >= 0 else {
                throw CLIError.failed("cannot create \(path): \(String(cString: strerror(errno)))")
            }
            let written = bytes.withUnsafeBytes { write(fd, $0.baseAddress, $0.count) }
            close(fd)
            guard written == bytes.count else {
                unlink(path)
                throw CLIError.failed("cannot write \(path)")
            }
            inv.console.out(path)
        }
        return CLIError.success
    }

    /// The optional single positional.
    private static func single(_ inv: Invocation) throws -> String? {
        if inv.positionals.count > 1 { throw CLIError.usage("unexpected argument '\(inv.positionals[1])'") }
        return inv.positionals.first
    }

    /// What to say where there is no systemd user manager (a container, WSL, an ssh session without lingering).
    static let noUserManager =
        "no systemd user manager here (a container, WSL, or ssh without lingering): run 'dledger run' in a"
        + " terminal instead, or 'loginctl enable-linger' and log in again"

    /// systemctl on PATH, once it has shown that a user manager answers (`systemctl --user show-environment`).
    /// - Throws: `CLIError.failed` with ``noUserManager`` when there is none (or no systemctl).
    static func userManager() throws -> String {
        guard let systemctl = try? systemctl(), (try? run(systemctl, ["--user", "show-environment"])) != nil
        else { throw CLIError.failed(noUserManager) }
        return systemctl
    }

    /// systemctl on PATH.
    static func systemctl() throws -> String {
        let path = ProcessInfo.processInfo.environment["PATH"] ?? "/usr/bin:/bin"
        for dir in path.split(separator: ":").map(String.init) {
            let candidate = dir + "/systemctl"
            if FileManager.default.isExecutableFile(atPath: candidate) { return candidate }
        }
        throw CLIError.failed("systemctl not found: the service needs systemd")
    }

    /// Runs systemctl; a failure becomes one line with the first line systemctl printed.
    private static func run(_ executable: String, _ args: [String]) throws {
        let p = Process()
        p.executableURL = URL(fileURLWithPath: executable)
        p.arguments = args
        let err = Pipe()
        p.standardError = err
        p.standardOutput = FileHandle.nullDevice
        try p.run()
        let said = err.fileHandleForReading.readDataToEndOfFile()
        p.waitUntilExit()
        guard p.terminationStatus == 0 else {
            let first = String(decoding: said, as: UTF8.self).split(separator: "\n").first.map(String.init)
            throw CLIError.failed(
                "systemctl \(args.joined(separator: " ")) failed"
                    + (first.map { ": \($0)" } ?? " (exit \(p.terminationStatus))"))
        }
    }
}
