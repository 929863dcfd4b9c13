import DownloadLedger
import Foundation
import LedgerStore
import Testing

/// Opening a ledger folds its tail as logged (issue 10 §5): what it refuses and what it holds do not depend on
/// where the last snapshot fell.
@Suite struct LedgerFoldTests {
    static func batch(_ b: Int) -> [String] {
        (0..<1000).map { "https://mirror.example.org/pub/b\(b)/file-\($0).iso" }
    }

    @Test func duplicatesAreStillRefusedAfterReopeningWhateverTheTail() throws {
        let box = try Sandbox()
        let ledger = try box.ledger()
        // A snapshot every four adds' work: the adds after the last one are folded on every open.
        ledger.snapshotWork = 256 * 1024
        for b in 0..<9 { try ledger.add(Self.batch(b)) }
        let store = try SQLiteEventStore(path: box.ledgerPath, readOnly: true)
        let snapshot = try store.latestSnapshotSeq(
            reducerVersion: DownloadList.reducerVersion, atOrBefore: nil)
        #expect(snapshot != nil)
        #expect((snapshot ?? 0) < ledger.list.head, "the reopened ledger has no tail of adds to fold")
        let reopened = try Ledger(path: box.ledgerPath, readOnly: true)
        #expect(reopened.list == ledger.list)
        #expect(reopened.list.urlIndex == ledger.list.urlIndex)
        let writer = try Ledger(path: box.ledgerPath)
        // Typed differently (scheme and host case, the default port): the same URL, in the snapshot and in the tail.
        for (b, n, id) in [(0, 17, 18), (8, 999, 9000), (4, 0, 4001)] as [(Int, Int, TaskID)] {
            let url = "HTTPS://Mirror.Example.org:443/pub/b\(b)/file-\(n).iso"
            #expect(reopened.list.task(withURL: url) == id)
            let refused = #expect(throws: NothingAdded.self) { try writer.add([url]) }
            #expect(refused?.description.hasSuffix(": duplicate of task #\(id)") == true)
        }
        #expect(writer.list.head == ledger.list.head, "a refused add appended an event")
        // A new URL is taken, and is refused in turn by the next process.
        let fresh = "https://mirror.example.org/pub/new.iso"
        #expect(try writer.add([fresh]) == [9001])
        #expect(throws: NothingAdded.self) { try Ledger(path: box.ledgerPath).add([fresh]) }
        #expect(try writer.verify(checkFiles: false).isValid)
    }
}

extension LedgerFoldTests {
    /// `audit` reads one task whole from the snapshot and folds the tail: what it says of each task is what the
    /// whole list says, after a tail of moves, deletes, restores, renames, sorts and adds; a damaged audit index
    /// is still noticed.
    @Test func auditSaysWhatTheWholeListSaysOfEveryTask() throws {
        let box = try Sandbox()
        let ledger = try box.ledger()
        ledger.snapshotWork = 8 * 1024
        for b in 0..<6 {
            try ledger.add((0..<40).map { "https://example.org/b\(b)/f\($0).iso" })
        }
        try ledger.execute(.insertSection(title: "Later", at: nil))
        try ledger.execute(.move([5, 90, 200], to: Location(section: 1)))
        // The tail: everything from here is folded by every reader.
        ledger.snapshotWork = Int.max
        let snapshot = try #require(try ledger.latestSnapshotSeq())
        let moved = try ledger.execute(.move([7, 3], to: Location(section: 0, index: 0))).seq
        try ledger.execute(.delete(.tasks([1, 2, 100]), mode: .all))
        try ledger.execute(.restore([2], to: nil))
        try ledger.execute(.rename(4, name: "renamed.iso"))
        try ledger.execute(.sortSection(1, by: .name, descending: true))
        try ledger.execute(.pause(.tasks([6, 8])))
        try ledger.execute(.insertSection(title: "First", at: 0))
        try ledger.add(["https://example.org/new.iso"])
        try ledger.execute(.purge([100]))
        #expect(ledger.list.head > snapshot + 8)
        let full = try Ledger(path: box.ledgerPath, readOnly: true).list
        let log = try LedgerLog(path: box.ledgerPath)
        for id in 1...full.nextID {
            let audit = try log.audit(id)
            #expect(audit.task == full.tasks[id], "#\(id)")
            #expect(
                audit.location.map { [$0.section, $0.index] }
                    == full.location(of: id).map { [$0.section, $0.index] },
                "#\(id)")
            #expect(audit.isTrashed == full.isTrashed(id))
            #expect(audit.trail.fromIndex)
            #expect(try audit.trail.entries.map(\.seq) == ledger.audit(id).map(\.seq))
        }
        #expect(try log.audit(100).trail.entries.count == 3)
        // Rows taken out of the audit index, in the tail and before the snapshot: the count folded from the
        // snapshot and the tail says so, and the trail is read from the events themselves.
        try sqlite3(box.ledgerPath, "DELETE FROM event_tasks WHERE task = 3 AND seq = \(moved)")
        try sqlite3(box.ledgerPath, "DELETE FROM event_tasks WHERE task = 4 AND seq = 2")
        for id in [3, 4] as [TaskID] {
            let damaged = try LedgerLog(path: box.ledgerPath).audit(id)
            #expect(!damaged.trail.fromIndex)
            let seqs = damaged.trail.entries.map(\.seq)
            #expect(seqs.first == 2)
            #expect(seqs == (try ledger.audit(id)).map(\.seq))
        }
    }
}

extension LedgerFoldTests {
    /// `audit` of tasks of one big add (several groups, options on some), read for each task's sake: with the
    /// snapshot at the head (no other task kept) and with a tail folded on the tasks as id and state, the task, its
    /// place, its trail (each add holding only this task) and the add's outline are the whole list's and log's.
    @Test func anAuditOfTasksOfOneBigAddIsWhatTheWholeListAndLogSay() throws {
        let box = try Sandbox()
        let ledger = try box.ledger()
        ledger.snapshotWork = 64 * 1024
        var traced = TaskOptions()
        traced.userAgent = "curl/8"
        let urls = { (g: Int, n: Int) in (1...n).map { "https://example.org/g\(g)/f\($0).iso" } }
        try ledger.execute(.add(urls: urls(0, 10), placement: .end, name: nil, sha256: nil, directory: nil))
        let add = try ledger.execute(
            .addGroups(
                [
                    AddGroup(urls: urls(1, 1500), placement: .section(0, index: 3)),
                    AddGroup(urls: urls(2, 1500), placement: .newSection(title: "Later", at: 0)),
                ], directory: nil, options: traced)
        ).seq
        let log = try LedgerLog(path: box.ledgerPath)
        let store = try SQLiteEventStore(path: box.ledgerPath, readOnly: true)
        let snapshot = try store.latestSnapshotSeq(
            reducerVersion: DownloadList.reducerVersion, atOrBefore: nil)
        #expect(snapshot == add, "the big add is snapshotted: audit reads it at the head")
        let logged = try #require(try log.events(after: add - 1, limit: 1).first)
        let ids: [TaskID] = [1, 10, 11, 760, 1510, 1511, 2400, 3010, 3011]
        for tail in [false, true] {
            if tail { try ledger.execute(.pause(.tasks([2, 11, 1600, 3010]))) }
            let full = try Ledger(path: box.ledgerPath, readOnly: true).list
            for id in ids {
                for outlining in [false, true] {
                    let audit = try log.audit(id, outliningAdds: outlining)
                    #expect(audit.task == full.tasks[id], "#\(id)")
                    #expect(
                        audit.location.map { [$0.section, $0.index] }
                            == full.location(of: id).map { [$0.section, $0.index] }, "#\(id)")
                    #expect(audit.trail.fromIndex)
                    let whole = try ledger.audit(id)
                    #expect(audit.trail.entries.map(\.seq) == whole.map(\.seq), "#\(id)")
                    guard outlining else {
                        #expect(audit.trail.entries == whole && audit.trail.outlines.isEmpty)
                        continue
                    }
                    #expect(
                        audit.trail.outlines.count == whole.filter { AddOutline($0.entry.event) != nil }.count
                    )
                    // Tasks 1–10 came by the add before, 3011 never was: the big add is not in their trail.
                    guard id > 10, id <= 3010 else { continue }
                    let light = try #require(audit.trail.entries.first { $0.seq == add })
                    #expect(light.entry.event.taskIDs == [id], "#\(id)")
                    #expect(audit.trail.outlines[add] == AddOutline(logged.entry.event), "#\(id)")
                }
            }
        }
    }
}
