import Foundation
import LoopbackHTTP
import Testing

/// What the CLI says is what is (issue 23, "small lies and surprises"): a setting asked for is its value, a view
/// that matches nothing says so, the newest events are the newest, a folder taken is a folder used.
@Suite struct StraightAnswersTests {
    @Test(arguments: LedgerStoreKind.allCases)
    func settingsWithoutAValueSayWhatTheyAreNotWhatWasSet(store: LedgerStoreKind) async throws {
        let box = try DledgerSandbox(store: store)
        try await box.run("add", "http://example.com/a")
        #expect(try await box.run("speed-limit").out == "speed limit: none\n")
        #expect(try await box.run("speed-limit", "200KB").out == "speed limit set to 200 KB/s\n")
        #expect(try await box.run("speed-limit").out == "speed limit: 200 KB/s\n")
        #expect(try await box.run("speed-limit", "--json").out == "200000\n")
        #expect(try await box.run("limit").out == "downloads at a time: at most 3\n")
        try await box.run("limit", "0")
        #expect(try await box.run("limit").out == "downloads at a time: no limit\n")
        #expect(try await box.run("connections").out == "connections per download: the downloader decides\n")
        try await box.run("connections", "4")
        #expect(try await box.run("connections").out == "connections per download: 4\n")
        #expect(try await box.run("connections", "--json").out == "4\n")
        #expect(try await box.run("sort").out == "sort: manual\n")
        #expect(try await box.run("sort", "name", "--desc").out == "sorted by name, descending\n")
        #expect(try await box.run("sort").out == "sort: name, descending\n")
        let json = try #require(try await box.run("sort", "--json").json as? [String: Any])
        #expect(json["sort"] as? String == "name" && json["descending"] as? Bool == true)
        // Asking changes nothing; --desc alone is not a sort.
        let before = try await box.eventCount()
        let desc = try await box.run("sort", "--desc")
        #expect(desc.status == 64)
        #expect(desc.err.hasPrefix("error: --desc goes with a sort mode ('sort name --desc')\n"))
        let bad = try await box.run("sort", "sideways")
        #expect(bad.status == 64)
        #expect(
            bad.err.hasPrefix(
                "error: unknown sort mode 'sideways' (manual, added, name, size, type, finished)\n"))
        for args in [["speed-limit"], ["limit"], ["connections"], ["sort"]] { try await box.run(args) }
        #expect(try await box.eventCount() == before)
    }

    @Test(arguments: LedgerStoreKind.allCases)
    func emptyFilteredViewsSayWhatIsEmptyNotThatTheListIs(store: LedgerStoreKind) async throws {
        let box = try DledgerSandbox(store: store)
        let server = try LoopbackServer()
        server.serve("/done.bin", Resource(size: 20_000, seed: 1))
        #expect(try await box.run("get", server.url("/done.bin")).status == 0)
        #expect(try await box.run("ls", "--unfinished").out == "No unfinished tasks.\n")
        #expect(try await box.run("ls", "--trash").out == "The to-delete list is empty.\n")
        try await box.run("add", "http://example.com/later.bin", "--section", "Later")
        #expect(
            try await box.run("ls", "--section", "1", "--finished").out
                == "No finished tasks in section 1 'Later' yet.\n")
        try await box.run("rm", "1")
        #expect(try await box.run("ls", "--finished").out == "No finished tasks yet.\n")
        #expect(try await box.run("ls", "--recent", "0").out == "No task finished today.\n")
        #expect(
            try await box.run("ls", "--recent", "3").out
                == "No task finished today or in the 3 days before.\n")
        // The JSON of an empty view is still the view.
        let doc = try #require(try await box.run("ls", "--finished", "--json").json as? [String: Any])
        #expect(doc["filter"] as? String == "finished" && (doc["sections"] as? [Any])?.isEmpty == true)
        try await box.run("purge", "--all")
        try await box.run("rm", "2", "--now")
        #expect(
            try await box.run("ls", "--unfinished").out
                == "The list is empty. Add a URL with 'dledger add URL'.\n")
    }

    /// A download deleted while it ran stopped: its row in the to-delete list says what the JSON says.
    @Test(arguments: LedgerStoreKind.allCases)
    func theToDeleteListShowsTheStateItsJSONShows(store: LedgerStoreKind) async throws {
        let box = try DledgerSandbox(store: store)
        let server = try LoopbackServer()
        server.serve(
            "/slow.bin", Resource(size: 400_000, seed: 5, faults: Faults(throttleBytesPerSecond: 60_000)))
        try await box.run("add", server.url("/slow.bin"))
        let runner = try box.start("run")
        let started = await eventually { partialSize(box.downloads + "/.dledger/partial/1.part") > 0 }
        #expect(started)
        #expect(try await box.run("rm", "1", "--mode", "record").status == 0)
        runner.interrupt()
        _ = await runner.wait()
        let doc = try #require(try await box.run("ls", "--trash", "--json").json as? [String: Any])
        let task = try #require(
            ((doc["sections"] as? [[String: Any]])?.first?["tasks"] as? [[String: Any]])?.first)
        let state = try #require(task["state"] as? String)
        #expect(state == "waiting")
        #expect((task["deleted"] as? [String: Any])?["state"] as? String == "downloading")
        let row = try #require(
            try await box.run("ls", "--trash").out.split(separator: "\n").first { $0.contains("#1") })
        #expect(row.contains(" \(state) ") && !row.contains(" downloading "), "\(row)")
        #expect(row.hasSuffix("from 0:0 'Downloads', record only, was downloading"), "\(row)")
    }

    @Test(arguments: LedgerStoreKind.allCases)
    func logLimitIsTheNewestEventsAndFirstTheOldest(store: LedgerStoreKind) async throws {
        let box = try DledgerSandbox(store: store)
        for n in 1...4 { try await box.run("add", "http://example.com/\(n)") }
        try await box.run("pause", "1")
        let seqs = { (args: [String]) async throws -> [Int] in
            try await box.run(["log", "--json"] + args).jsonLines.compactMap { $0["seq"] as? Int }
        }
        #expect(try await seqs([]) == [1, 2, 3, 4, 5, 6])
        #expect(try await seqs(["--limit", "2"]) == [5, 6])
        #expect(try await seqs(["--first", "2"]) == [1, 2])
        #expect(try await seqs(["--limit", "0"]) == [])
        #expect(try await seqs(["--limit", "100"]) == [1, 2, 3, 4, 5, 6])
        #expect(try await seqs(["--since", "3", "--limit", "10"]) == [3, 4, 5, 6])
        #expect(try await seqs(["--since", "3", "--first", "2"]) == [3, 4])
        #expect(try await seqs(["--task", "1", "--limit", "1"]) == [6])
        #expect(try await seqs(["--task", "1", "--first", "1"]) == [2])
        // In words too: the newest line last, as tail prints it.
        let words = try await box.run("log", "--limit", "2").out.split(separator: "\n")
        #expect(words.count == 2 && words[0].contains("tasksAdded") && words[1].contains("tasksPaused"))
        let before = try await box.eventCount()
        let both = try await box.run("log", "--limit", "1", "--first", "1")
        #expect(both.status == 64)
        #expect(
            both.err.hasPrefix("error: give --limit N (the newest) or --first N (the oldest), not both\n"))
        let negative = try await box.run("log", "--first", "-1")
        #expect(negative.status == 64)
        #expect(negative.err.hasPrefix("error: option '--first' must be a whole number"), "\(negative.err)")
        #expect(try await box.eventCount() == before)
    }

    /// `--dir /x//y/`, or one built from a TMPDIR that ends in a slash, is the folder /x/y: taken in that form, and
    /// downloads go there (they failed with "not a safe absolute path" every time).
    @Test(arguments: LedgerStoreKind.allCases)
    func aFolderWithDoubleOrTrailingSlashesIsTakenInItsNormalForm(store: LedgerStoreKind) async throws {
        let box = try DledgerSandbox(store: store)
        let server = try LoopbackServer()
        server.serve("/c.bin", Resource(size: 30_000, seed: 3))
        let messy = box.root + "/x//y/"
        let r = try await box.run(
            "get", "--dir", messy, server.url("/c.bin"), env: ["TMPDIR": box.root + "/"])
        #expect(r.status == 0, "\(r.err)")
        #expect(r.out.contains("saved #1 \(box.root)/x/y/c.bin"), "\(r.out)")
        #expect(
            FileManager.default.contents(atPath: box.root + "/x/y/c.bin").map(Array.init)
                == Body.generatedBytes(seed: 3, in: 0..<30_000))
        // The task keeps the folder in its normal form (the ledger's own folder is the user's download folder).
        #expect(try await box.task(1)?["directory"] as? String == box.root + "/x/y")
        // A TMPDIR with a trailing slash, used as the folder of a new ledger.
        let other = try DledgerSandbox(store: store)
        let tmp = other.root + "/tmp/"
        try FileManager.default.createDirectory(atPath: tmp, withIntermediateDirectories: true)
        server.serve("/d.bin", Resource(size: 10_000, seed: 4))
        let viaTmp = try await other.run(
            "get", "--dir", tmp + "/dl", server.url("/d.bin"), env: ["TMPDIR": tmp])
        #expect(viaTmp.status == 0, "\(viaTmp.err)")
        #expect(FileManager.default.fileExists(atPath: other.root + "/tmp/dl/d.bin"))
        #expect(try await other.task(1)?["directory"] as? String == other.root + "/tmp/dl")
    }

    /// A fragment is never sent: `c.pdf#x` is `c.pdf`, one task, one download.
    @Test(arguments: LedgerStoreKind.allCases)
    func aURLFragmentMakesNoNewTaskAndIsNotSent(store: LedgerStoreKind) async throws {
        let box = try DledgerSandbox(store: store)
        let server = try LoopbackServer()
        server.serve("/c.pdf", Resource(size: 25_000, seed: 7))
        let got = try await box.run("get", server.url("/c.pdf") + "#page=2")
        #expect(got.status == 0, "\(got.err)")
        #expect(got.out.contains("saved #1 \(box.downloads)/c.pdf"), "\(got.out)")
        #expect(!server.requests("/c.pdf").isEmpty)
        #expect(server.requests("/c.pdf").allSatisfy { !$0.path.contains("#") })
        let before = try await box.eventCount()
        let again = try await box.run("add", server.url("/c.pdf"))
        #expect(again.status == 1)
        #expect(again.err == "error: nothing added: \(server.url("/c.pdf")): duplicate of task #1\n")
        let other = try await box.run("add", server.url("/c.pdf") + "#x")
        #expect(other.err == "error: nothing added: \(server.url("/c.pdf"))#x: duplicate of task #1\n")
        #expect(try await box.eventCount() == before)
        #expect(
            try await box.run("get", server.url("/c.pdf")).out.contains("already in the list: #1 (finished)"))
        #expect(server.requests("/c.pdf").filter { $0.method == "GET" }.count == 1)
    }

    @Test(arguments: LedgerStoreKind.allCases)
    func redownloadTakesASectionOrAll(store: LedgerStoreKind) async throws {
        let box = try DledgerSandbox(store: store)
        let server = try LoopbackServer()
        for n in 1...3 { server.serve("/\(n).bin", Resource(size: 5_000, seed: UInt64(n))) }
        #expect(try await box.run("get", server.url("/1.bin"), server.url("/2.bin")).status == 0)
        #expect(try await box.run("get", server.url("/3.bin"), "--section", "Later").status == 0)
        try await box.run("add", "http://example.com/untouched.bin", "--section", "Later")
        #expect(
            try await box.run("redownload", "--section", "1").out == "reset #3 to download again from zero\n")
        #expect(!FileManager.default.fileExists(atPath: box.downloads + "/3.bin"))
        #expect(try await box.task(1)?["state"] as? String == "finished")
        #expect(try await box.run("redownload", "--all").out == "reset #1 #2 to download again from zero\n")
        #expect(try await box.task(1)?["state"] as? String == "waiting")
        #expect(!FileManager.default.fileExists(atPath: box.downloads + "/1.bin"))
        // Nothing downloaded anywhere now: nothing to do, nothing appended; bad input is one line, exit 64.
        let before = try await box.eventCount()
        let nothing = try await box.run("redownload", "--all")
        #expect(nothing.status == 1)
        #expect(
            nothing.err == "error: none of these tasks has downloaded anything: nothing to download again\n")
        let cases: [([String], String)] = [
            (["redownload"], "error: give task ids, --section N or --all\n"),
            (["redownload", "1", "--all"], "error: give only one of: ids, --section, --all\n"),
            (["redownload", "--section", "7"], "error: section index 7 out of range (0..1)\n"),
        ]
        for (args, message) in cases {
            let r = try await box.run(args)
            #expect(r.status == 64, "\(args)")
            #expect(r.err.hasPrefix(message), "\(args): \(r.err)")
        }
        #expect(try await box.eventCount() == before)
    }

    @Test(arguments: LedgerStoreKind.allCases)
    func infoShowsOneTaskWithItsFileFolderOptionsFailureAndPlace(store: LedgerStoreKind) async throws {
        let box = try DledgerSandbox(store: store)
        let server = try LoopbackServer()
        server.serve("/ok.bin", Resource(size: 12_000, seed: 9))
        #expect(try await box.run("get", server.url("/ok.bin")).status == 0)
        try await box.run(
            "add", server.url("/missing.bin"), "--header", "Authorization: Bearer s3cret", "--section",
            "Later")
        try await box.run("get", server.url("/missing.bin"))
        let ok = try await box.run("info", "1")
        #expect(ok.status == 0)
        let lines = ok.out.split(separator: "\n").map(String.init)
        #expect(lines.first == "#1 ok.bin")
        #expect(lines.contains("  state     finished"))
        #expect(lines.contains("  bytes     12.0 KB / 12.0 KB (100%)"), "\(lines)")
        #expect(lines.contains("  file      \(box.downloads)/ok.bin (on disk)"))
        #expect(lines.contains("  folder    \(box.downloads)"))
        #expect(lines.contains("  location  0:0 'Downloads'"))
        #expect(lines.contains("  failure   none"))
        #expect(lines.contains { $0.hasPrefix("  sha256    ") && $0.count == 12 + 64 })
        let json = try #require(try await box.run("info", "1", "--json").json as? [String: Any])
        #expect(json["fileExists"] as? Bool == true && json["location"] as? String == "0:0")
        #expect(json["file"] as? String == box.downloads + "/ok.bin")
        #expect((json["sha256"] as? String)?.count == 64)
        try FileManager.default.removeItem(atPath: box.downloads + "/ok.bin")
        #expect(
            try await box.run("info", "1").out.contains(
                "  file      \(box.downloads)/ok.bin (missing: not on disk)\n"))
        let missingJSON = try #require(try await box.run("info", "1", "--json").json as? [String: Any])
        #expect(
            missingJSON["fileExists"] as? Bool == false && missingJSON["fileProblem"] as? String == "missing")
        // A failed task: its failure, its options with the credential redacted, its place.
        let failed = try await box.run("info", "2")
        #expect(failed.out.contains("  state     failed\n"))
        #expect(
            failed.out.contains("  failure   the server answered HTTP 404 (Not Found)\n"), "\(failed.out)")
        #expect(failed.out.contains("  options   header Authorization: [redacted]\n"), "\(failed.out)")
        #expect(failed.out.contains("  location  1:0 'Later'\n"))
        #expect(!failed.out.contains("s3cret"))
        let failedJSON = try #require(try await box.run("info", "2", "--json").json as? [String: Any])
        #expect((failedJSON["failure"] as? [String: Any])?["code"] as? String == "http")
        #expect(!(try await box.run("info", "2", "--json").out.contains("s3cret")))
        // In the to-delete list, it says where it came from.
        try await box.run("rm", "2")
        #expect(
            try await box.run("info", "2").out.contains(
                "  location  in the to-delete list (from 1:0 'Later')\n"))
        // Bad ids: one line, exit 64, nothing appended.
        let before = try await box.eventCount()
        for (args, message) in [
            (["info"], "error: missing <id> (usage: dledger info <id> [--json])\n"),
            (["info", "9"], "error: no task #9\n"),
            (["info", "x"], "error: a task id must be a whole number of at least 1, not 'x'\n"),
            (["info", "1", "2"], "error: unexpected argument '2'\n"),
        ] {
            let r = try await box.run(args)
            #expect(r.status == 64, "\(args)")
            #expect(r.err.hasPrefix(message), "\(args): \(r.err)")
        }
        #expect(try await box.eventCount() == before)
    }
}
