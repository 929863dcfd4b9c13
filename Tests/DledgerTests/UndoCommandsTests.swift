import Foundation
import Testing

@Suite struct UndoCommandsTests {
    @Test(arguments: LedgerStoreKind.allCases)
    func undoAndRedoSayWhatTheyDid(store: LedgerStoreKind) async throws {
        let box = try DledgerSandbox(store: store)
        try await box.run("add", "http://example.com/a", "http://example.com/b")
        try await box.run("mv", "2", "--to", "0:0")
        let undo = try await box.run("undo")
        #expect(undo.out == "undid #3 (moved #2 to 0:0): put back #2 at 0:1 'Downloads'\n")
        #expect(try await box.task(2)?["index"] as? Int == 1)
        let redo = try await box.run("redo")
        #expect(redo.out == "redid #3: moved #2 to 0:0 'Downloads'\n")
        #expect(try await box.task(2)?["index"] as? Int == 0)
    }

    /// `undo N` is all or nothing: when fewer than N can be undone, nothing is appended and the error says how
    /// many could have been.
    @Test(arguments: LedgerStoreKind.allCases)
    func undoNIsAllOrNothing(store: LedgerStoreKind) async throws {
        let box = try DledgerSandbox(store: store)
        try await box.run("add", "http://example.com/a")
        try await box.run("pause", "1")
        let before = try await box.eventCount()
        let r = try await box.run("undo", "5")
        #expect(r.status == 1)
        #expect(r.out == "")
        #expect(r.err == "error: only 2 of the 5 actions can be undone, so none was: nothing to undo\n")
        #expect(try await box.eventCount() == before)
        let two = try await box.run("undo", "2")
        #expect(two.status == 0)
        #expect(two.out.split(separator: "\n").map { $0.prefix(8) } == ["undid #3", "undid #2"])
        #expect(try await box.eventCount() == before + 2)
        let redo = try await box.run("redo", "3")
        #expect(redo.status == 1)
        #expect(redo.err.hasPrefix("error: only 2 of the 3 actions can be redone, so none was"))
        #expect(try await box.run("redo", "2").status == 0)
        #expect(try await box.task(1)?["state"] as? String == "paused")
        let nothing = try await box.run("redo")
        #expect(nothing.status == 1)
        #expect(nothing.err == "error: nothing to redo\n")
    }

    /// After a purge, undo neither undoes an older unrelated action nor appends anything: it names the purge.
    /// `undo --past` reaches the action before it, saying what it passed over.
    @Test(arguments: LedgerStoreKind.allCases)
    func undoAfterAPurgeNamesItAndUndoPastReachesOlderActions(store: LedgerStoreKind) async throws {
        let box = try DledgerSandbox(store: store)
        try await box.run("add", "http://example.com/a", "http://example.com/b")
        try await box.run("rm", "1")
        try await box.run("restore", "1")
        try await box.run("rm", "2")
        try await box.run("purge", "--all")
        let before = try await box.eventCount()
        let r = try await box.run("undo")
        #expect(r.status == 1)
        #expect(
            r.err
                == "error: cannot undo #6 (trashPurged): purged tasks are gone for good, with their files ('undo --past' undoes the newest action that can be undone)\n"
        )
        #expect(try await box.eventCount() == before)
        #expect(try await box.task(1)?["state"] as? String == "waiting")
        let past = try await box.run("undo", "--past")
        #expect(past.status == 0)
        #expect(
            past.out
                == "passed over #6 trashPurged: purged tasks are gone for good, with their files\n"
                + "undid #4 (restored #1 to where it was): put #1 back in the to-delete list\n")
        #expect(try await box.task(1) == nil)
        let log = try await box.run("log").out.split(separator: "\n")
        #expect(
            log.last?.hasSuffix("undid #4 (restored #1 to where it was): put #1 back in the to-delete list")
                == true)
    }

    @Test(arguments: LedgerStoreKind.allCases)
    func undoOfADeleteSaysWhichTasksAndSectionsCameBack(store: LedgerStoreKind) async throws {
        let box = try DledgerSandbox(store: store)
        try await box.run("add", "http://example.com/a", "--section", "B")
        try await box.run("add", "http://example.com/b", "--section", "B")
        try await box.run("add", "http://example.com/c", "--section", "B")
        try await box.run("add", "http://example.com/d", "--new-section", "B")
        let twins = try #require(try await box.run("ls", "--json").json as? [String: Any])
        let titles = (twins["sections"] as? [[String: Any]])?.map { $0["title"] as? String }
        #expect(titles == ["B", "B"])
        // The second 'B' empties and goes; undo brings back that very section, not the first one.
        #expect(try await box.run("rm", "4").status == 0)
        let undo = try await box.run("undo")
        #expect(
            undo.out
                == "undid #6 (moved #4 to the to-delete list (record and file)): restored #4 to 1:0 'B', section 1 'B' recreated\n"
        )
        let after = try #require(try await box.run("ls", "--json").json as? [String: Any])
        let tasks = (after["sections"] as? [[String: Any]])?.map {
            ($0["tasks"] as? [[String: Any]])?.map { $0["id"] as? Int }
        }
        #expect(tasks == [[1, 2, 3], [4]])
    }
}
