import Foundation
import Testing

@Suite struct UndoCommandsTests {
    @Test func undoAndRedoSayWhatTheyDid() async throws {
        let box = try DledgerSandbox()
        try await box.run("add", "http://example.com/a", "http://example.com/b")
        try await box.run("mv", "2", "--to", "0:0")
        let undo = try await box.run("undo")
        #expect(undo.out == "undid #3 tasksMoved: moved #2 to 0:0\n")
        #expect(try await box.task(2)?["index"] as? Int == 1)
        let redo = try await box.run("redo")
        #expect(redo.out == "redid #3 tasksMoved: moved #2 to 0:0\n")
        #expect(try await box.task(2)?["index"] as? Int == 0)
    }

    @Test func undoNStopsAtTheFirstError() async throws {
        let box = try DledgerSandbox()
        try await box.run("add", "http://example.com/a")
        try await box.run("pause", "1")
        let r = try await box.run("undo", "5")
        #expect(r.out.contains("undid #3 tasksPaused"))
        #expect(r.out.contains("undid #2 tasksAdded"))
        #expect(r.err.contains("stopped after 2: nothing to undo"))
        #expect(r.status == 1)
        let nothing = try await box.run("undo")
        #expect(nothing.status == 1)
        #expect(nothing.err == "error: nothing to undo\n")
    }
}
