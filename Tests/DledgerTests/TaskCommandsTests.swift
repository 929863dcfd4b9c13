import Foundation
import Testing

@Suite struct TaskCommandsTests {
    func boxWithThree(_ store: LedgerStoreKind) async throws -> DledgerSandbox {
        let box = try DledgerSandbox(store: store)
        try await box.run("add", "http://example.com/1", "http://example.com/2")
        try await box.run("add", "http://example.com/3", "--section", "Later")
        return box
    }

    @Test(arguments: LedgerStoreKind.allCases)
    func badIdsAndPositionsNameTheBadThingAndAppendNothing(store: LedgerStoreKind) async throws {
        let box = try await boxWithThree(store)
        let before = try await box.eventCount()
        let cases: [([String], Int32, String)] = [
            (["mv", "9", "--to", "0"], 64, "error: no task #9\n"),
            (["mv", "1", "--to", "5:0"], 64, "error: section index 5 out of range (0..1)\n"),
            (["mv", "1", "--to", "1:7"], 64, "error: index 7 out of range for section 1 (0..1)\n"),
            (["pause", "9"], 64, "error: no task #9\n"),
            (["pause", "--section", "4"], 64, "error: section index 4 out of range (0..1)\n"),
            (["restore", "1"], 64, "error: task #1 is not in the to-delete list\n"),
            (["rename", "1", "a/b"], 64, "error: invalid name 'a/b': contains a path separator\n"),
            (
                ["mv", "x", "--to", "0"], 64,
                "error: a task id must be a whole number of at least 1, not 'x'\n"
            ),
            (
                ["limit", "-3"], 64,
                "error: the maximum download count must be a whole number from 0 to 10000, not '-3'\n"
            ),
            (["speed-limit", "fast"], 64, "error: not a rate: 'fast' (e.g. 500K, 2M, 1.5G; 0 for none)\n"),
            (["resume", "1"], 1, "error: task #1 is waiting: nothing to resume\n"),
        ]
        for (args, status, message) in cases {
            let r = try await box.run(args)
            #expect(r.status == status, "\(args)")
            #expect(r.err.hasPrefix(message), "\(args): \(r.err)")
        }
        #expect(try await box.eventCount() == before)
    }

    @Test(arguments: LedgerStoreKind.allCases)
    func moveDeleteRestorePurge(store: LedgerStoreKind) async throws {
        let box = try await boxWithThree(store)
        #expect(try await box.run("mv", "3", "--to", "0:0").out == "moved #3 to 0:0 'Downloads'\n")
        #expect(try await box.task(3)?["index"] as? Int == 0)
        // A new ledger removes emptied sections (SDE's default): 'Later' went with its last task.
        #expect(try await box.run("section", "add", "Later").status == 0)
        #expect(
            try await box.run("rm", "1", "2").out == "moved #1 #2 to the to-delete list (record and file)\n")
        #expect(try await box.task(1) == nil)
        #expect(try await box.run("restore", "1").status == 0)
        #expect(try await box.task(1)?["section"] as? Int == 0)
        #expect(try await box.run("restore", "--all", "--to", "1").status == 0)
        #expect(try await box.task(2)?["section"] as? Int == 1)
        #expect(try await box.run("rm", "2").status == 0)
        #expect(try await box.run("purge", "--all").out == "purged #2 for good\n")
        #expect(try await box.run("restore", "2").err == "error: no task #2\n")
    }

    @Test(arguments: LedgerStoreKind.allCases)
    func pauseResumeStopBySelection(store: LedgerStoreKind) async throws {
        let box = try await boxWithThree(store)
        #expect(try await box.run("pause", "--all").out == "paused #1–#3\n")
        #expect(try await box.run("resume", "--section", "1").out == "resumed #3\n")
        #expect(try await box.run("stop", "1").out == "stopped #1\n")
        #expect(try await box.task(1)?["state"] as? String == "stopped")
        #expect(try await box.task(2)?["state"] as? String == "paused")
        let both = try await box.run("pause", "1", "--all")
        #expect(both.status == 64)
    }

    @Test(arguments: LedgerStoreKind.allCases)
    func settingsLimitSpeedAndSort(store: LedgerStoreKind) async throws {
        let box = try await boxWithThree(store)
        #expect(try await box.run("limit", "5").out == "at most 5 downloads at a time\n")
        #expect(try await box.run("limit").out == "downloads at a time: at most 5\n")
        #expect(try await box.run("speed-limit", "1.5MB").out == "speed limit set to 1.5 MB/s\n")
        #expect(try await box.run("speed-limit", "--json").out == "1500000\n")
        // A bare unit is 1024-based, as curl and aria2c read it: 1.5M is 1,572,864 B/s.
        #expect(try await box.run("speed-limit", "1.5M").out == "speed limit set to 1.6 MB/s\n")
        #expect(try await box.run("speed-limit", "--json").out == "1572864\n")
        #expect(try await box.run("speed-limit", "500K").status == 0)
        #expect(try await box.run("speed-limit", "0").out == "speed limit removed\n")
        #expect(try await box.run("sort", "name", "--desc").out == "sorted by name, descending\n")
        let moved = try await box.run("mv", "1", "--to", "1")
        #expect(moved.status == 64)
        #expect(moved.err.contains("manual sort"))
        let export = try #require(try await box.run("export").json as? [String: Any])
        let settings = export["settings"] as? [String: Any]
        #expect(settings?["maxDownloads"] as? Int == 5 && settings?["sort"] as? String == "name")
    }

    @Test(arguments: LedgerStoreKind.allCases)
    func renameAndRedownload(store: LedgerStoreKind) async throws {
        let box = try await boxWithThree(store)
        #expect(try await box.run("rename", "2", "two.bin").out == "renamed #2 to 'two.bin'\n")
        // A waiting task that downloaded nothing has nothing to throw away: refused, nothing appended.
        let before = try await box.eventCount()
        let waiting = try await box.run("redownload", "2")
        #expect(waiting.status == 1)
        #expect(
            waiting.err == "error: task #2 is waiting and has downloaded nothing: nothing to download again\n"
        )
        #expect(try await box.eventCount() == before)
    }

    /// One rule for the to-delete list: a task there is frozen; only restore and purge act on it.
    @Test(arguments: LedgerStoreKind.allCases)
    func aTaskInTheToDeleteListAcceptsOnlyRestoreAndPurge(store: LedgerStoreKind) async throws {
        let box = try await boxWithThree(store)
        try await box.run("rm", "2")
        let before = try await box.eventCount()
        for args in [
            ["rename", "2", "x"], ["pause", "2"], ["resume", "2"], ["stop", "2"], ["redownload", "2"],
            ["mv", "2", "--to", "0"], ["rm", "2"],
        ] {
            let r = try await box.run(args)
            #expect(r.status == 64, "\(args)")
            #expect(r.err == "error: task #2 is in the to-delete list (restore it first)\n", "\(args)")
        }
        #expect(try await box.eventCount() == before)
        #expect(try await box.run("restore", "2").status == 0)
        #expect(try await box.run("rename", "2", "x").status == 0)
    }

    /// One rule for a sorted view: every command that names a section by number or a position needs the manual
    /// sort; the rest (plain add, add --section TITLE, ids) work in any view.
    @Test(arguments: LedgerStoreKind.allCases)
    func commandsThatNamePositionsNeedTheManualSort(store: LedgerStoreKind) async throws {
        let box = try await boxWithThree(store)
        try await box.run("sort", "name")
        let before = try await box.eventCount()
        for args in [
            ["mv", "1", "--to", "1"], ["section", "add", "X"], ["section", "rename", "0", "X"],
            ["section", "mv", "0", "--to", "1"], ["section", "rm", "1"],
            ["section", "sort", "0", "--by", "name"],
            ["add", "http://example.com/4", "--section-index", "0"],
            ["add", "http://example.com/4", "--new-section", "N"], ["pause", "--section", "0"],
            ["rm", "--section", "1"],
        ] {
            let r = try await box.run(args)
            #expect(r.status == 64, "\(args)")
            #expect(
                r.err.hasPrefix("error: positions need the manual sort (the list is sorted by name)"),
                "\(args): \(r.err)")
        }
        #expect(try await box.eventCount() == before)
        #expect(try await box.run("add", "http://example.com/4", "--section", "Later").status == 0)
        #expect(try await box.run("pause", "1", "4").status == 0)
    }

    @Test(arguments: LedgerStoreKind.allCases)
    func mutatingCommandsPrintTheEventAsJSON(store: LedgerStoreKind) async throws {
        let box = try await boxWithThree(store)
        let r = try await box.run("mv", "1", "--to", "1:0", "--json")
        let line = try #require(r.jsonLines.first)
        #expect(line["kind"] as? String == "tasksMoved")
        #expect(line["tasks"] as? [Int] == [1])
        #expect((line["payload"] as? [String: Any])?["section"] as? Int == 1)
    }
}
