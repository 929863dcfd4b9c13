import Foundation
import PostgresSupport
import Testing

/// `dledger service units|enable|disable`: the unit files systemd accepts, and enabling writes the ledger the
/// service runs on next to the unit and asks systemctl to enable it; disabling undoes both.
///
/// systemctl is replaced on PATH by a script that writes down its calls: a test must not enable a service
/// for the user who runs it (and the test machines have no user manager, which one test relies on).
/// `systemd-analyze verify` is real.
@Suite struct ServiceTests {
    /// A spy systemctl in `root/bin` logging to `root/systemctl.log`; fails (as without a user manager) while
    /// `root/fail` exists, and fails one verb (`daemon-reload`, `is-enabled`) while `root/fail-VERB` exists.
    static func spy(_ box: DledgerSandbox) throws -> (path: String, log: String) {
        let bin = box.root + "/bin"
        try FileManager.default.createDirectory(atPath: bin, withIntermediateDirectories: true)
        let log = box.root + "/systemctl.log"
        try ScriptRun.writeScript(
            bin + "/systemctl",
            """
            echo "$*" >> '\(log)'
            if [ -e '\(box.root)/fail' ]; then echo 'Failed to connect to bus: No medium found' >&2; exit 1; fi
            if [ -e "\(box.root)/fail-$2" ]; then echo "$2 failed" >&2; exit 1; fi
            """)
        return (bin + ":" + (ProcessInfo.processInfo.environment["PATH"] ?? "/usr/bin:/bin"), log)
    }

    static func calls(_ log: String) -> [String] {
        ((try? String(contentsOfFile: log, encoding: .utf8)) ?? "").split(separator: "\n").map(String.init)
    }

    @Test func enableWritesTheLedgerAndDisableTakesItAway() async throws {
        let box = try DledgerSandbox()
        let (path, log) = try Self.spy(box)
        let config = box.root + "/config"
        let env = ["PATH": path, "XDG_CONFIG_HOME": config]
        try await box.run("section", "add", "Later")
        let enabled = try await box.run("service", "enable", env: env)
        #expect(enabled.status == 0, "\(enabled.err)")
        #expect(enabled.out.contains("enabled dledger.service: 'dledger run' on \(box.ledger)"))
        #expect(
            Self.calls(log) == [
                "--user show-environment", "--user daemon-reload", "--user enable --now dledger.service",
            ])
        let dropIn = config + "/systemd/user/dledger.service.d/ledger.conf"
        let text = try String(contentsOfFile: dropIn, encoding: .utf8)
        #expect(text.contains("[Service]\nEnvironment=\"DLEDGER_LEDGER=\(box.ledger)\"\n"))

        let disabled = try await box.run("service", "disable", "run", env: env)
        #expect(disabled.status == 0, "\(disabled.err)")
        #expect(disabled.out == "disabled dledger.service (the ledger stays)\n")
        #expect(
            Self.calls(log).suffix(2) == ["--user disable --now dledger.service", "--user daemon-reload"])
        #expect(!FileManager.default.fileExists(atPath: config + "/systemd/user/dledger.service.d"))
        #expect(FileManager.default.fileExists(atPath: box.ledger), "the ledger stays")

        let serve = try await box.run("service", "enable", "serve", env: env)
        #expect(serve.status == 0, "\(serve.err)")
        #expect(Self.calls(log).last == "--user enable --now dledger-serve.service")
        #expect(
            FileManager.default.fileExists(
                atPath: config + "/systemd/user/dledger-serve.service.d/ledger.conf"))
    }

    @Test func whenSystemctlFailsNothingIsLeftAndTheErrorIsOneLine() async throws {
        let box = try DledgerSandbox()
        let (path, _) = try Self.spy(box)
        try "".write(toFile: box.root + "/fail-daemon-reload", atomically: true, encoding: .utf8)
        let config = box.root + "/config"
        try await box.run("section", "add", "Later")
        let r = try await box.run("service", "enable", env: ["PATH": path, "XDG_CONFIG_HOME": config])
        #expect(r.status == 1)
        #expect(r.err == "error: systemctl --user daemon-reload failed: daemon-reload failed\n")
        #expect(!FileManager.default.fileExists(atPath: config + "/systemd/user/dledger.service.d"))
    }

    /// Right after tools/install.sh there is no ledger: `service enable` makes one (in the user's download
    /// folder) for the service to run on.
    @Test func enableCreatesTheLedgerWhenThereIsNone() async throws {
        let box = try DledgerSandbox()
        let (path, log) = try Self.spy(box)
        let config = box.root + "/config"
        let r = try await box.run("service", "enable", env: ["PATH": path, "XDG_CONFIG_HOME": config])
        #expect(r.status == 0, "\(r.err)")
        #expect(r.out.hasPrefix("created the ledger \(box.ledger): downloads will go to \(box.downloads)\n"))
        #expect(FileManager.default.fileExists(atPath: box.ledger))
        #expect(
            ((try await box.run("set", "--json")).json as? [String: Any])?["dir"] as? String == box.downloads)
        #expect(Self.calls(log).last == "--user enable --now dledger.service")
        let again = try await box.run("service", "enable", env: ["PATH": path, "XDG_CONFIG_HOME": config])
        #expect(again.status == 0 && !again.out.contains("created the ledger"), "\(again.out)")
    }

    /// A shared list in PostgreSQL: the service runs on its URI (created once, in the database) under the host
    /// name this shell has; a URI with a password is refused before anything is written, since the drop-in would
    /// keep it in clear.
    @Test func enableOnAPostgresLedgerKeepsTheHostNameAndNoPassword() async throws {
        let box = try DledgerSandbox()
        let (path, log) = try Self.spy(box)
        let config = box.root + "/config"
        let uri = try PostgresTestCluster.freshLedger("service")
        let env = [
            "PATH": path, "XDG_CONFIG_HOME": config, "DLEDGER_LEDGER": uri, "DLEDGER_HOST_NAME": "nas",
        ]
        let r = try await box.run("service", "enable", env: env)
        #expect(r.status == 0, "\(r.err)")
        #expect(r.out.hasPrefix("created the ledger \(uri): downloads will go to "), "\(r.out)")
        #expect(r.out.contains("enabled dledger.service: 'dledger run' on \(uri) as host nas"), "\(r.out)")
        let text = try String(
            contentsOfFile: config + "/systemd/user/dledger.service.d/ledger.conf", encoding: .utf8)
        #expect(
            text.contains("Environment=\"DLEDGER_LEDGER=\(uri)\"\nEnvironment=\"DLEDGER_HOST_NAME=nas\"\n"))
        let listed = try await box.run("ls", env: ["DLEDGER_LEDGER": uri])
        #expect(listed.status == 0, "the ledger exists in the database: \(listed.err)")
        let again = try await box.run("service", "enable", env: env)
        #expect(again.status == 0 && !again.out.contains("created the ledger"), "\(again.out)")

        let calls = Self.calls(log).count
        let secret = "postgresql://me:hunter2@127.0.0.1:1/db?ledger=other"
        let refused = try await box.run(
            "service", "enable", "serve",
            env: ["PATH": path, "XDG_CONFIG_HOME": config, "DLEDGER_LEDGER": secret])
        #expect(refused.status == 64, "\(refused.err)")
        #expect(refused.err.hasPrefix("error: the ledger's URI holds a password"), "\(refused.err)")
        #expect(!refused.err.contains("hunter2") && !refused.out.contains("hunter2"))
        #expect(Self.calls(log).count == calls, "systemctl was not asked")
        #expect(!FileManager.default.fileExists(atPath: config + "/systemd/user/dledger-serve.service.d"))
    }

    /// Without a user manager (a container, WSL, ssh without lingering) every service command says so in one
    /// line with what to do instead; enable fails, and nothing is written: no ledger, no drop-in, no folder.
    @Test func withoutAUserManagerEachCommandSaysWhatToDoInstead() async throws {
        let box = try DledgerSandbox()
        let (path, log) = try Self.spy(box)
        try "".write(toFile: box.root + "/fail", atomically: true, encoding: .utf8)
        let config = box.root + "/config"
        let env = ["PATH": path, "XDG_CONFIG_HOME": config]
        let line =
            "no systemd user manager here (a container, WSL, or ssh without lingering): run 'dledger run' in a"
            + " terminal instead, or 'loginctl enable-linger' and log in again\n"
        let enable = try await box.run("service", "enable", env: env)
        #expect(enable.status == 1)
        #expect(enable.err == "error: " + line)
        let disable = try await box.run("service", "disable", env: env)
        #expect(disable.status == 0 && disable.out == line, "\(disable.err)")
        #expect(Self.calls(log) == ["--user show-environment", "--user show-environment"])
        #expect(!FileManager.default.fileExists(atPath: box.ledger))
        #expect(!FileManager.default.fileExists(atPath: config))
    }

    /// This machine's own systemctl, as it is (the test machines have no user manager): the same line.
    @Test(
        .enabled(
            if: ScriptRun.which("systemctl") == nil
                || (try? Self.userManagerAnswers()) == false,
            "this machine has a systemd user manager"))
    func thisMachineWithoutAUserManagerGetsTheLine() async throws {
        let box = try DledgerSandbox()
        let config = box.root + "/config"
        let r = try await box.run("service", "enable", env: ["XDG_CONFIG_HOME": config])
        #expect(r.status == 1)
        #expect(r.err.hasPrefix("error: no systemd user manager here"))
        #expect(r.err.split(separator: "\n").count == 1)
        #expect(!FileManager.default.fileExists(atPath: box.ledger))
        #expect(!FileManager.default.fileExists(atPath: config))
    }

    /// Whether `systemctl --user show-environment` succeeds here.
    static func userManagerAnswers() throws -> Bool {
        guard let systemctl = ScriptRun.which("systemctl") else { return false }
        let p = Process()
        p.executableURL = URL(fileURLWithPath: systemctl)
        p.arguments = ["--user", "show-environment"]
        p.standardOutput = FileHandle.nullDevice
        p.standardError = FileHandle.nullDevice
        try p.run()
        p.waitUntilExit()
        return p.terminationStatus == 0
    }

    /// `service disable` when nothing is enabled says so, exits 0, and leaves no empty folder of its own.
    @Test func disableWhenNothingIsEnabledSaysSoAndLeavesNoEmptyFolder() async throws {
        let box = try DledgerSandbox()
        let (path, log) = try Self.spy(box)
        try "".write(toFile: box.root + "/fail-is-enabled", atomically: true, encoding: .utf8)
        let config = box.root + "/config"
        let folder = config + "/systemd/user/dledger.service.d"
        try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
        let r = try await box.run("service", "disable", env: ["PATH": path, "XDG_CONFIG_HOME": config])
        #expect(r.status == 0, "\(r.err)")
        #expect(r.out == "dledger.service is not enabled: nothing to disable\n")
        #expect(!FileManager.default.fileExists(atPath: folder))
        #expect(Self.calls(log) == ["--user show-environment", "--user is-enabled --quiet dledger.service"])
    }

    @Test func enableRefusesAForeignDropInAndUnknownServices() async throws {
        let box = try DledgerSandbox()
        let (path, log) = try Self.spy(box)
        let config = box.root + "/config"
        let env = ["PATH": path, "XDG_CONFIG_HOME": config]
        try await box.run("section", "add", "Later")
        let folder = config + "/systemd/user/dledger.service.d"
        try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
        try "[Service]\nNice=5\n".write(toFile: folder + "/ledger.conf", atomically: true, encoding: .utf8)
        let foreign = try await box.run("service", "enable", env: env)
        #expect(foreign.status == 1)
        #expect(foreign.err.contains("was not written by dledger"))
        #expect(try String(contentsOfFile: folder + "/ledger.conf", encoding: .utf8) == "[Service]\nNice=5\n")
        let unknown = try await box.run("service", "enable", "fetch", env: env)
        #expect(unknown.status == 64)
        #expect(unknown.err.contains("no service for 'fetch'"))
        #expect(Self.calls(log) == ["--user show-environment"])
    }

    @Test func unitsAreWrittenOnceAndRunThisBinary() async throws {
        let box = try DledgerSandbox()
        let dir = box.root + "/units"
        try FileManager.default.createDirectory(atPath: dir, withIntermediateDirectories: true)
        let r = try await box.run("service", "units", dir)
        #expect(r.status == 0, "\(r.err)")
        #expect(r.out == dir + "/dledger.service\n" + dir + "/dledger-serve.service\n")
        let unit = try String(contentsOfFile: dir + "/dledger.service", encoding: .utf8)
        let exec = unit.split(separator: "\n").first { $0.hasPrefix("ExecStart=") }
        let resolved = URL(fileURLWithPath: DledgerSandbox.binary).resolvingSymlinksInPath().path
        #expect(exec == "ExecStart=\"\(resolved)\" \"run\"")
        #expect(unit.contains("\nConflicts=dledger-serve.service\n"), "one transfer process per ledger")
        let serve = try String(contentsOfFile: dir + "/dledger-serve.service", encoding: .utf8)
        #expect(serve.contains("\nExecStart=\"\(resolved)\" \"serve\"\n"))
        let again = try await box.run("service", "units", dir)
        #expect(again.status == 1, "an existing unit file is not replaced")
        #expect(try String(contentsOfFile: dir + "/dledger.service", encoding: .utf8) == unit)
    }

    /// The unit and the drop-in `service enable` writes, as systemd's own checker reads them (`--user`, with
    /// the man page its Documentation= names on MANPATH): no warning at all.
    @Test(
        .enabled(
            if: ScriptRun.which("systemd-analyze") != nil,
            "systemd-analyze is not installed (no systemd): the unit is not verified"))
    func systemdAnalyzeVerifyAcceptsTheUnitAndItsDropIn() async throws {
        let box = try DledgerSandbox()
        let (path, _) = try Self.spy(box)
        let config = box.root + "/config"
        let units = config + "/systemd/user"
        let man = box.root + "/man/man1"
        let runtime = box.root + "/runtime"
        for dir in [units, man, runtime] {
            try FileManager.default.createDirectory(atPath: dir, withIntermediateDirectories: true)
        }
        chmod(runtime, 0o700)
        try await box.run("section", "add", "Later")
        #expect(try await box.run("service", "units", units).status == 0)
        try (try await box.run("help", "--man")).out.write(
            toFile: man + "/dledger.1", atomically: true, encoding: .utf8)
        #expect(
            try await box.run("service", "enable", env: ["PATH": path, "XDG_CONFIG_HOME": config]).status == 0
        )
        let verify = try await ScriptRun.run(
            try #require(ScriptRun.which("systemd-analyze")),
            ["--user", "verify", units + "/dledger.service", units + "/dledger-serve.service"],
            env: [
                "HOME": box.root, "XDG_CONFIG_HOME": config, "XDG_RUNTIME_DIR": runtime,
                "MANPATH": box.root + "/man",
            ])
        #expect(verify.status == 0 && verify.err.isEmpty && verify.out.isEmpty, "\(verify.out)\(verify.err)")
    }
}
