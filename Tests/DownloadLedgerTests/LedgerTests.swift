import DownloadLedger
import Foundation
import Testing

@Suite struct LedgerTests {
    @Test func createsALedgerRemembersItsDirectoryAndReopensEqual() throws {
        let box = try Sandbox()
        let ledger = try box.ledger()
        #expect(ledger.list.directory == box.downloads)
        let ids = try ledger.add(["https://example.com/a.iso", "https://example.com/b.iso"])
        #expect(ids == [1, 2])
        let reopened = try Ledger(path: box.ledgerPath)
        #expect(reopened.list == ledger.list)
        #expect(reopened.list.sections.map(\.title) == ["Downloads"])
    }

    @Test func missingLedgerIsAnErrorWhenNotCreating() throws {
        let box = try Sandbox()
        #expect(throws: LedgerOpenError.noLedger(box.ledgerPath)) { try Ledger(path: box.ledgerPath) }
        #expect(!FileManager.default.fileExists(atPath: box.ledgerPath))
    }

    @Test func foreignFileIsRefusedWithoutCrashOrChange() throws {
        let box = try Sandbox()
        let text = Array("hello, not a ledger\n".utf8)
        _ = FileManager.default.createFile(atPath: box.ledgerPath, contents: Data(text))
        #expect(throws: StoreError.self) {
            try Ledger(path: box.ledgerPath, creatingWithDirectory: box.downloads)
        }
        #expect(box.contentsOfLedger() == text)
    }

    @Test func invalidCommandsAppendNothing() throws {
        let box = try Sandbox()
        let ledger = try box.ledger()
        try ledger.add(["https://example.com/a.iso"])
        let head = ledger.list.head
        #expect(throws: LedgerError.noSuchTask(9)) { try ledger.execute(.pause(.tasks([9]))) }
        #expect(throws: LedgerError.noSuchSection(5, count: 1)) {
            try ledger.execute(.move([1], to: Location(section: 5, index: 0)))
        }
        #expect(throws: NothingAdded.self) { try ledger.add(["foo"]) }
        #expect(throws: NothingAdded.self) { try ledger.add(["https://example.com/a.iso"]) }
        #expect(throws: LedgerError.self) { try ledger.execute(.rename(1, name: "../x")) }
        #expect(ledger.list.head == head)
        #expect(try ledger.log().count == Int(head))
    }

    @Test func duplicatesAreSkippedAndTheRestAdded() throws {
        let box = try Sandbox()
        let ledger = try box.ledger()
        try ledger.add(["https://example.com/a"])
        let outcome = try ledger.execute(
            .add(
                urls: ["https://example.com/a", "ftp://x/y", "https://example.com/b"], placement: .end,
                name: nil,
                sha256: nil, directory: nil))
        #expect(outcome.decision.added == [2])
        #expect(outcome.decision.skipped.map(\.url) == ["https://example.com/a", "ftp://x/y"])
    }

    @Test func replayAuditUndoRedoThroughTheFacade() throws {
        let box = try Sandbox()
        let clock = ManualClock()
        let ledger = try box.ledger(clock: clock.function)
        try ledger.add(["https://example.com/a", "https://example.com/b"])
        clock.advance(1000)
        let afterAdd = ledger.list
        let timeAfterAdd = clock.now
        clock.advance(1000)
        try ledger.execute(.insertSection(title: "Later", at: nil))
        try ledger.execute(.move([1], to: Location(section: 1, index: 0)))
        #expect(ledger.list.sections[1].tasks == [1])
        #expect(try ledger.replay(through: afterAdd.head) == afterAdd)
        #expect(try ledger.replay(at: timeAfterAdd) == afterAdd)
        let undone = try ledger.execute(.undo)
        #expect(undone.entry.undoes == ledger.list.head - 1)
        #expect(ledger.list.sections[0].tasks == [1, 2])
        try ledger.execute(.redo)
        #expect(ledger.list.sections[1].tasks == [1])
        #expect(
            try ledger.audit(1).map(\.entry.event.kind) == [
                "tasksAdded", "tasksMoved", "tasksPlaced", "tasksMoved",
            ])
        let report = try ledger.verify()
        #expect(report.isValid, "\(report.problems)")
    }

    @Test func snapshotsAreOnlyACache() throws {
        let box = try Sandbox()
        let ledger = try box.ledger()
        ledger.snapshotWork = 5 * (Ledger.eventWork + 100)
        for i in 0..<23 { try ledger.add(["https://example.com/\(i)"]) }
        let withSnapshots = try Ledger(path: box.ledgerPath).list
        #expect(withSnapshots == ledger.list)
        let store = try SQLiteEventStore(path: box.ledgerPath)
        #expect(try store.latestSnapshot(reducerVersion: DownloadList.reducerVersion, atOrBefore: nil) != nil)
        try sqlite3(box.ledgerPath, "DELETE FROM snapshots;")
        #expect(try store.latestSnapshot(reducerVersion: DownloadList.reducerVersion, atOrBefore: nil) == nil)
        #expect(try Ledger(path: box.ledgerPath).list == withSnapshots)
    }

    @Test func readOnlyLedgerRefusesCommands() throws {
        let box = try Sandbox()
        try box.ledger().add(["https://example.com/a"])
        let ro = try Ledger(path: box.ledgerPath, readOnly: true)
        #expect(ro.list.tasks.count == 1)
        #expect(throws: StoreError.readOnly) { try ro.execute(.pause(.all)) }
    }

    @Test func anotherWriterIsSeenOnRefresh() throws {
        let box = try Sandbox()
        let a = try box.ledger()
        let b = try Ledger(path: box.ledgerPath)
        try a.add(["https://example.com/a"])
        #expect(b.list.tasks.isEmpty)
        #expect(try b.refresh())
        #expect(b.list == a.list)
        // b validates against the new head: a second add of the same URL from b is a duplicate.
        #expect(throws: NothingAdded.self) { try b.add(["https://example.com/a"]) }
    }

    @Test func concurrentWritersLoseNothing() async throws {
        let box = try Sandbox()
        _ = try box.ledger()
        let path = box.ledgerPath
        try await withThrowingTaskGroup(of: Void.self) { group in
            for writer in 0..<2 {
                group.addTask {
                    let ledger = try Ledger(path: path)
                    for i in 0..<100 { try ledger.add(["https://example.com/\(writer)/\(i)"]) }
                }
            }
            try await group.waitForAll()
        }
        let ledger = try Ledger(path: path)
        #expect(ledger.list.tasks.count == 200)
        #expect(Set(ledger.list.tasks.keys) == Set(1...200))
        let report = try ledger.verify()
        #expect(report.isValid, "\(report.problems)")
        #expect(report.events == 201)
    }

    @Test func renamingAFinishedTaskRenamesTheFileAndUndoRenamesItBack() throws {
        let box = try Sandbox()
        let ledger = try box.ledger()
        let id = try ledger.add(["https://example.com/a.txt"])[0]
        _ = FileManager.default.createFile(atPath: box.downloads + "/a.txt", contents: Data("abc".utf8))
        try ledger.record(
            .transferCompleted(id: id, bytes: 3, sha256: String(repeating: "0", count: 64), fileName: "a.txt")
        )
        try ledger.execute(.rename(id, name: "b.txt"))
        #expect(box.contents("b.txt") == Array("abc".utf8))
        #expect(box.contents("a.txt") == nil)
        #expect(ledger.list.tasks[id]?.fileName == "b.txt")
        // Never overwrite: a name taken by another file is refused and nothing is appended.
        _ = FileManager.default.createFile(atPath: box.downloads + "/c.txt", contents: Data("other".utf8))
        let head = ledger.list.head
        #expect(throws: LedgerError.fileExists(box.downloads + "/c.txt")) {
            try ledger.execute(.rename(id, name: "c.txt"))
        }
        #expect(ledger.list.head == head)
        #expect(box.contents("c.txt") == Array("other".utf8))
        try ledger.execute(.undo)
        #expect(box.contents("a.txt") == Array("abc".utf8))
        #expect(ledger.list.tasks[id]?.fileName == "a.txt")
    }

    @Test func purgeRemovesFilesByModeAndFileDeleteKeepsTheTask() throws {
        let box = try Sandbox()
        let ledger = try box.ledger()
        let ids = try ledger.add([
            "https://example.com/1.bin", "https://example.com/2.bin", "https://example.com/3.bin",
        ])
        for id in ids {
            _ = FileManager.default.createFile(atPath: box.downloads + "/\(id).bin", contents: Data([1, 2]))
            try ledger.record(
                .transferCompleted(
                    id: id, bytes: 2, sha256: "", fileName: "\(id).bin",
                    placed: box.identity(of: "\(id).bin")))
        }
        try ledger.execute(.delete(.tasks([1]), mode: .all))
        try ledger.execute(.delete(.tasks([2]), mode: .record))
        #expect(box.contents("1.bin") != nil)
        try ledger.execute(.purge(nil))
        #expect(box.contents("1.bin") == nil)
        #expect(box.contents("2.bin") == [1, 2])
        try ledger.execute(.delete(.tasks([3]), mode: .file))
        #expect(box.contents("3.bin") == nil)
        #expect(ledger.list.tasks[3]?.state == .waiting)
        #expect(ledger.list.sections[0].tasks == [3])
    }

    @Test func changesStreamSeesOwnAndForeignAppends() async throws {
        let box = try Sandbox()
        let ledger = try box.ledger()
        let other = try Ledger(path: box.ledgerPath)
        var iterator = ledger.changes(pollInterval: .milliseconds(20)).makeAsyncIterator()
        _ = await iterator.next()
        try other.add(["https://example.com/x"])
        var seen = await iterator.next()
        while seen?.tasks.isEmpty == true { seen = await iterator.next() }
        #expect(seen?.tasks[1]?.url == "https://example.com/x")
    }
}

extension Sandbox {
    func contentsOfLedger() -> [UInt8]? { FileManager.default.contents(atPath: ledgerPath).map { Array($0) } }
}

@Test func aDirectoryIsNotALedger() throws {
    let box = try Sandbox()
    #expect(throws: StoreError.cannotOpen(box.downloads, "it is a directory")) {
        try Ledger(path: box.downloads, creatingWithDirectory: box.downloads)
    }
}
