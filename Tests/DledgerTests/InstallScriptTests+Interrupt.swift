import Foundation
import Testing

/// tools/install.sh when things go wrong: interrupted while it builds, it stops the compiler and every process
/// the compiler started; a failed install takes back what it placed; it says when bash will not load the
/// completion.
extension InstallScriptTests {
    /// Whether process `pid` still runs (a zombie does not).
    static func alive(_ pid: Int32) -> Bool {
        guard let stat = try? String(contentsOfFile: "/proc/\(pid)/stat", encoding: .utf8),
            let close = stat.lastIndex(of: ")")
        else { return false }
        return !stat[close...].dropFirst(2).hasPrefix("Z")
    }

    /// A `swift` on PATH that stands for a long build: it starts a child of its own and waits for it.
    static func slowSwift(_ box: DledgerSandbox) throws -> String {
        let bin = box.root + "/fakebin"
        try FileManager.default.createDirectory(atPath: bin, withIntermediateDirectories: true)
        try ScriptRun.writeScript(
            bin + "/swift",
            """
            echo $$ > '\(box.root)/swift.pid'
            sleep 300 &
            echo $! > '\(box.root)/child.pid'
            wait
            """)
        return bin + ":" + (ProcessInfo.processInfo.environment["PATH"] ?? "/usr/bin:/bin")
    }

    @Test(arguments: [("INT", Int32(130)), ("TERM", Int32(143))])
    func anInterruptedBuildStopsTheCompilerAndInstallsNothing(signal: String, status: Int32) async throws {
        let box = try DledgerSandbox()
        let path = try Self.slowSwift(box)
        let prefix = box.root + "/prefix"
        let p = Process()
        // As from a shell: the test runner's processes start with SIGINT and SIGTERM ignored, and bash cannot
        // trap a signal ignored when it starts.
        p.executableURL = URL(fileURLWithPath: "/usr/bin/env")
        p.arguments = ["--default-signal=INT,TERM", Self.script, prefix]
        p.environment = ["HOME": box.root + "/home", "PATH": path]
        p.currentDirectoryURL = URL(fileURLWithPath: box.root)
        let running = try Running(p, stdin: nil)
        let started = await eventually(30) {
            FileManager.default.fileExists(atPath: box.root + "/child.pid")
        }
        try #require(started, "the fake build did not start")
        let pids = try ["swift.pid", "child.pid"].map {
            try #require(
                Int32(
                    try String(contentsOfFile: box.root + "/" + $0, encoding: .utf8).trimmingCharacters(
                        in: .whitespacesAndNewlines)))
        }
        if signal == "INT" { running.interrupt() } else { p.terminate() }
        let r = await running.wait()
        #expect(r.status == status, "\(r.err)")
        #expect(r.err.contains("interrupted: the build was stopped, nothing was installed"))
        #expect(await eventually(10) { !pids.contains(where: Self.alive) }, "the compiler and its child stop")
        #expect(!FileManager.default.fileExists(atPath: prefix))
    }

    /// A folder where the install needs one (share/man is a file): it stops, and what it placed goes again.
    @Test func aFailedInstallTakesBackWhatItPlaced() async throws {
        let box = try DledgerSandbox()
        let prefix = box.root + "/prefix"
        try FileManager.default.createDirectory(atPath: prefix + "/share", withIntermediateDirectories: true)
        try "mine\n".write(toFile: prefix + "/share/man", atomically: true, encoding: .utf8)
        let r = try await Self.install(["--binary", DledgerSandbox.binary, prefix], box: box)
        #expect(r.status != 0)
        #expect(Self.tree(prefix) == ["share", "share/man"], "left: \(Self.tree(prefix))")
        #expect(try String(contentsOfFile: prefix + "/share/man", encoding: .utf8) == "mine\n")
    }

    /// bash loads the completion only through the bash-completion package: without it, the install says so.
    /// Its last words name `service enable` only where a systemd user manager answers (the spy systemctl).
    @Test func aMissingBashCompletionPackageAndAMissingUserManagerAreNamed() async throws {
        let box = try DledgerSandbox()
        let (path, _) = try ServiceTests.spy(box)
        let present = box.root + "/bash_completion"
        try "# stand-in\n".write(toFile: present, atomically: true, encoding: .utf8)
        try "".write(toFile: box.root + "/fail", atomically: true, encoding: .utf8)
        for (script, noted) in [(box.root + "/absent/bash_completion", true), (present, false)] {
            let prefix = box.root + "/prefix-\(noted)"
            let r = try await ScriptRun.run(
                Self.script, ["--binary", DledgerSandbox.binary, prefix],
                env: ["HOME": box.root + "/home", "DLEDGER_BASH_COMPLETION": script, "PATH": path])
            // The first round without a user manager, the second with one.
            #expect(r.out.contains("no systemd user manager here") == noted, "\(r.out)")
            #expect(r.out.contains("as a user service: dledger service enable") == !noted, "\(r.out)")
            try? FileManager.default.removeItem(atPath: box.root + "/fail")
            #expect(r.status == 0, "\(r.err)")
            let note =
                "note: bash will not load the completion: the bash-completion package is not installed"
            #expect(r.out.contains(note) == noted, "\(r.out)")
            if noted {
                #expect(r.out.contains("source \(prefix)/share/bash-completion/completions/dledger"))
            }
        }
    }

    /// A clean home, the default prefix (~/.local): after --uninstall the home is as it was, no empty folder.
    @Test func uninstallFromTheDefaultPrefixLeavesTheHomeAsItWas() async throws {
        let box = try DledgerSandbox()
        let home = box.root + "/home"
        try FileManager.default.createDirectory(
            atPath: home + "/.local/bin", withIntermediateDirectories: true)
        #expect(try await Self.install(["--binary", DledgerSandbox.binary], box: box).status == 0)
        #expect(Self.tree(home).contains(".local/share/man/man1/dledger.1"))
        let r = try await Self.install(["--uninstall"], box: box)
        #expect(r.status == 0, "\(r.err)")
        #expect(Self.tree(home) == [".local", ".local/bin"], "left: \(Self.tree(home))")
    }
}
