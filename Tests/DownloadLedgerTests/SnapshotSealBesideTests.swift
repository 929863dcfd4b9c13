import Foundation
import LedgerCore
import LedgerStore
import Testing

@testable import DownloadLedger

/// A snapshot of a megabyte or more has its seal's digest taken on another thread while it is decoded: what a read
/// shows must still be what a replay shows, and a snapshot whose bytes were changed must still be refused, whether
/// its records still read or not.
@Suite struct SnapshotSealBesideTests {
    /// 6,000 tasks with long URLs (a snapshot over 1 MiB), snapshotted at the add; then a tail not snapshotted.
    func bigLedger(_ box: Sandbox) throws -> Int64 {
        let ledger = try box.ledger()
        ledger.snapshotWork = 1
        // Paths that share nothing (the snapshot stores a URL after what it shares with the one before).
        var seed: UInt64 = 0x9E37_79B9_7F4A_7C15
        let urls = (1...6000).map { n -> String in
            let path = (0..<12).map { _ -> String in
                seed = seed &* 6_364_136_223_846_793_005 &+ 1_442_695_040_888_963_407
                return String(seed >> 4, radix: 16)
            }.joined()
            return "https://h\(n).example.org/\(path)/file-\(n).iso"
        }
        try ledger.add(urls)
        let snapshot = try #require(try ledger.latestSnapshotSeq())
        ledger.snapshotWork = Int.max
        try ledger.execute(.move([5000, 7], to: Location(section: 0, index: 0)))
        try ledger.execute(.rename(9, name: "nine.iso"))
        try ledger.execute(.pause(.tasks([10, 11])))
        #expect(try ledger.latestSnapshotSeq() == snapshot)
        let stored = try SQLiteEventStore(path: box.ledgerPath, readOnly: true).latestSnapshot(
            reducerVersion: DownloadList.reducerVersion, atOrBefore: nil)
        #expect(stored?.seq == snapshot)
        #expect((stored?.bytes.count ?? 0) >= 1 << 20)
        return snapshot
    }

    /// The list replayed from the first event, by a copy without snapshots.
    func replayed(_ box: Sandbox) throws -> Ledger {
        let copy = box.root + "/copy.sqlite"
        try sqlite3(box.ledgerPath, "VACUUM INTO '\(copy)'")
        try sqlite3(copy, "DELETE FROM snapshots")
        return try Ledger(path: copy, readOnly: true)
    }

    @Test func aBigSnapshotIsUsedAndReadsAsTheReplay() throws {
        let box = try Sandbox()
        let snapshot = try bigLedger(box)
        let read = try Ledger(path: box.ledgerPath, readOnly: true, keepingUndo: false)
        #expect(read.snapshotSeq == snapshot)
        let replay = try replayed(box).list
        #expect(read.list.tasks == replay.tasks && read.list.sections == replay.sections)
        #expect(try Ledger.stats(path: box.ledgerPath).summary == ListSummary(replay))
        #expect(try Ledger.stats(path: box.ledgerPath).snapshotSeq == snapshot)
    }

    /// One byte of a URL changed (every record still reads), or the bytes cut short (they no longer decode): the
    /// open, `stats` and the audit read the log instead, and `stats` names no snapshot it would not use.
    @Test(arguments: ["edited", "cut"]) func aBigSnapshotWhoseBytesChangedIsRefused(_ how: String) throws {
        let box = try Sandbox()
        let snapshot = try bigLedger(box)
        let edit =
            how == "edited"
            ? "substr(bytes, 1, 700000) || X'71' || substr(bytes, 700002)"
            : "substr(bytes, 1, 700000)"
        try sqlite3(box.ledgerPath, "UPDATE snapshots SET bytes = \(edit) WHERE seq = \(snapshot)")
        let replay = try replayed(box).list
        let read = try Ledger(path: box.ledgerPath, readOnly: true, keepingUndo: false)
        #expect(read.snapshotSeq == nil)
        #expect(read.list.tasks == replay.tasks && read.list.sections == replay.sections)
        let stats = try Ledger.stats(path: box.ledgerPath)
        #expect(stats.summary == ListSummary(replay))
        #expect(stats.snapshotSeq == nil)
        let audit = try LedgerLog(path: box.ledgerPath).audit(9, outliningAdds: true)
        #expect(audit.task?.displayName == "nine.iso")
        #expect(audit.task == replay.tasks[9])
    }
}
