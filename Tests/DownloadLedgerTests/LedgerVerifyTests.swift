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

    /// The index a command saved for a big add verifies; one sealed over another add (its seal holds, its content is
    /// not the add's: `audit` would say another section) is named, and one whose bytes changed under its seal too.
    @Test func anAddIndexResealedOverAnotherAddIsNamed() throws {
        let box = try Sandbox()
        let ledger = try box.ledger()
        try ledger.add((1...2000).map { "https://example.com/big/\($0).iso" })
        let store = try SQLiteEventStore(path: box.ledgerPath)
        #expect(try store.addIndexSeqs() == [2])
        #expect(try Ledger.verify(path: box.ledgerPath, checkFiles: false).isValid)
        let stored = try #require(try store.events(after: 1, through: 2, limit: 1).first)
        var entry = try Entry.decode(kind: stored.kind, payload: stored.payload)
        switch entry.event {
        case .tasksAdded(let tasks, _, let index, let title):
            entry.event = .tasksAdded(tasks: tasks, section: 3, index: index, newSectionTitle: title)
        case .groupsAdded(var groups):
            groups[0].section = 3
            entry.event = .groupsAdded(groups)
        default:
            Issue.record("not an add: \(stored.kind)")
        }
        let forged = try #require(
            entry.encodedPayload().withUnsafeBytes { AddIndex(entry: entry, payload: $0) })
        try store.saveAddIndex(seq: 2, bytes: forged.encoded())
        let report = try Ledger.verify(path: box.ledgerPath, checkFiles: false)
        #expect(report.problems == ["add index at #2 differs from the add it was saved for"])
        try sqlite3(box.ledgerPath, "UPDATE add_index SET bytes = substr(bytes, 1, 100) WHERE seq = 2")
        let changed = try Ledger.verify(path: box.ledgerPath, checkFiles: false)
        #expect(changed.problems.count == 1, "\(changed.problems)")
        #expect(changed.problems.first?.hasPrefix("add index at #2: not loaded") == true)
    }

    /// The newest snapshot as a list, read from the store at `path`, with its seq.
    static func latestSnapshot(_ store: SQLiteEventStore) throws -> (seq: Int64, list: DownloadList) {
        let version = DownloadList.reducerVersion
        let seq = try #require(try store.latestSnapshotSeq(reducerVersion: version, atOrBefore: nil))
        let list = try #require(
            try store.withLatestSnapshot(reducerVersion: version, atOrBefore: seq) { _, bytes in
                try DownloadList(snapshot: bytes)
            })
        return (seq, list)
    }

    /// A snapshot at the head: the replay is hashed once for the snapshot's seal and the live projection both.
    /// It verifies; resealed over another list, both comparisons name it.
    @Test func aSnapshotAtTheHeadIsComparedWithBothInOnePass() throws {
        let box = try Sandbox()
        let ledger = try Self.ledger(in: box)
        let store = try SQLiteEventStore(path: box.ledgerPath)
        let version = DownloadList.reducerVersion
        try store.saveSnapshot(
            seq: ledger.list.head, reducerVersion: version, bytes: ledger.list.snapshotBytes())
        let report = try Ledger.verify(path: box.ledgerPath, checkFiles: false)
        #expect(report.isValid, "\(report.problems)")
        #expect(report.snapshotSeq == report.head)
        var other = ledger.list
        other.apply(
            LoggedEntry(
                seq: other.head, time: other.headTime,
                entry: Entry(.sectionRenamed(index: 1, title: "Forged"))))
        try store.saveSnapshot(seq: other.head, reducerVersion: version, bytes: other.snapshotBytes())
        let forged = try Ledger.verify(path: box.ledgerPath, checkFiles: false)
        #expect(forged.snapshotSeq == forged.head)
        #expect(forged.problems.contains("snapshot at #\(other.head) differs from the replay of the log"))
        #expect(forged.problems.contains("replay from zero differs from the live projection"))
    }

    /// The replay keeps its undo history by reference to the log, as a snapshot does: an undo history forged in
    /// a snapshot (the same tasks and sections, one step more) is still named.
    @Test func anUndoHistoryForgedInASnapshotIsNamed() throws {
        let box = try Sandbox()
        _ = try Self.ledger(in: box)
        let store = try SQLiteEventStore(path: box.ledgerPath)
        let (seq, cached) = try Self.latestSnapshot(store)
        var other = cached
        // A rename to the title it has: nothing in the list changes but the undo history.
        other.apply(
            LoggedEntry(
                seq: seq, time: other.headTime,
                entry: Entry(.sectionRenamed(index: 0, title: cached.sections[0].title))))
        #expect(other.tasks == cached.tasks && other.sections == cached.sections)
        #expect(other.undoStack.count == cached.undoStack.count + 1)
        try store.saveSnapshot(
            seq: seq, reducerVersion: DownloadList.reducerVersion, bytes: other.snapshotBytes())
        let report = try Ledger.verify(path: box.ledgerPath, checkFiles: false)
        #expect(report.problems.contains("snapshot at #\(seq) differs from the replay of the log"))
        #expect(report.problems.contains("replay from zero differs from the live projection"))
    }

    /// A summary sealed as the store seals one, over counts the log does not give or over bytes that are no
    /// summary, is named (the summary is read before the replay, and compared with it after).
    @Test func aSummaryResealedOverOtherCountsIsNamed() throws {
        let box = try Sandbox()
        _ = try Self.ledger(in: box)
        let store = try SQLiteEventStore(path: box.ledgerPath)
        let (seq, cached) = try Self.latestSnapshot(store)
        var lie = ListSummary(cached)
        lie.bytes += 1_234
        try store.saveSnapshot(
            seq: seq, reducerVersion: DownloadList.reducerVersion, bytes: cached.snapshotBytes(),
            summary: lie.encoded())
        let report = try Ledger.verify(path: box.ledgerPath, checkFiles: false)
        #expect(report.problems == ["the summary of snapshot #\(seq) differs from the replay of the log"])
        // Sealed, but no summary at all.
        try store.saveSnapshot(
            seq: seq, reducerVersion: DownloadList.reducerVersion, bytes: cached.snapshotBytes(),
            summary: Array(lie.encoded().dropLast()))
        let unreadable = try Ledger.verify(path: box.ledgerPath, checkFiles: false)
        #expect(unreadable.problems == ["the summary of snapshot #\(seq) cannot be read"])
    }

    @Test func aMissingFileIsNoLedger() throws {
        let box = try Sandbox()
        #expect(throws: LedgerOpenError.self) { try Ledger.verify(path: box.root + "/none.sqlite") }
        #expect(!FileManager.default.fileExists(atPath: box.root + "/none.sqlite"))
    }
}
