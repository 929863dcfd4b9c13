import Foundation
import LoopbackHTTP
import Testing

@Suite struct InspectCommandsTests {
    @Test(arguments: LedgerStoreKind.allCases)
    func logPrintsEveryEventInWords(store: LedgerStoreKind) async throws {
        let box = try DledgerSandbox(store: store)
        try await box.run("add", "http://example.com/a", "http://example.com/b")
        try await box.run("mv", "2", "--to", "0:0")
        let lines = try await box.run("log").out.split(separator: "\n").map(String.init)
        #expect(lines.count == 3)
        #expect(lines[0].hasPrefix("    #1  ") && lines[0].contains("ledgerCreated"))
        #expect(
            lines[1].contains("tasksAdded") && lines[1].hasSuffix("added #1 #2 to new section 0 'Downloads'"))
        #expect(lines[2].contains("tasksMoved") && lines[2].hasSuffix("moved #2 to 0:0 'Downloads'"))
        // --since, then the oldest one (--first) or the newest one (--limit).
        let first = try await box.run("log", "--since", "2", "--first", "1").out.split(separator: "\n")
        #expect(first.count == 1 && first[0].contains("tasksAdded"))
        let newest = try await box.run("log", "--since", "2", "--limit", "1").out.split(separator: "\n")
        #expect(newest.count == 1 && newest[0].contains("tasksMoved"))
        let task = try await box.run("log", "--task", "2").out.split(separator: "\n")
        #expect(task.count == 2)
    }

    @Test(arguments: LedgerStoreKind.allCases)
    func logJSONLinesCarrySeqTimeKindTasksAndPayload(store: LedgerStoreKind) async throws {
        let box = try DledgerSandbox(store: store)
        try await box.run("add", "http://example.com/a")
        try await box.run("pause", "1")
        try await box.run("undo")
        let lines = try await box.run("log", "--json").jsonLines
        #expect(lines.map { $0["seq"] as? Int } == [1, 2, 3, 4])
        #expect(
            lines.map { $0["kind"] as? String } == [
                "ledgerCreated", "tasksAdded", "tasksPaused", "statesRestored",
            ])
        for line in lines {
            #expect(
                Array(line.keys).sorted() == [
                    "kind", "origin", "payload", "redoes", "seq", "tasks", "text", "time", "timeMs", "undoes",
                ])
            let time = try #require(line["time"] as? String)
            #expect(time.hasSuffix("Z") && time.count == 24)
        }
        #expect(lines[3]["undoes"] as? Int == 3)
        #expect(lines[1]["tasks"] as? [Int] == [1])
        let added = (lines[1]["payload"] as? [String: Any])?["tasks"] as? [[String: Any]]
        #expect(added?.first?["url"] as? String == "http://example.com/a")
    }

    @Test(arguments: LedgerStoreKind.allCases)
    func replayToReproducesAnEarlierListExactly(store: LedgerStoreKind) async throws {
        let box = try DledgerSandbox(store: store)
        try await box.run("add", "http://example.com/a", "http://example.com/b")
        try await box.run("section", "add", "Later")
        try await box.run("mv", "1", "--to", "1")
        let snapshot = try await box.run("ls", "--json").out
        let seq = try #require((try await box.run("ls", "--json").json as? [String: Any])?["seq"] as? Int)
        try await box.run("rm", "2")
        try await box.run("section", "rename", "1", "Much later")
        try await box.run("sort", "name")
        let replayed = try await box.run("replay", "--to", "\(seq)", "--json")
        #expect(replayed.status == 0)
        #expect(replayed.out == snapshot)
        let beyond = try await box.run("replay", "--to", "99")
        #expect(beyond.status == 64)
        #expect(beyond.err.hasPrefix("error: seq 99 is beyond the end of the log"))
    }

    @Test(arguments: LedgerStoreKind.allCases)
    func replayAtATime(store: LedgerStoreKind) async throws {
        let box = try DledgerSandbox(store: store)
        try await box.run("add", "http://example.com/a")
        let early = try await box.run("replay", "--at", "2000-01-01T00:00:00Z", "--json")
        #expect((early.json as? [String: Any])?["seq"] as? Int == 0)
        let now = try await box.run("replay", "--at", "\(Int(Date().timeIntervalSince1970) + 60)", "--json")
        #expect((now.json as? [String: Any])?["seq"] as? Int == 2)
        let local = try await box.run("replay", "--at", "2099-01-01 18:00", "--json")
        #expect((local.json as? [String: Any])?["seq"] as? Int == 2)
        let bad = try await box.run("replay", "--at", "yesterday-ish")
        #expect(bad.status == 64)
    }

    @Test(arguments: LedgerStoreKind.allCases)
    func exportAndStatsShapes(store: LedgerStoreKind) async throws {
        let box = try DledgerSandbox(store: store)
        try await box.run("add", "http://example.com/a", "http://example.com/b")
        try await box.run("rm", "2")
        let export = try #require(try await box.run("export", "--json").json as? [String: Any])
        #expect(
            Set(export.keys) == ["seq", "time", "settings", "nextId", "sections", "trash", "undo", "redo"])
        #expect((export["trash"] as? [[String: Any]])?.first?["id"] as? Int == 2)
        #expect((export["undo"] as? [[String: Any]])?.first?["kind"] as? String == "tasksDeleted")
        let stats = try #require(try await box.run("stats", "--json").json as? [String: Any])
        #expect((stats["tasks"] as? [String: Any])?["total"] as? Int == 1)
        #expect((stats["tasks"] as? [String: Any])?["waiting"] as? Int == 1)
        #expect(stats["trash"] as? Int == 1)
        #expect(stats["events"] as? Int == 3)
        #expect(stats.keys.contains("snapshotSeq"))
        let human = try await box.run("stats")
        #expect(human.out.contains("tasks           1 (1 waiting)"))
    }

    /// A ledger with one finished download, for verify.
    /// Moves after a big list are what readers fold after its snapshot, each a pass over every id: the commands
    /// that make them save a snapshot once a few dozen have accumulated, so that `stats`, `ls` and `audit` after
    /// them start near the head (issue 24: 300 moves after 100,000 tasks had every read fold all 300).
    @Test(arguments: LedgerStoreKind.allCases)
    func movesAfterABigListAreSnapshottedBeforeReadersFoldMany(store: LedgerStoreKind) async throws {
        let box = try DledgerSandbox(store: store)
        let list = (1...20_000).map { "https://example.com/pub/file-\($0).iso" }.joined(separator: "\n")
        try list.write(toFile: box.root + "/urls.txt", atomically: true, encoding: .utf8)
        try await box.run("add", "--from-file", box.root + "/urls.txt", "-q")
        try await box.run("section", "add", "Later")
        for n in 0..<60 {
            #expect(try await box.run("mv", "\(1 + n * 300)", "--to", "\(n % 2):0").status == 0)
        }
        let stats = try #require(try await box.run("stats", "--json").json as? [String: Any])
        let head = try #require(stats["events"] as? Int)
        let snapshot = try #require(stats["snapshotSeq"] as? Int)
        #expect(head == 63)
        // 20,000 tasks: a move counts 1,250 bytes of replay work besides its payload, and a command leaves at
        // most a tenth of 512 KiB after the last snapshot (about 40 moves), where payloads alone allowed 480.
        #expect(head - snapshot <= 42, "snapshot at #\(snapshot), head #\(head)")
        let verify = try await box.run("verify", "--skip-files")
        #expect(verify.status == 0, "\(verify.out)")
    }

    /// `log --limit N` after a snapshot reads only the tasks its events name whole (issue 24 §1): its words are the
    /// last N lines of the whole `log`, which folds every event from the first, in words and in JSON.
    @Test(arguments: LedgerStoreKind.allCases)
    func logLimitAfterASnapshotSaysWhatTheWholeLogSays(store: LedgerStoreKind) async throws {
        let box = try DledgerSandbox(store: store)
        let list = (1...8000).map { "https://example.com/pub/file-\($0).iso" }.joined(separator: "\n")
        try list.write(toFile: box.root + "/urls.txt", atomically: true, encoding: .utf8)
        try await box.run("add", "--from-file", box.root + "/urls.txt", "-q")
        let snapshot = try #require(
            (try await box.run("stats", "--json").json as? [String: Any])?["snapshotSeq"] as? Int)
        #expect(snapshot == 2)
        for command in [
            ["section", "add", "Later"], ["mv", "7", "4000", "--to", "1:0"], ["rename", "7", "seven.iso"],
            ["pause", "12"], ["rm", "13"], ["section", "rename", "1", "Much later"], ["undo"],
            ["mv", "8", "--to", "1:1"], ["restore", "13"], ["sort", "name"], ["resume", "12"],
        ] {
            #expect(try await box.run(command).status == 0, "\(command)")
        }
        let stats = try #require(try await box.run("stats", "--json").json as? [String: Any])
        #expect(stats["snapshotSeq"] as? Int == snapshot)
        for json in [false, true] {
            let flag = json ? ["--json"] : []
            let whole = try await box.run(["log"] + flag).out.split(separator: "\n").map(String.init)
            #expect(whole.count == 13)
            for n in 1...11 {
                let newest = try await box.run(["log", "--limit", "\(n)"] + flag).out.split(separator: "\n")
                #expect(newest.map(String.init) == Array(whole.suffix(n)), "--limit \(n)")
            }
        }
    }

    /// `ls` in words folds the events after the snapshot without the undo history, which it never shows: each
    /// section, and the whole list, print what a replay from the first event prints (the snapshots deleted), in
    /// words and in JSON, after a tail with moves, an undo and a redo, a delete and a restore.
    @Test(arguments: LedgerStoreKind.allCases)
    func lsAfterATailSaysWhatAFullReplaySays(store: LedgerStoreKind) async throws {
        let box = try DledgerSandbox(store: store)
        let list = (1...8000).map { "https://example.com/pub/file-\($0).iso" }.joined(separator: "\n")
        try list.write(toFile: box.root + "/urls.txt", atomically: true, encoding: .utf8)
        try await box.run("add", "--from-file", box.root + "/urls.txt", "-q")
        for command in [
            ["section", "add", "Later"], ["mv", "7", "4000", "--to", "1:0"], ["rename", "7", "seven.iso"],
            ["pause", "12"], ["rm", "13"], ["mv", "20", "21", "--to", "1:1"], ["undo"], ["redo"], ["undo"],
            ["mv", "8", "--to", "1:1"], ["restore", "13"], ["section", "add", "Last"],
            ["mv", "9", "--to", "2:0"],
            ["resume", "12"], ["rm", "14"],
        ] {
            #expect(try await box.run(command).status == 0, "\(command)")
        }
        let stats = try #require(try await box.run("stats", "--json").json as? [String: Any])
        #expect(stats["snapshotSeq"] as? Int == 2)
        let commands = [["ls"], ["ls", "--json"]].flatMap { ls in
            [ls] + (0...2).map { ls + ["--section", "\($0)"] }
        }
        var fromSnapshot: [[String]: String] = [:]
        for command in commands {
            let r = try await box.run(command)
            #expect(r.status == 0, "\(command): \(r.err)")
            fromSnapshot[command] = r.out
        }
        #expect(fromSnapshot[["ls", "--section", "1"]]?.contains("#8 ") == true)
        try box.editLedger("DELETE FROM snapshots")
        for command in commands {
            let r = try await box.run(command)
            #expect(r.status == 0 && r.out == fromSnapshot[command], "\(command)")
        }
    }

    func finishedLedger(_ store: LedgerStoreKind = .sqlite) async throws -> (DledgerSandbox, LoopbackServer) {
        let box = try DledgerSandbox(store: store)
        let server = try LoopbackServer()
        server.serve("/f.bin", Resource(size: 50_000, seed: 3))
        let r = try await box.run("get", server.url("/f.bin"))
        #expect(r.status == 0, "\(r.err)")
        return (box, server)
    }

    @Test(arguments: LedgerStoreKind.allCases)
    func verifyPassesThenFailsOnATamperedCopyAndAMissingFile(store: LedgerStoreKind) async throws {
        let (box, _) = try await finishedLedger(store)
        let ok = try await box.run("verify", "--checksums")
        #expect(ok.status == 0)
        #expect(ok.out.contains("ok: hash chain intact"))
        try FileManager.default.removeItem(atPath: box.downloads + "/f.bin")
        let missing = try await box.run("verify")
        #expect(missing.status == 1)
        #expect(missing.out.contains("problem: task #1: file missing: \(box.downloads)/f.bin"))
        let tampered: Finished
        switch store {
        case .sqlite:
            try sqlite3(box.ledger, "PRAGMA wal_checkpoint(TRUNCATE);")
            let copy = box.root + "/copy.sqlite"
            try FileManager.default.copyItem(atPath: box.ledger, toPath: copy)
            #expect(try await box.run("verify", "--ledger", copy, "--skip-files").status == 0)
            try dropTriggersAndEdit(copy)
            tampered = try await box.run("verify", "--ledger", copy, "--skip-files")
        case .postgres:
            // The events table refuses UPDATE in the database itself: the edit turns its trigger off first.
            try box.editLedger(
                "ALTER TABLE events DISABLE TRIGGER events_refuse_update_delete; UPDATE events SET payload = "
                    + "convert_to(replace(convert_from(payload, 'UTF8'), 'f.bin', 'g.bin'), 'UTF8') WHERE seq = 2"
            )
            tampered = try await box.run("verify", "--skip-files")
        }
        #expect(tampered.status == 1)
        #expect(tampered.out.contains("problem: hash chain broken at event #2"), "\(tampered.out)")
        #expect(tampered.err.hasPrefix("error: verification failed"))
    }

    /// Drops every trigger on the events table and edits event 2's payload (the URL).
    func dropTriggersAndEdit(_ path: String) throws {
        let p = Process()
        p.executableURL = URL(fileURLWithPath: "/usr/bin/sqlite3")
        p.arguments = [path, "SELECT name FROM sqlite_master WHERE type = 'trigger';"]
        let out = Pipe()
        p.standardOutput = out
        try p.run()
        let names = String(decoding: out.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
        p.waitUntilExit()
        let drops = names.split(separator: "\n").map { "DROP TRIGGER \($0);" }.joined(separator: " ")
        try sqlite3(
            path, drops + " UPDATE events SET payload = replace(payload, 'f.bin', 'g.bin') WHERE seq = 2;")
    }

    // SQLite only: a read-only copy of the ledger file.
    @Test func inspectionWorksOnAReadOnlyCopyAndLeavesItUntouched() async throws {
        let (box, _) = try await finishedLedger()
        let dir = box.root + "/ro"
        try FileManager.default.createDirectory(atPath: dir, withIntermediateDirectories: true)
        try sqlite3(box.ledger, "PRAGMA wal_checkpoint(TRUNCATE);")
        let copy = dir + "/ledger.sqlite"
        try FileManager.default.copyItem(atPath: box.ledger, toPath: copy)
        chmod(copy, 0o444)
        chmod(dir, 0o555)
        defer { chmod(dir, 0o755) }
        let before = try Data(contentsOf: URL(fileURLWithPath: copy))
        for args in [
            ["ls"], ["ls", "--json"], ["log"], ["audit", "1"], ["replay", "--to", "2"], ["verify"],
            ["export"], ["stats"],
        ] {
            let r = try await box.run(args + ["--ledger", copy])
            #expect(r.status == 0, "\(args): \(r.err)")
        }
        #expect(try Data(contentsOf: URL(fileURLWithPath: copy)) == before)
        #expect(try FileManager.default.contentsOfDirectory(atPath: dir) == ["ledger.sqlite"])
        let write = try await box.run("pause", "1", "--ledger", copy)
        #expect(write.status != 0)
    }

    @Test(arguments: LedgerStoreKind.allCases)
    func auditShowsOneTasksHistory(store: LedgerStoreKind) async throws {
        let (box, _) = try await finishedLedger(store)
        let r = try await box.run("audit", "1")
        #expect(r.status == 0)
        #expect(r.out.contains("tasksAdded"))
        #expect(r.out.contains("transferStarted"))
        #expect(r.out.contains("#1 finished: 50.0 KB, sha256 "))
        #expect(try await box.run("audit", "7").err == "error: no task #7\n")
    }

    @Test(arguments: LedgerStoreKind.allCases)
    func runsOfThreeOrMoreIDsReadAsARangeInLogAuditAndJSONText(store: LedgerStoreKind) async throws {
        let box = try DledgerSandbox(store: store)
        try await box.run(["add"] + (1...5).map { "http://example.com/\($0)" })
        try await box.run("pause", "1", "2", "3", "5")
        try await box.run("resume", "1", "2")
        let log = try await box.run("log").out.split(separator: "\n").map(String.init)
        #expect(log[1].hasSuffix("added #1–#5 to new section 0 'Downloads'"))
        #expect(log[2].hasSuffix("paused #1–#3 #5"))
        #expect(log[3].hasSuffix("resumed #1 #2"))
        let audit = try await box.run("audit", "4").out
        #expect(audit.contains("added #1–#5 to new section 0 'Downloads'"))
        let json = try await box.run("log", "--json").jsonLines
        #expect(json[2]["text"] as? String == "paused #1–#3 #5")
        #expect(json[2]["tasks"] as? [Int] == [1, 2, 3, 5])
    }
}
