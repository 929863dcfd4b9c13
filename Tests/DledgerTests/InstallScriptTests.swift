import Foundation
import Testing

/// tools/install.sh with the debug build (`--binary`: the release static build is what it builds by default,
/// and would take minutes): what it installs, that `--uninstall` leaves the prefix as it was, never takes the
/// ledger or a file it did not place, and that the man page it installs renders without a warning.
@Suite struct InstallScriptTests {
    static let script = ScriptRun.root + "/tools/install.sh"
    static let files = [
        "bin/dledger", "share/bash-completion/completions/dledger", "share/zsh/site-functions/_dledger",
        "share/fish/vendor_completions.d/dledger.fish", "share/man/man1/dledger.1",
        "share/systemd/user/dledger.service", "share/systemd/user/dledger-serve.service",
        "share/dledger/install-manifest",
    ]

    /// Every path under `root`, relative, sorted (empty when `root` does not exist).
    static func tree(_ root: String) -> [String] {
        (FileManager.default.subpaths(atPath: root) ?? []).sorted()
    }

    static func install(_ args: [String], box: DledgerSandbox) async throws -> Finished {
        try await ScriptRun.run(
            Self.script, args,
            env: ["HOME": box.root + "/home", "XDG_CONFIG_HOME": box.root + "/home/.config"])
    }

    @Test func installThenUninstallLeavesNothingBehind() async throws {
        let box = try DledgerSandbox()
        let prefix = box.root + "/prefix"
        let r = try await Self.install(["--binary", DledgerSandbox.binary, prefix], box: box)
        #expect(r.status == 0, "\(r.err)")
        #expect(r.out.hasPrefix("installed dledger 0.1.0 into \(prefix) (7 files"))
        let files = Self.tree(prefix).filter {
            var isDir: ObjCBool = false
            return FileManager.default.fileExists(atPath: prefix + "/" + $0, isDirectory: &isDir)
                && !isDir.boolValue
        }
        #expect(files == Self.files.sorted())
        let installed = prefix + "/bin/dledger"
        #expect(FileManager.default.isExecutableFile(atPath: installed))
        #expect(try await ScriptRun.run(installed, ["--version"]).out == "dledger 0.1.0\n")
        let bash = try String(contentsOfFile: prefix + "/" + Self.files[1], encoding: .utf8)
        #expect(bash == (try await box.run("completions", "bash")).out)
        let unit = try String(contentsOfFile: prefix + "/share/systemd/user/dledger.service", encoding: .utf8)
        #expect(unit.contains("ExecStart=\"\(installed)\" \"run\"\n"), "the unit runs the installed binary")

        let again = try await Self.install(["--binary", DledgerSandbox.binary, prefix], box: box)
        #expect(again.status == 0, "installing over its own installation: \(again.err)")
        let gone = try await Self.install(["--uninstall", prefix], box: box)
        #expect(gone.status == 0, "\(gone.err)")
        #expect(!FileManager.default.fileExists(atPath: prefix), "left: \(Self.tree(prefix))")
        let twice = try await Self.install(["--uninstall", prefix], box: box)
        #expect(twice.status == 1)
        #expect(twice.err.contains("nothing installed in \(prefix)"))
    }

    /// The default prefix, ~/.local, holds the default ledger too (~/.local/share/dledger/ledger.sqlite).
    @Test func uninstallKeepsTheLedgerAndFilesChangedSince() async throws {
        let box = try DledgerSandbox()
        let prefix = box.root + "/home/.local"
        let ledger = prefix + "/share/dledger/ledger.sqlite"
        let made = try await box.run(["--ledger", ledger, "section", "add", "Kept"])
        #expect(made.status == 0, "\(made.err)")
        let before = FileManager.default.contents(atPath: ledger)
        #expect(try await Self.install(["--binary", DledgerSandbox.binary], box: box).status == 0)
        let man = prefix + "/share/man/man1/dledger.1"
        try ".TH MINE 1\n".write(toFile: man, atomically: true, encoding: .utf8)
        let r = try await Self.install(["--uninstall"], box: box)
        #expect(r.status == 0, "\(r.err)")
        #expect(r.err.contains("kept \(man): it changed since it was installed"))
        #expect(FileManager.default.contents(atPath: ledger) == before)
        #expect(
            Self.tree(prefix) == [
                "share", "share/dledger", "share/dledger/ledger.sqlite", "share/man", "share/man/man1",
                "share/man/man1/dledger.1",
            ])
    }

    @Test func aFileItDidNotPlaceStopsTheInstallBeforeAnythingIsWritten() async throws {
        let box = try DledgerSandbox()
        let prefix = box.root + "/prefix"
        try FileManager.default.createDirectory(atPath: prefix + "/bin", withIntermediateDirectories: true)
        try "#!/bin/sh\necho mine\n".write(toFile: prefix + "/bin/dledger", atomically: true, encoding: .utf8)
        let r = try await Self.install(["--binary", DledgerSandbox.binary, prefix], box: box)
        #expect(r.status == 1)
        #expect(r.err.contains("\(prefix)/bin/dledger exists and was not installed by tools/install.sh"))
        #expect(Self.tree(prefix) == ["bin", "bin/dledger"])
        #expect(
            try String(contentsOfFile: prefix + "/bin/dledger", encoding: .utf8) == "#!/bin/sh\necho mine\n")
        let bad = try await Self.install(["--bogus"], box: box)
        #expect(bad.status == 64)
        #expect(bad.err.contains("unknown option '--bogus'"))
    }

    /// `man -l` (man-db, with groff's warnings on) and `groff -ww` render the page without a word on stderr.
    @Test func theManPageRendersWithoutWarnings() async throws {
        let box = try DledgerSandbox()
        let page = box.root + "/dledger.1"
        let roff = try await box.run("help", "--man")
        #expect(roff.status == 0)
        try roff.out.write(toFile: page, atomically: true, encoding: .utf8)
        let man = try #require(ScriptRun.which("man"), "man-db is not installed (tools/bootstrap --tests)")
        let rendered = try await ScriptRun.run(
            man, ["-l", "--warnings", page],
            env: ["MANWIDTH": "80", "MAN_KEEP_FORMATTING": "", "HOME": box.root])
        #expect(rendered.status == 0)
        #expect(rendered.err.isEmpty, "\(rendered.err)")
        #expect(rendered.out.contains("dledger - a download manager"))
        for command in ["add", "section add", "service enable", "completions", "verify"] {
            #expect(rendered.out.contains("dledger \(command)\n"), "\(command) in the page")
        }
        let groff = try #require(ScriptRun.which("groff"), "groff is not installed (tools/bootstrap --tests)")
        let checked = try await ScriptRun.run(groff, ["-ww", "-z", "-man", page])
        #expect(checked.status == 0 && checked.err.isEmpty, "\(checked.err)")
        let misplaced = try await box.run("ls", "--man")
        #expect(misplaced.status == 64)
    }
}

extension InstallScriptTests {
    /// An enabled service is disabled first (through the installed binary), so no enabled unit and no drop-in
    /// outlive the installation. systemctl is the spy of ServiceTests.
    @Test func uninstallDisablesTheServiceFirst() async throws {
        let box = try DledgerSandbox()
        let (path, log) = try ServiceTests.spy(box)
        let prefix = box.root + "/prefix"
        let config = box.root + "/home/.config"
        let env = ["HOME": box.root + "/home", "XDG_CONFIG_HOME": config, "PATH": path]
        #expect(
            try await ScriptRun.run(Self.script, ["--binary", DledgerSandbox.binary, prefix], env: env).status
                == 0)
        try await box.run("section", "add", "Later")
        let enabled = try await ScriptRun.run(
            prefix + "/bin/dledger", ["service", "enable"],
            env: env.merging(["DLEDGER_LEDGER": box.ledger]) { $1 })
        #expect(enabled.status == 0, "\(enabled.err)")
        #expect(
            FileManager.default.fileExists(atPath: config + "/systemd/user/dledger.service.d/ledger.conf"))
        let r = try await ScriptRun.run(Self.script, ["--uninstall", prefix], env: env)
        #expect(r.status == 0, "\(r.err)")
        #expect(ServiceTests.calls(log).contains("--user disable --now dledger.service"))
        #expect(Self.tree(config) == ["systemd", "systemd/user"])
        #expect(!FileManager.default.fileExists(atPath: prefix))
    }
}
