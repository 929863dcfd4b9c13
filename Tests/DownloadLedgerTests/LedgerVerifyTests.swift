import DownloadLedger
import Foundation
import Testing

/// `Ledger.verify(path:)`, as `dledger verify` runs it: the replay and the live projection each held alone and
/// compared by their encoding, with a list comparison when the bytes differ.
@Suite struct LedgerVerifyTests {
    /// A ledger snapshotted after a big add, with undo, redo and plain events in the tail after it.
    static func ledger(in box: Sandbox) throws -> Ledger {
        let ledger = try box.ledger()
        ledger.snapshotWork = 4096
        try ledger.add((1...2000).map { "https://example.com/big/\($0).iso" })
        try ledger.execute(.undo)
        try ledger.execute(.redo)
        try ledger.execute(.pause(.all))
        // A tail after the last snapshot: small events, among them an add and its undo.
        try ledger.execute(.insertSection(title: "Later", at: nil))
        try ledger.execute(.move([3, 2], to: Location(section: 1, index: 0)))
        for i in 0..<3 { try ledger.add(["https://example.com/\(i)"]) }
        try ledger.execute(.undo)
        return ledger
    }

    @Test func aLedgerWithSnapshotsAndATailVerifies() throws {
        let box = try Sandbox()
        let ledger = try Self.ledger(in: box)
        let report = try Ledger.verify(path: box.ledgerPath, checkFiles: false)
        #expect(report.isValid, "\(report.problems)")
        #expect(report.snapshotSeq != nil && report.snapshotSeq! < report.head)
        #expect(report.head == ledger.list.head && report.events == report.head)
        let inProcess = try ledger.verify(checkFiles: false)
        #expect(inProcess.isValid && inProcess.snapshotSeq == report.snapshotSeq)
    }

    @Test func aSnapshotResealedOverAnotherListIsNamed() throws {
        let box = try Sandbox()
        _ = try Self.ledger(in: box)
        let store = try SQLiteEventStore(path: box.ledgerPath)
        let version = DownloadList.reducerVersion
        let seq = try #require(try store.latestSnapshotSeq(reducerVersion: version, atOrBefore: nil))
        let cached = try #require(
            try store.withLatestSnapshot(reducerVersion: version, atOrBefore: seq) { _, bytes in
                try DownloadList(snapshot: bytes)
            })
        // Another list, sealed as the store seals any snapshot: its seal holds, its content is not the log's.
        var other = cached
        other.apply(
            LoggedEntry(
                seq: seq, time: other.headTime, entry: Entry(.sectionRenamed(index: 0, title: "Forged"))))
        try store.saveSnapshot(seq: seq, reducerVersion: version, bytes: other.snapshotBytes())
        #expect(try Ledger(path: box.ledgerPath, readOnly: true).list.sections[0].title == "Forged")
        let report = try Ledger.verify(path: box.ledgerPath, checkFiles: false)
        #expect(!report.isValid)
        #expect(report.problems.contains("snapshot at #\(seq) differs from the replay of the log"))
        #expect(report.problems.contains("replay from zero differs from the live projection"))
    }

    @Test func aMissingFileIsNoLedger() throws {
        let box = try Sandbox()
        #expect(throws: LedgerOpenError.self) { try Ledger.verify(path: box.root + "/none.sqlite") }
        #expect(!FileManager.default.fileExists(atPath: box.root + "/none.sqlite"))
    }
}
