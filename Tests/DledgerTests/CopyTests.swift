import Foundation
import Glibc
import LoopbackHTTP
import Testing

/// Any copy of a ledger can be inspected offline (issue 10 §4): the main file alone after a command, a backup
/// taken while another process writes, and a copy in a folder the reader cannot write, with or without its -wal.
@Suite struct CopyTests {
    /// The head `log --json` shows for the ledger at `path` (0 when it cannot be read).
    static func head(_ box: DledgerSandbox, _ path: String) async throws -> Int {
        try await box.run("--ledger", path, "log", "--json").jsonLines.last?["seq"] as? Int ?? 0
    }

    /// Copies only the main file of the sandbox's ledger and checks that `log` and `verify` on it show the head.
    static func expectMainFileAlone(_ box: DledgerSandbox, after what: String) async throws {
        let copy = box.root + "/copy-\(UUID().uuidString).sqlite"
        try FileManager.default.copyItem(atPath: box.ledger, toPath: copy)
        let head = try await head(box, box.ledger)
        #expect(head > 1)
        #expect(try await Self.head(box, copy) == head, "after \(what)")
        let verify = try await box.run("--ledger", copy, "verify", "--skip-files")
        #expect(verify.status == 0, "after \(what): \(verify.out)\(verify.err)")
        #expect(verify.out.contains("head #\(head)"), "after \(what): \(verify.out)")
    }

    // SQLite only: about the ledger file and its -wal.
    @Test func theMainFileAloneHoldsEveryEventAfterGetRunAndAnInterruptedRun() async throws {
        let box = try DledgerSandbox()
        let server = try LoopbackServer()
        server.serve("/a.bin", Resource(size: 200_000, seed: 1))
        server.serve("/b.bin", Resource(size: 100_000, seed: 2))
        server.serve(
            "/slow.bin", Resource(size: 2_000_000, seed: 3, faults: Faults(throttleBytesPerSecond: 200_000)))
        #expect(try await box.run("get", server.url("/a.bin")).status == 0)
        try await Self.expectMainFileAlone(box, after: "get")
        try await box.run("add", server.url("/b.bin"))
        #expect(try await box.run("run", "--until-idle").status == 0)
        try await Self.expectMainFileAlone(box, after: "run --until-idle")
        try await box.run("add", server.url("/slow.bin"))
        let runner = try box.start("run")
        #expect(await eventually { partialSize(box.partialPath(3)) > 0 })
        runner.interrupt()
        #expect(await runner.wait().status == 130)
        try await Self.expectMainFileAlone(box, after: "an interrupted run")
    }

    // SQLite only: reads the copies with the sqlite3 shell (a backup from PostgreSQL onto a file: aBackupCutShort…).
    @Test func backupIsConsistentWhileAnotherProcessWritesAndNeverOverwrites() async throws {
        let box = try DledgerSandbox()
        let server = try LoopbackServer()
        var urls: [String] = []
        for n in 0..<40 {
            server.serve("/f\(n).bin", Resource(size: 20_000, seed: UInt64(n + 1)))
            urls.append(server.url("/f\(n).bin"))
        }
        try await box.run(["add"] + urls)
        let runner = try box.start("run", "--until-idle", "-j", "8")
        var heads: [Int] = []
        for n in 0..<4 {
            let dest = box.root + "/backup-\(n).sqlite"
            let r = try await box.run("backup", dest)
            #expect(r.status == 0, "\(r.err)")
            #expect(r.out.hasPrefix("backed up "), "\(r.out)")
            let verify = try await box.run("--ledger", dest, "verify", "--skip-files")
            #expect(verify.status == 0, "\(verify.out)\(verify.err)")
            #expect(!FileManager.default.fileExists(atPath: dest + "-wal"))
            heads.append(try await Self.head(box, dest))
        }
        let run = await runner.wait()
        #expect(run.status == 0, "\(run.err)")
        #expect(heads == heads.sorted())
        #expect(heads.last! <= (try await Self.head(box, box.ledger)))
        // An existing DEST is refused and left as it was; so is a link.
        let dest = box.root + "/backup-0.sqlite"
        let before = FileManager.default.contents(atPath: dest)
        let again = try await box.run("backup", dest)
        #expect(again.status == 1)
        #expect(again.err.contains("it exists"), "\(again.err)")
        #expect(FileManager.default.contents(atPath: dest) == before)
        try FileManager.default.createSymbolicLink(
            atPath: box.root + "/link", withDestinationPath: "/nonexistent")
        #expect(try await box.run("backup", box.root + "/link").status == 1)
        #expect(!FileManager.default.fileExists(atPath: "/nonexistent"))
    }

    /// A backup that cannot be finished (a full disk, a SIGKILL) leaves nothing under its name that could be taken
    /// for one; a missing folder is named as such, and so is a file already there. From a ledger in PostgreSQL
    /// (into a SQLite file) too, in the same words.
    @Test(arguments: LedgerStoreKind.allCases)
    func aBackupCutShortLeavesNoFileUnderItsName(store: LedgerStoreKind) async throws {
        let box = try DledgerSandbox(store: store)
        // Enough tasks for a backup that takes a while (one from PostgreSQL, slower, with fewer), and a copy larger
        // than the full disk below.
        let count = store == .sqlite ? 20_000 : 5_000
        let list = (0..<count).map { "http://example.org/file-\($0).bin" }.joined(separator: "\n")
        try list.write(toFile: box.root + "/urls.txt", atomically: true, encoding: .utf8)
        #expect(try await box.run("add", "-q", "--from-file", box.root + "/urls.txt").status == 0)
        let missing = try await box.run("backup", box.root + "/no/such/b.sqlite")
        #expect(missing.status == 1)
        #expect(
            missing.err.hasPrefix("error: cannot back up to \(box.root)/no/such/b.sqlite: no such folder"))
        // Killed at any moment, a backup leaves either nothing under DEST or a whole ledger: kills spread over the
        // time a whole backup takes here.
        let started = Date()
        #expect(try await box.run("backup", box.root + "/whole.sqlite").status == 0)
        let whole = Date().timeIntervalSince(started)
        let before = FileManager.default.contents(atPath: box.root + "/whole.sqlite")
        let again = try await box.run("backup", box.root + "/whole.sqlite")
        #expect(again.status == 1)
        #expect(
            again.err
                == "error: cannot back up to \(box.root)/whole.sqlite: it exists (a backup never overwrites a file)\n"
        )
        #expect(FileManager.default.contents(atPath: box.root + "/whole.sqlite") == before)
        for n in 0..<6 {
            let dest = box.root + "/killed-\(n).sqlite"
            let running = try box.start("backup", dest)
            usleep(useconds_t(whole * (0.5 + Double(n) * 0.1) * 1_000_000))
            kill(running.process.processIdentifier, SIGKILL)
            _ = await running.wait()
            if FileManager.default.fileExists(atPath: dest) {
                let verify = try await box.run("--ledger", dest, "verify", "--skip-files")
                #expect(verify.status == 0, "killed after \(n): \(verify.out)\(verify.err)")
            }
        }
        let small = box.root + "/small"
        try FileManager.default.createDirectory(atPath: small, withIntermediateDirectories: false)
        guard getuid() == 0, Self.mountTmpfs(small, size: "200k") else {
            print(
                "CopyTests: a tmpfs cannot be mounted here (needs root), so the full-disk backup is skipped")
            return
        }
        defer { Self.unmount(small) }
        let full = try await box.run("backup", small + "/b.sqlite")
        #expect(full.status == 1)
        #expect(full.err.contains("cannot back up to \(small)/b.sqlite"), "\(full.err)")
        #expect(try FileManager.default.contentsOfDirectory(atPath: small).isEmpty)
    }

    static func mountTmpfs(_ path: String, size: String) -> Bool {
        let mount = Process()
        mount.executableURL = URL(fileURLWithPath: "/bin/mount")
        mount.arguments = ["-t", "tmpfs", "-o", "size=\(size)", "tmpfs", path]
        mount.standardError = FileHandle.nullDevice
        guard (try? mount.run()) != nil else { return false }
        mount.waitUntilExit()
        return mount.terminationStatus == 0
    }

    static func unmount(_ path: String) {
        let umount = Process()
        umount.executableURL = URL(fileURLWithPath: "/bin/umount")
        umount.arguments = [path]
        try? umount.run()
        umount.waitUntilExit()
    }

    // SQLite only: a copy of the ledger file and its -wal.
    @Test func aCopyInAFolderTheReaderCannotWriteIsReadWithOrWithoutItsWal() async throws {
        guard getuid() == 0 else {
            print("CopyTests: not root, so the read-only check as 'nobody' is skipped")
            return
        }
        let box = try DledgerSandbox()
        let server = try LoopbackServer()
        server.serve(
            "/slow.bin", Resource(size: 2_000_000, seed: 3, faults: Faults(throttleBytesPerSecond: 200_000)))
        try await box.run("add", server.url("/slow.bin"))
        // A run killed by SIGKILL leaves its newest events in ledger.sqlite-wal.
        let runner = try box.start("run")
        #expect(await eventually { partialSize(box.partialPath(1)) > 0 })
        kill(runner.process.processIdentifier, SIGKILL)
        _ = await runner.wait()
        #expect(FileManager.default.fileExists(atPath: box.ledger + "-wal"))
        let head = try await Self.head(box, box.ledger)
        // Everything nobody needs, readable and not writable by it: the binary and the copies, in 0755 folders.
        let shared = box.root + "/shared"
        let bin = shared + "/dledger"
        try FileManager.default.createDirectory(atPath: shared, withIntermediateDirectories: true)
        try FileManager.default.copyItem(atPath: DledgerSandbox.binary, toPath: bin)
        let withWal = shared + "/with-wal"
        try FileManager.default.createDirectory(atPath: withWal, withIntermediateDirectories: true)
        for suffix in ["", "-wal"] {
            try FileManager.default.copyItem(
                atPath: box.ledger + suffix, toPath: withWal + "/ledger.sqlite" + suffix)
        }
        #expect(try await box.run("limit", "5").status == 0)  // a write command: its end folds the log in
        #expect(!FileManager.default.fileExists(atPath: box.ledger + "-wal") || walSize(box.ledger) == 0)
        let alone = shared + "/alone"
        try FileManager.default.createDirectory(atPath: alone, withIntermediateDirectories: true)
        try FileManager.default.copyItem(atPath: box.ledger, toPath: alone + "/ledger.sqlite")
        for dir in [box.root, shared, withWal, alone] { chmod(dir, 0o755) }
        for (folder, expected) in [(withWal, head), (alone, head + 1)] {
            let ledger = folder + "/ledger.sqlite"
            let before = try FileManager.default.contentsOfDirectory(atPath: folder).sorted()
            for args in [["log", "--json"], ["verify", "--skip-files"], ["ls"], ["audit", "1"], ["stats"]] {
                let r = try await Self.asNobody(bin, ["--ledger", ledger] + args)
                #expect(r.status == 0, "\(folder) \(args): \(r.err)")
                if args == ["log", "--json"] {
                    #expect(r.jsonLines.last?["seq"] as? Int == expected, "\(folder)")
                }
            }
            // A command that writes says why it cannot, in one line, and changes nothing.
            let bytes = FileManager.default.contents(atPath: ledger)
            let paused = try await Self.asNobody(bin, ["--ledger", ledger, "pause", "1"])
            #expect(paused.status == 1)
            #expect(
                paused.err == "error: cannot open ledger \(ledger): this user cannot write it or its folder"
                    + " (ls, log, audit, verify and backup still read it)\n", "\(paused.err)")
            #expect(FileManager.default.contents(atPath: ledger) == bytes)
            #expect(try FileManager.default.contentsOfDirectory(atPath: folder).sorted() == before)
        }
        _ = server
    }

    /// The main file alone, copied with cp every 200 ms while `run` downloads 100 files, is a whole ledger at most
    /// 2 s behind the head (issue 24 §2): the downloader folds the log into it as it works. "Behind" is measured
    /// with the log's own commit times: a copy taken at T holds every event committed by T - 2 s. A copy that
    /// overlapped a checkpoint's write may be torn: verify refuses it, and the next copy (its retake) holds.
    // SQLite only: copies the ledger file with cp.
    @Test func aCopyOfTheMainFileAloneDuringARunIsAtMostTwoSecondsBehind() async throws {
        let box = try DledgerSandbox()
        let server = try LoopbackServer()
        var urls: [String] = []
        for n in 0..<100 {
            // Half a second each, ten at a time: the run lasts several seconds.
            let faults = Faults(throttleBytesPerSecond: 80_000)
            server.serve("/f\(n).bin", Resource(size: 40_000, seed: UInt64(n + 1), faults: faults))
            urls.append(server.url("/f\(n).bin"))
        }
        #expect(try await box.run(["add"] + urls).status == 0)
        let runner = try box.start("run", "--until-idle", "-j", "10")
        var copies: [(path: String, at: Int)] = []
        // The run takes several seconds; two minutes is a hung run, stopped so that the suite goes on.
        let deadline = Date().addingTimeInterval(120)
        while runner.process.isRunning {
            guard Date() < deadline else {
                Issue.record("the run did not end within 120 s")
                runner.interrupt()
                break
            }
            let copy = box.root + "/copy-\(copies.count).sqlite"
            let at = Int((Date().timeIntervalSince1970 * 1000).rounded(.down))
            let cp = Process()
            cp.executableURL = URL(fileURLWithPath: "/bin/cp")
            cp.arguments = [box.ledger, copy]
            try cp.run()
            cp.waitUntilExit()
            #expect(cp.terminationStatus == 0)
            copies.append((copy, at))
            try await Task.sleep(for: .milliseconds(200))
        }
        let run = await runner.wait()
        #expect(run.status == 0, "\(run.err)")
        #expect(copies.count >= 10, "the run lasted \(copies.count) copies")
        let events = try await box.run("log", "--json").jsonLines.compactMap {
            line -> (seq: Int, time: Int)? in
            guard let seq = line["seq"] as? Int, let time = line["timeMs"] as? Int else { return nil }
            return (seq, time)
        }
        #expect(events.count > 250)
        var heads: [Int] = []
        var torn: [Int] = []
        for (n, (path, at)) in copies.enumerated() {
            let verify = try await box.run("--ledger", path, "verify", "--skip-files")
            // A cp that overlapped a checkpoint's write can mix pages from before and after it (docs/store.md):
            // verify refuses such a copy, and the copy taken after it (the retake) must hold.
            guard verify.status == 0 else {
                #expect(verify.status == 1, "copy at \(at): \(verify.out)\(verify.err)")
                torn.append(n)
                continue
            }
            let head = verify.out.firstMatch(of: /head #(\d+)/).flatMap { Int($0.1) } ?? 0
            let due = events.filter { $0.time <= at - 2000 }.map(\.seq).max() ?? 0
            #expect(head >= due, "copy at \(at) holds #\(head), events through #\(due) were 2 s old")
            heads.append(head)
        }
        #expect(torn.allSatisfy { !torn.contains($0 + 1) && $0 + 1 < copies.count }, "torn copies: \(torn)")
        #expect(torn.count * 10 <= copies.count, "torn copies: \(torn) of \(copies.count)")
        #expect(heads == heads.sorted())
        #expect(heads.last ?? 0 > events.count / 2, "\(heads)")
        _ = server
    }

    /// A quiet ledger (no process has it open) is left in rollback-journal mode, so a copy of it in a folder that
    /// nobody can write opens in the plain sqlite3 shell as nobody (issue 24 §3): after a command that creates it,
    /// after a run, and after a command on a ledger a run left.
    // SQLite only: the ledger file in the sqlite3 shell.
    @Test func aCopyOfAQuietLedgerOpensInThePlainSqliteShellAsAnotherUser() async throws {
        guard getuid() == 0 else {
            print("CopyTests: not root, so the sqlite3 shell as 'nobody' is skipped")
            return
        }
        let box = try DledgerSandbox()
        let server = try LoopbackServer()
        server.serve("/a.bin", Resource(size: 300_000, seed: 1))
        let shared = box.root + "/shared"
        try FileManager.default.createDirectory(atPath: shared, withIntermediateDirectories: true)
        for dir in [box.root, shared] { chmod(dir, 0o755) }
        for (n, command) in [["add", server.url("/a.bin")], ["run", "--until-idle"], ["limit", "5"]]
            .enumerated()
        {
            let r = try await box.run(command)
            #expect(r.status == 0, "\(command): \(r.err)")
            #expect(!FileManager.default.fileExists(atPath: box.ledger + "-wal"), "\(command)")
            #expect(!FileManager.default.fileExists(atPath: box.ledger + "-shm"), "\(command)")
            let folder = shared + "/\(n)"
            try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: false)
            try FileManager.default.copyItem(atPath: box.ledger, toPath: folder + "/ledger.sqlite")
            chmod(folder, 0o755)
            let count = try await box.eventCount()
            let shell = try await Self.asNobody(
                "/usr/bin/sqlite3", [folder + "/ledger.sqlite", "select count(*) from events"])
            #expect(shell.status == 0, "\(command): \(shell.err)")
            #expect(shell.out == "\(count)\n", "\(command): \(shell.out)")
            #expect(try FileManager.default.contentsOfDirectory(atPath: folder) == ["ledger.sqlite"])
        }
        _ = server
    }

    /// Commands that open a quiet ledger at the same moment all go through: each one's switch of the file to WAL
    /// can meet another's, and SQLite then refuses one at once (a deadlock, without its busy handler); that one
    /// tries again. Before, `run` and `backup` started together failed now and then with "is locked".
    // SQLite only: SQLite's switch of the file to WAL.
    @Test func writersThatOpenAQuietLedgerAtOnceAllGoThrough() async throws {
        let box = try DledgerSandbox()
        #expect(try await box.run("add", "http://example.org/first.bin").status == 0)
        // Eight `add`s started by one shell loop, so that they start within a millisecond or two of each other;
        // each prints its error, if any, after its number.
        let burst = """
            for n in 1 2 3 4 5 6 7 8; do
                ( "$0" add -q "http://example.org/$1-$n.bin" 2>"$2.$n" >/dev/null || echo "writer $n: $(cat "$2.$n")" ) &
            done
            wait
            """
        for round in 0..<40 {
            #expect(!FileManager.default.fileExists(atPath: box.ledger + "-wal"), "round \(round)")
            let shell = box.process([])
            shell.executableURL = URL(fileURLWithPath: "/bin/bash")
            shell.arguments = ["-c", burst, DledgerSandbox.binary, "r\(round)", box.root + "/err"]
            let r = await (try Running(shell, stdin: nil)).wait()
            #expect(r.out.isEmpty, "round \(round): \(r.out)")
        }
        let list = try await box.run("ls", "--json").json as? [String: Any]
        let sections = list?["sections"] as? [[String: Any]] ?? []
        #expect(sections.flatMap { $0["tasks"] as? [[String: Any]] ?? [] }.count == 321)
        #expect(try await box.run("verify", "--skip-files").status == 0)
    }

    private func walSize(_ ledger: String) -> Int {
        ((try? FileManager.default.attributesOfItem(atPath: ledger + "-wal"))?[.size] as? Int) ?? 0
    }

    /// Runs `bin args` as the user nobody (root ignores file permissions), with no environment but `NO_COLOR`.
    private static func asNobody(_ bin: String, _ args: [String]) async throws -> Finished {
        try await ScriptRun.run(bin, args, env: ["NO_COLOR": "1"], user: "nobody", cwd: "/")
    }
}
