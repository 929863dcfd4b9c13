import Foundation
import LedgerCore
import LedgerStore
import PostgresSupport
import Testing

@testable import DownloadLedger

/// A tail of 1,000 events or more after a snapshot is copied out and decoded on another thread while the snapshot
/// is decoded (`TailDecoding`): every read must fold it as a fold from the store would, stop at an event that does
/// not decode at its seq, and read from the store whatever the read-ahead left.
@Suite struct TailDecodingTests {
    /// 300 tasks snapshotted at their add, then `count` small events not snapshotted (moves, pauses and resumes,
    /// renames, transfer facts). Returns the snapshot's seq.
    func ledgerWithALongTail(_ box: Sandbox, count: Int = 1500) throws -> Int64 {
        try fillWithALongTail(try box.ledger(), count: count)
    }

    /// ``ledgerWithALongTail(_:count:)`` on any ledger.
    func fillWithALongTail(_ ledger: Ledger, count: Int = 1500) throws -> Int64 {
        let snapshot = try ledger.addSnapshottedListThenLater()
        // Moves of any task; pauses and resumes of tasks 1–100, renames of 101–200, transfer facts of 201–300.
        for n in 0..<count {
            let round = n / 5
            switch n % 5 {
            case 0:
                let id = TaskID(1 + (n * 37) % 300)
                try ledger.execute(.move([id], to: Location(section: n % 2, index: n % 2 == 0 ? n % 7 : 0)))
            case 1: try ledger.execute(.pause(.tasks([TaskID(1 + round % 100)])))
            case 2: try ledger.execute(.resume(.tasks([TaskID(1 + round % 100)])))
            case 3: try ledger.execute(.rename(TaskID(101 + round % 100), name: "renamed-\(n).iso"))
            default:
                let id = TaskID(201 + round % 100)
                _ = try ledger.record([
                    .transferStarted(id: id, attempt: 1, offset: 0), .transferPaused(id: id, bytes: Int64(n)),
                ])
            }
        }
        #expect(try ledger.latestSnapshotSeq() == snapshot)
        return snapshot
    }

    /// The list replayed from the first event, by a copy without snapshots.
    func replayed(_ box: Sandbox) throws -> DownloadList {
        let copy = box.root + "/copy.sqlite"
        try sqlite3(box.ledgerPath, "VACUUM INTO '\(copy)'")
        try sqlite3(copy, "DELETE FROM snapshots")
        return try Ledger(path: copy, readOnly: true).list
    }

    @Test func aLongTailReadAheadReadsAsTheReplay() throws {
        let box = try Sandbox()
        let snapshot = try ledgerWithALongTail(box)
        let replay = try replayed(box)
        #expect(replay.head - snapshot >= TailDecoding.minimumEvents)
        let read = try Ledger(path: box.ledgerPath, readOnly: true, keepingUndo: false)
        #expect(read.snapshotSeq == snapshot)
        #expect(read.list.tasks == replay.tasks && read.list.sections == replay.sections)
        #expect(read.list.head == replay.head)
        let written = try Ledger(path: box.ledgerPath)
        #expect(written.list.tasks == replay.tasks && written.list.sections == replay.sections)
        #expect(try Ledger.stats(path: box.ledgerPath).summary == ListSummary(replay))
        let log = try LedgerLog(path: box.ledgerPath)
        for id: TaskID in [1, 38, 150, 250, 301] {
            #expect(try log.audit(id).task == replay.tasks[id])
        }
        let before = try log.list(through: replay.head - 1, keepingWhole: [250])
        #expect(before.tasks[250] == (try replayed(box, through: replay.head - 1)).tasks[250])
    }

    /// The list at `seq`, replayed from the first event.
    func replayed(_ box: Sandbox, through seq: Int64) throws -> DownloadList {
        let copy = box.root + "/copy-\(seq).sqlite"
        try sqlite3(box.ledgerPath, "VACUUM INTO '\(copy)'")
        try sqlite3(copy, "DELETE FROM snapshots")
        return try LedgerLog(path: copy).list(through: seq)
    }

    /// An event of the tail whose payload no longer decodes: the open says which, as a fold from the store did.
    @Test func anEventOfTheTailThatDoesNotDecodeIsNamed() throws {
        let box = try Sandbox()
        let snapshot = try ledgerWithALongTail(box)
        let bad = snapshot + 700
        try sqlite3(
            box.ledgerPath,
            "DROP TRIGGER events_refuse_update; UPDATE events SET payload = X'7B7B7B' WHERE seq = \(bad)")
        #expect(throws: LedgerOpenError.unreadableEvent(seq: bad, detail: "")) {
            do {
                _ = try Ledger(path: box.ledgerPath, readOnly: true)
            } catch LedgerOpenError.unreadableEvent(let seq, _) {
                throw LedgerOpenError.unreadableEvent(seq: seq, detail: "")
            }
        }
    }

    /// A read-ahead that stopped before the head (its limits, or a `through`): the fold takes the rest from the
    /// store, after the last event read ahead.
    @Test func whatTheReadAheadLeftIsFoldedFromTheStore() throws {
        let box = try Sandbox()
        let snapshot = try ledgerWithALongTail(box)
        let replay = try replayed(box)
        let store = try StoreFactory.openExisting(readingOnly: box.ledgerPath)
        let tail = try #require(try TailDecoding.start(store, after: snapshot, through: snapshot + 1200))
        var list = try LedgerLog.startingPoint(store, atOrBefore: snapshot, reader: nil)
        #expect(list.head == snapshot)
        try LedgerLog.fold(store, into: &list, through: nil, tail: tail)
        #expect(list.head == replay.head)
        #expect(list.tasks == replay.tasks && list.sections == replay.sections)
        // A fold that stops before the end of what was read ahead stops there.
        var partial = try LedgerLog.startingPoint(store, atOrBefore: snapshot, reader: nil)
        let whole = try #require(try TailDecoding.start(store, after: snapshot, through: nil))
        try LedgerLog.fold(store, into: &partial, through: snapshot + 1100, tail: whole)
        #expect(partial.head == snapshot + 1100)
        let then = try replayed(box, through: snapshot + 1100)
        #expect(partial.tasks == then.tasks && partial.sections == then.sections)
        // Shorter than the minimum: nothing is read ahead.
        #expect(try TailDecoding.start(store, after: replay.head - 10, through: nil) == nil)
    }

    /// The same on PostgreSQL: the rows are read ahead on the store's one connection, after the snapshot's own query.
    @Test func aLongTailReadAheadOnPostgreSQLReadsAsTheWritersList() throws {
        let uri = try PostgresTestCluster.freshLedger("tail")
        let folder = NSTemporaryDirectory() + "dl-tail-\(getpid())-\(UInt32.random(in: 0...UInt32.max))"
        let writer = try Ledger(path: uri, creatingWithDirectory: folder)
        let snapshot = try fillWithALongTail(writer)
        #expect(writer.list.head - snapshot >= TailDecoding.minimumEvents)
        let read = try Ledger(path: uri, readOnly: true, keepingUndo: false)
        #expect(read.snapshotSeq == snapshot)
        #expect(read.list.tasks == writer.list.tasks && read.list.sections == writer.list.sections)
        #expect(read.list.head == writer.list.head)
        #expect(try Ledger.stats(path: uri).summary == ListSummary(writer.list))
        #expect(try LedgerLog(path: uri).audit(250).task == writer.list.tasks[250])
    }
}
