import DownloadLedger
import Foundation
import LedgerRPC
import Testing

/// The `dledger.` methods: the CLI's commands and inspections, over RPC.
@Suite struct LedgerMethodsTests {
    @Test func sectionsMoveRestoreUndoAndTheLog() throws {
        let h = try RPCHarness(listen: false)
        let a = try #require(try h.result("aria2.addUri", #"[["\#(h.file("a"))"]]"#) as? String)
        let b = try #require(try h.result("aria2.addUri", #"[["\#(h.file("b"))"]]"#) as? String)
        #expect(try h.result("dledger.insertSection", #"["Later"]"#) as? String == "1")
        #expect(try h.result("dledger.renameSection", #"[1,"Someday"]"#) as? String == "OK")
        #expect(try h.result("dledger.move", #"[["\#(b)"],1]"#) as? String == "OK")
        let sections = try #require(try h.result("dledger.sections") as? [[String: Any]])
        #expect(sections.map { $0["title"] as? String } == ["Downloads", "Someday"])
        #expect((sections[1]["tasks"] as? [[String: String]])?.map { $0["gid"] } == [b])
        _ = try h.result("aria2.remove", #"["\#(a)"]"#)
        #expect(try h.result("dledger.restore", #"[["\#(a)"]]"#) as? String == "OK")
        let undone = try #require(try h.result("dledger.undo") as? [String: Any])
        #expect(undone["kind"] as? String == "tasksRestored")
        #expect(
            (try h.result("aria2.tellStatus", #"["\#(a)",["status"]]"#) as? [String: String])?["status"]
                == "removed")
        let audit = try #require(try h.result("dledger.audit", #"["\#(a)"]"#) as? [[String: Any]])
        #expect(
            audit.map { $0["kind"] as? String } == [
                "tasksAdded", "tasksDeleted", "tasksRestored", "tasksTrashed",
            ])
        let log = try #require(try h.result("dledger.log", #"[0,3]"#) as? [[String: Any]])
        #expect(log.map { $0["seq"] as? String } == ["1", "2", "3"])
        // The list as it was after the second add: both tasks in one section.
        let then = try #require(try h.result("dledger.replay", "[3]") as? [[String: Any]])
        #expect(then.count == 1 && (then[0]["tasks"] as? [Any])?.count == 2)
        let verify = try #require(try h.result("dledger.verify") as? [String: Any])
        #expect(verify["valid"] as? Bool == true)
        let before = try h.eventCount()
        #expect(h.errorCode("dledger.removeSection", "[5]") == 1)
        #expect(h.errorCode("dledger.move", #"[["ffffffffffffffff"],0]"#) == 1)
        #expect(h.errorCode("dledger.move", "[[],0]") == -32602)
        #expect(h.errorCode("dledger.replay", "[999]") == 1)
        #expect(try h.eventCount() == before)
    }
}
