import Foundation
import Testing

@Suite struct AddCommandTests {
    @Test(arguments: LedgerStoreKind.allCases)
    func addPrintsIdsAndSkippedDuplicates(store: LedgerStoreKind) async throws {
        let box = try DledgerSandbox(store: store)
        let first = try await box.run("add", "http://example.com/a.iso", "http://example.com/b.zip")
        #expect(first.status == 0)
        #expect(first.out.contains("added #1 to section 0 'Downloads': http://example.com/a.iso"))
        #expect(first.out.contains("added #2 to section 0 'Downloads': http://example.com/b.zip"))
        let second = try await box.run("add", "http://example.com/c", "http://example.com/a.iso")
        #expect(second.status == 0)
        #expect(second.out.contains("added #3"))
        #expect(second.out.contains("skipped http://example.com/a.iso: duplicate of task #1"))
    }

    @Test(arguments: LedgerStoreKind.allCases)
    func addWithOnlyDuplicatesFailsAndAppendsNothing(store: LedgerStoreKind) async throws {
        let box = try DledgerSandbox(store: store)
        try await box.run("add", "http://example.com/a")
        let before = try await box.eventCount()
        let r = try await box.run("add", "http://example.com/a")
        #expect(r.status == 1)
        #expect(r.err.contains("error: nothing added: http://example.com/a: duplicate of task #1"))
        #expect(try await box.eventCount() == before)
    }

    @Test(arguments: LedgerStoreKind.allCases)
    func badURLIsRejectedBeforeAnythingRuns(store: LedgerStoreKind) async throws {
        let box = try DledgerSandbox(store: store)
        let r = try await box.run("add", "http://example.com/ok", "foo")
        #expect(r.status == 64)
        #expect(r.err.hasPrefix("error: not a URL: foo"))
        #expect(r.err.split(separator: "\n").count == 1)
        #expect(try !box.ledgerExists())
        #expect(try await box.run("add", "http://example.com/ok").status == 0)
        #expect(try box.ledgerExists(), "the check above can see a ledger")
    }

    @Test(arguments: LedgerStoreKind.allCases)
    func sectionOptionsPlaceTheTasks(store: LedgerStoreKind) async throws {
        let box = try DledgerSandbox(store: store)
        try await box.run("add", "http://example.com/1")
        try await box.run("add", "http://example.com/2", "--section", "Videos")
        try await box.run("add", "http://example.com/3", "--section", "Videos")
        try await box.run("add", "http://example.com/4", "--section-index", "1", "--at", "0")
        #expect(try await box.task(2)?["section"] as? Int == 1)
        #expect(try await box.task(3)?["index"] as? Int == 2)
        #expect(try await box.task(4)?["index"] as? Int == 0)
        let bad = try await box.run("add", "http://example.com/5", "--section-index", "5")
        #expect(bad.status == 64)
        #expect(bad.err == "error: section index 5 out of range (0..1)\n")
    }

    @Test(arguments: LedgerStoreKind.allCases)
    func fromFileReadsOneURLPerLineSkippingComments(store: LedgerStoreKind) async throws {
        let box = try DledgerSandbox(store: store)
        let list = "## my list\nhttp://example.com/x\n\n  http://example.com/y  \nnot-a-url\n"
        let r = try await box.run("add", "--from-file", "-", stdin: list)
        #expect(r.status == 0)
        #expect(r.out.contains("added #1 to section 0 'Downloads': http://example.com/x"))
        #expect(r.out.contains("added #2 to section 0 'Downloads': http://example.com/y"))
        #expect(r.out.contains("skipped not-a-url: not a URL"))
    }

    /// `# Title` lines make several titled groups in one command: one event, one undo (SDE `download(sections:)`).
    @Test(arguments: LedgerStoreKind.allCases)
    func fromFileWithTitlesAddsSeveralGroupsAsOneAction(store: LedgerStoreKind) async throws {
        let box = try DledgerSandbox(store: store)
        try await box.run("add", "http://example.com/old", "--section", "Media")
        let before = try await box.eventCount()
        let list = [
            "http://example.com/first", "# Linux", "http://example.com/debian.iso",
            "http://example.com/arch.iso",
            "## a comment", "# Media", "http://example.com/talk.mp4", "# Empty", "",
        ].joined(separator: "\n")
        let r = try await box.run(
            "add", "--from-file", "-", "--new-section", "Top", "--at-section", "0", stdin: list)
        #expect(r.status == 0, "\(r.err)")
        #expect(
            r.out.split(separator: "\n") == [
                "added #2 to section 0 'Top': http://example.com/first",
                "added #3 to section 2 'Linux': http://example.com/debian.iso",
                "added #4 to section 2 'Linux': http://example.com/arch.iso",
                "added #5 to section 1 'Media': http://example.com/talk.mp4",
            ])
        #expect(try await box.eventCount() == before + 1)
        let ls = try await box.run("ls").out
        #expect(
            ls.hasPrefix("0 Top  (1 task)") && ls.contains("1 Media  (2 tasks)")
                && ls.contains("2 Linux  (2 tasks)"))
        #expect(!ls.contains("Empty"))
        let words = "added #2 to new section 0 'Top', #3 #4 to new section 2 'Linux', #5 to section 1"
        let log = try await box.run("log").out.split(separator: "\n").last ?? ""
        // The kind column is as wide as the longest kind in the catalog.
        #expect(log.contains("groupsAdded ") && log.hasSuffix("  " + words), "\(log)")
        let undo = try await box.run("undo")
        #expect(
            undo.out
                == "undid #3 (\(words)): took #2–#5 out of the list, and the empty section 0 'Top', and the empty section 2 'Linux'\n"
        )
        #expect(try await box.run("ls").out.hasPrefix("0 Media  (1 task)\n"))
        let bad = try await box.run(
            "add", "--from-file", "-", "--name", "x", stdin: "# A\nhttp://example.com/z\n")
        #expect(bad.status == 64)
    }

    @Test(arguments: LedgerStoreKind.allCases)
    func nameAndChecksumAreValidated(store: LedgerStoreKind) async throws {
        let box = try DledgerSandbox(store: store)
        let badName = try await box.run("add", "http://example.com/a", "--name", "../x")
        #expect(badName.status == 64)
        #expect(badName.err.hasPrefix("error: invalid name '../x'"))
        let badSum = try await box.run("add", "http://example.com/a", "--sha256", "abc")
        #expect(badSum.status == 64)
        #expect(badSum.err.hasPrefix("error: not a SHA-256 hex digest: abc"))
        let named = try await box.run("add", "http://example.com/a", "--name", "mine.bin")
        #expect(named.status == 0)
        #expect(try await box.task(1)?["name"] as? String == "mine.bin")
    }

    @Test(arguments: LedgerStoreKind.allCases)
    func jsonShapeListsAddedAndSkipped(store: LedgerStoreKind) async throws {
        let box = try DledgerSandbox(store: store)
        try await box.run("add", "http://example.com/a")
        let r = try await box.run("add", "--json", "http://example.com/a", "http://example.com/b")
        let doc = try #require(r.json as? [String: Any])
        #expect(doc["seq"] as? Int == 3)
        #expect(doc["section"] as? Int == 0)
        let added = try #require(doc["added"] as? [[String: Any]])
        #expect(
            added.count == 1 && added[0]["id"] as? Int == 2
                && added[0]["url"] as? String == "http://example.com/b")
        let skipped = try #require(doc["skipped"] as? [[String: Any]])
        #expect(skipped.first?["reason"] as? String == "duplicate of task #1")
    }

    @Test(arguments: LedgerStoreKind.allCases)
    func dirSetsTheTasksDirectory(store: LedgerStoreKind) async throws {
        let box = try DledgerSandbox(store: store)
        try await box.run("add", "http://example.com/a", "--dir", "sub")
        #expect(try await box.task(1)?["directory"] as? String == box.downloads + "/sub")
    }

    @Test(arguments: LedgerStoreKind.allCases)
    func aDirThatIsAFileIsRefusedBeforeAnythingIsWritten(store: LedgerStoreKind) async throws {
        let box = try DledgerSandbox(store: store)
        #expect(FileManager.default.createFile(atPath: box.downloads + "/afile", contents: Data("x".utf8)))
        for dir in ["afile", "afile/sub"] {
            for command in [["add"], ["get"]] {
                let r = try await box.run(command + ["http://127.0.0.1:9/a", "--dir", dir])
                #expect(r.status == 64, "\(command) --dir \(dir): \(r.status)")
                #expect(r.err.contains("not a folder"), "\(r.err)")
            }
        }
        #expect(try !box.ledgerExists(), "a ledger was created")
        try FileManager.default.createSymbolicLink(
            atPath: box.downloads + "/link", withDestinationPath: "sub")
        try FileManager.default.createDirectory(
            atPath: box.downloads + "/sub", withIntermediateDirectories: false)
        let linked = try await box.run("add", "http://example.com/a", "--dir", "link")
        #expect(linked.status == 0, "\(linked.err)")
    }
}
