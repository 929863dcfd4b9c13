import Foundation
import LoopbackHTTP
import Testing

/// The seeds' list model from the command line: settings, deleting at once, new sections at an index, sorting one
/// section, one section or URLs in `ls`, URL identity.
@Suite struct ListModelCommandsTests {
    @Test(arguments: LedgerStoreKind.allCases)
    func deletingWithoutTheToDeleteListRemovesTaskAndFileAndRefusesUndo(store: LedgerStoreKind) async throws {
        let box = try DledgerSandbox(store: store)
        try await box.run("add", "http://example.com/a", "http://example.com/b", "http://example.com/c")
        // A finished file the ledger placed, and its partial data.
        let r = try await box.run("rm", "1", "--now")
        #expect(r.status == 0)
        #expect(r.out == "deleted #1 at once, without the to-delete list (record and file)\n")
        #expect(try await box.task(1) == nil)
        let trash = try #require(try await box.run("ls", "--trash", "--json").json as? [String: Any])
        #expect(((trash["sections"] as? [[String: Any]])?.first?["tasks"] as? [Any])?.isEmpty == true)
        let before = try await box.eventCount()
        let undo = try await box.run("undo")
        #expect(undo.status == 1)
        #expect(
            undo.err.hasPrefix(
                "error: cannot undo #3 (tasksErased): the tasks were deleted at once, without the to-delete list: nothing was kept"
            ))
        #expect(try await box.eventCount() == before)
        // The URL is free again.
        #expect(try await box.run("add", "http://example.com/a").out.hasPrefix("added #4"))
        // The setting makes every rm erase; 'set' shows it; turning it back on is undoable like any setting.
        #expect(
            try await box.run("set", "trash", "off").out
                == "the to-delete list is off: deletes erase at once\n")
        #expect(
            try await box.run("set").out
                == "dir                        \(box.downloads)\n"
                + "trash                      off\nauto-remove-sections       on\n"
                + "max-size                   default (16 GiB without an announced size)\n"
                + "max-connection-per-server  default (16)\nmin-split-size             default (1 MiB)\n"
                + "user-agent                 default\npause-hold                 default (60 s)\n"
                + "claim-lease                default (30 s)\n"
                + "on-download-complete       none\non-download-error          none\n")
        #expect(try await box.run("rm", "2").out.hasPrefix("deleted #2 at once"))
        #expect(try await box.run("set", "trash", "on").status == 0)
        #expect(try await box.run("rm", "3").out == "moved #3 to the to-delete list (record and file)\n")
        for (args, message) in [
            (["set", "trash", "maybe"], "error: give on or off, not 'maybe'\n"),
            (
                ["set", "colour", "on"],
                "error: unknown setting 'colour' (dir, trash, auto-remove-sections, max-size, "
                    + "max-connection-per-server, min-split-size, user-agent, pause-hold, claim-lease, "
                    + "on-download-complete, on-download-error)\n"
            ),
            (["rm", "4", "--now", "--mode", "file"], "error: --now does not apply to --mode file"),
        ] {
            let bad = try await box.run(args)
            #expect(bad.status == 64, "\(args)")
            #expect(bad.err.hasPrefix(message), "\(args): \(bad.err)")
        }
    }

    @Test(arguments: LedgerStoreKind.allCases)
    func eraseRemovesTheFinishedFile(store: LedgerStoreKind) async throws {
        let box = try DledgerSandbox(store: store)
        let server = try LoopbackServerBox()
        let url = server.serve("/f.bin", size: 5_000)
        #expect(try await box.run("get", url).status == 0)
        #expect(box.contents("f.bin")?.count == 5_000)
        let kept = try await box.run("rm", "1", "--now", "--mode", "record")
        #expect(kept.out == "deleted #1 at once, without the to-delete list (record only)\n")
        #expect(box.contents("f.bin")?.count == 5_000, "record only keeps the file")
        #expect(try await box.run("get", server.serve("/g.bin", size: 3_000)).status == 0)
        #expect(box.contents("g.bin")?.count == 3_000)
        #expect(try await box.run("rm", "2", "--now").status == 0)
        #expect(box.contents("g.bin") == nil)
        #expect(box.contents("f.bin")?.count == 5_000)
    }

    @Test(arguments: LedgerStoreKind.allCases)
    func newLedgersRemoveEmptiedSectionsAndTheSettingTurnsItOff(store: LedgerStoreKind) async throws {
        let box = try DledgerSandbox(store: store)
        try await box.run("add", "http://example.com/a")
        try await box.run("add", "http://example.com/b", "--section", "B")
        try await box.run("mv", "2", "--to", "0")
        let titles = { () async throws -> [String] in
            let doc = try #require(try await box.run("ls", "--json").json as? [String: Any])
            return (doc["sections"] as? [[String: Any]])?.compactMap { $0["title"] as? String } ?? []
        }
        #expect(try await titles() == ["Downloads"])
        #expect(try await box.run("undo").status == 0)
        #expect(try await titles() == ["Downloads", "B"])
        #expect(
            try await box.run("set", "auto-remove-sections", "off").out == "empty sections are now kept\n")
        try await box.run("mv", "2", "--to", "0")
        #expect(try await titles() == ["Downloads", "B"])
    }

    @Test(arguments: LedgerStoreKind.allCases)
    func addIntoANewSectionAtAnIndex(store: LedgerStoreKind) async throws {
        let box = try DledgerSandbox(store: store)
        try await box.run("add", "http://example.com/a")
        try await box.run("add", "http://example.com/b", "--section", "Last")
        let r = try await box.run(
            "add", "http://example.com/c", "http://example.com/d", "--new-section", "Mid", "--at-section", "1"
        )
        #expect(
            r.out
                == "added #3 to section 1 'Mid': http://example.com/c\nadded #4 to section 1 'Mid': http://example.com/d\n"
        )
        let ls = try await box.run("ls").out
        #expect(
            ls.contains("0 Downloads  (1 task)\n") && ls.contains("1 Mid  (2 tasks)\n")
                && ls.contains("2 Last  (1 task)\n"))
        let bad = try await box.run("add", "http://example.com/e", "--new-section", "X", "--at-section", "9")
        #expect(bad.status == 64)
        #expect(bad.err == "error: section index 9 out of range (0..3)\n")
        let lone = try await box.run("add", "http://example.com/e", "--at-section", "1")
        #expect(lone.status == 64)
        #expect(lone.err.hasPrefix("error: --at-section goes with --new-section TITLE"))
    }

    @Test(arguments: LedgerStoreKind.allCases)
    func sortOneSectionInPlaceIsOneUndoableEvent(store: LedgerStoreKind) async throws {
        let box = try DledgerSandbox(store: store)
        try await box.run(
            "add", "http://example.com/zeta", "http://example.com/Alpha", "http://example.com/mid")
        try await box.run("add", "http://example.com/other", "--section", "B")
        let before = try await box.eventCount()
        let r = try await box.run("section", "sort", "0", "--by", "name")
        #expect(r.out == "sorted section 0 'Downloads': #2 #3 #1\n")
        #expect(try await box.eventCount() == before + 1)
        let ids = { () async throws -> [Int] in
            let doc = try #require(try await box.run("ls", "--json").json as? [String: Any])
            let first = (doc["sections"] as? [[String: Any]])?.first?["tasks"] as? [[String: Any]]
            return first?.compactMap { $0["id"] as? Int } ?? []
        }
        #expect(try await ids() == [2, 3, 1])
        #expect(try await box.run("section", "sort", "0", "--by", "name", "--desc").status == 0)
        #expect(try await ids() == [1, 3, 2])
        #expect(try await box.run("undo").status == 0)
        #expect(try await ids() == [2, 3, 1])
        let again = try await box.run("section", "sort", "0", "--by", "name")
        #expect(again.status == 1)
        #expect(again.err == "error: section 0 is already in that order\n")
        #expect(try await box.run("section", "sort", "0", "--by", "colour").status == 64)
    }

    @Test(arguments: LedgerStoreKind.allCases)
    func lsShowsOneSectionOrURLs(store: LedgerStoreKind) async throws {
        let box = try DledgerSandbox(store: store)
        try await box.run("add", "http://example.com/a.iso")
        try await box.run("add", "http://example.com/b.mkv", "--section", "Videos")
        let one = try await box.run("ls", "--section", "1")
        #expect(one.out.hasPrefix("1 Videos  (1 task)\n"))
        #expect(!one.out.contains("a.iso"))
        let urls = try await box.run("ls", "--urls")
        #expect(
            urls.out.contains("http://example.com/a.iso\n") && urls.out.contains("http://example.com/b.mkv\n")
        )
        let json = try #require(try await box.run("ls", "--section", "1", "--json").json as? [String: Any])
        #expect((json["sections"] as? [[String: Any]])?.map { $0["index"] as? Int } == [1])
        let bad = try await box.run("ls", "--section", "5")
        #expect(bad.status == 64)
        #expect(bad.err == "error: section index 5 out of range (0..1)\n")
        // A filtered view lists only the sections it has tasks of.
        try await box.run("rm", "2")
        try await box.run("set", "auto-remove-sections", "off")
        let unfinished = try await box.run("ls", "--unfinished").out
        #expect(unfinished.hasPrefix("0 Downloads  (1 task)\n"))
        let finished = try await box.run("ls", "--recent", "0")
        #expect(finished.status == 0)
        #expect(!finished.out.contains("Videos") && !finished.out.contains("Downloads"))
    }

    @Test(arguments: LedgerStoreKind.allCases)
    func sortByCompletionTime(store: LedgerStoreKind) async throws {
        let box = try DledgerSandbox(store: store)
        let server = try LoopbackServerBox()
        try await box.run("add", "http://example.com/never")
        #expect(try await box.run("get", server.serve("/done.bin", size: 1_000)).status == 0)
        #expect(try await box.run("sort", "finished", "--desc").out == "sorted by finished, descending\n")
        let ls = try await box.run("ls").out
        #expect(ls.hasPrefix("Unfinished  (1 task)\n"))
        #expect(ls.contains("Today  (1 task)\n"))
        let asc = try await box.run("ls", "--sort", "finished").out
        #expect(asc.hasPrefix("Today  (1 task)\n"))
        // Today: finished today, also for --recent 0.
        let recent = try await box.run("ls", "--recent", "0").out
        #expect(recent.contains("done.bin") && !recent.contains("never"))
    }

    /// A URL differing only in scheme or host case, a default port or an empty path is the same task; the log
    /// keeps the URL as typed.
    @Test(arguments: LedgerStoreKind.allCases)
    func urlIdentityFindsDuplicates(store: LedgerStoreKind) async throws {
        let box = try DledgerSandbox(store: store)
        try await box.run("add", "HTTP://Example.ORG:80")
        for dup in ["http://example.org/", "http://EXAMPLE.org", "http://example.org:80/"] {
            let r = try await box.run("add", dup)
            #expect(r.status == 1, "\(dup)")
            #expect(r.err == "error: nothing added: \(dup): duplicate of task #1\n", "\(dup)")
        }
        #expect(
            try await box.run("add", "https://example.org:443/a", "https://example.org/a").out.contains(
                "given twice"))
        #expect(try await box.run("add", "http://example.org/A").status == 0, "paths keep their case")
        #expect(
            try await box.run("add", "http://example.org:8080/").status == 0, "other ports are other URLs")
        let added = try await box.run("log", "--json").jsonLines[1]
        let urls = ((added["payload"] as? [String: Any])?["tasks"] as? [[String: Any]])?.map {
            $0["url"] as? String
        }
        #expect(urls == ["HTTP://Example.ORG:80"])
    }
}

/// A loopback server for a test, serving generated files.
final class LoopbackServerBox: @unchecked Sendable {
    let server: LoopbackServer

    init() throws { server = try LoopbackServer() }

    /// Serves `size` generated bytes at `path`; returns the URL.
    func serve(_ path: String, size: Int64) -> String {
        server.serve(path, Resource(size: size, seed: 7))
        return server.url(path)
    }
}
