import Foundation
import LedgerStore
import Testing

@testable import DownloadLedger

/// A snapshot holds the undo history's logged actions by reference (their seq), not as a copy of their payload:
/// redo reads the action back from the log, and one that is gone or changed there is refused with a reason.
@Suite struct UndoByReferenceTests {
    static let urls = (1...1000).map { "https://mirror.example.org/ref/file-\($0).iso" }

    /// A ledger whose 1,000-URL add (#2) was undone (#3), snapshotted at each command; returns the add's payload.
    func undoneAdd(_ box: Sandbox) throws -> (list: DownloadList, payload: [UInt8]) {
        let ledger = try box.ledger()
        ledger.snapshotWork = 1
        try ledger.add(Self.urls)
        let added = ledger.list
        try ledger.execute(.pause(.tasks([1])))
        // Reopened from the snapshot at #3: the add's undo step comes from it.
        let reopened = try Ledger(path: box.ledgerPath)
        reopened.snapshotWork = 1
        #expect(reopened.snapshotSeq == 3)
        try reopened.execute(.undo)
        try reopened.execute(.undo)
        #expect(reopened.list.tasks.count == 0)
        #expect(try reopened.latestSnapshotSeq() == 5)
        let payload = try #require(try reopened.log(after: 1, limit: 1).first).entry.encodedPayload()
        return (added, payload)
    }

    @Test func aBigAddIsUndoneAndRedoneAfterReopeningFromASnapshot() throws {
        let box = try Sandbox()
        let (added, payload) = try undoneAdd(box)
        let store = try SQLiteEventStore(path: box.ledgerPath, readOnly: true)
        let snapshot = try #require(
            try store.latestSnapshot(reducerVersion: DownloadList.reducerVersion, atOrBefore: nil))
        // The add's 1,000 tasks are not in the snapshot a second time, as the redo step's payload.
        #expect(snapshot.bytes.count < payload.count / 4, "\(snapshot.bytes.count) vs \(payload.count)")
        let ledger = try Ledger(path: box.ledgerPath)
        #expect(ledger.snapshotSeq == 5)
        #expect(ledger.list.redoStack.map(\.kind) == ["tasksPaused", "tasksAdded"])
        let redo = try ledger.execute(.redo)
        #expect(redo.entry.redoes == 2)
        #expect(ledger.list.tasks.count == 1000)
        #expect(ledger.list.orderedTasks.map(\.url) == Self.urls)
        #expect(ledger.list.orderedTasks.map(\.id) == added.orderedTasks.map(\.id))
        #expect(try ledger.execute(.redo).entry.redoes == 3)
        #expect(ledger.list.tasks[1]?.state == .paused)
        // And undone again, from a list that read its step back from the log.
        try ledger.execute(.undo)
        try ledger.execute(.undo)
        #expect(ledger.list.tasks.count == 0)
        #expect(try ledger.verify(checkFiles: false).isValid)
    }

    /// A list the ledger handed out reads a step's logged action back through the ledger's store, from another
    /// thread, while commands are written through the same ledger (nothing of it is read under the ledger's lock).
    @Test func aListHandedOutReadsAStepsLoggedActionWhileTheLedgerWrites() async throws {
        let box = try Sandbox()
        _ = try undoneAdd(box)
        let ledger = try Ledger(path: box.ledgerPath)
        let list = ledger.list
        let writer = Task.detached {
            for n in 0..<20 { try ledger.execute(.setMaxDownloads(n % 5 + 1)) }
        }
        let step = try #require(list.redoStack.last)
        let action = await Task.detached { step.action }.value
        #expect(step.isReadable)
        #expect(action.kind == "tasksAdded")
        #expect(action.taskIDs == (1...1000).map { TaskID($0) })
        try await writer.value
        #expect(ledger.list.redoStack.isEmpty)
    }

    @Test(arguments: ["changed", "missing"])
    func aRedoWhoseLoggedActionIsChangedOrGoneIsRefusedWithAReason(damage: String) throws {
        let box = try Sandbox()
        _ = try undoneAdd(box)
        let edit =
            damage == "changed"
            ? "UPDATE events SET payload = replace(payload, 'file-7.iso', 'file-X.iso') WHERE seq = 2"
            : "DELETE FROM events WHERE seq = 2"
        try sqlite3(
            box.ledgerPath,
            "DROP TRIGGER events_refuse_update; DROP TRIGGER events_refuse_delete; \(edit)")
        let ledger = try Ledger(path: box.ledgerPath)
        #expect(ledger.snapshotSeq == 5)
        let head = ledger.list.head
        #expect(throws: LedgerError.self) { try ledger.execute(.redo) }
        do {
            try ledger.execute(.redo)
        } catch {
            #expect("\(error)".contains("event #2 cannot be read back from the log"), "\(error)")
        }
        #expect(ledger.list.head == head)
        #expect(ledger.list.tasks.count == 0)
    }
}
