import Foundation
import LedgerStore
import TestSupport
import Testing

/// The caches beside the chain (snapshots, the audit index) are checked against it, not trusted.
struct SQLiteEventStoreTamperTests {
    let directory: TemporaryDirectory
    let path: String

    init() throws {
        directory = try TemporaryDirectory()
        path = directory.file("ledger.sqlite")
    }

    private func makeStore(tasks: Int64 = 10) throws -> SQLiteEventStore {
        let store = try SQLiteEventStore(path: path)
        _ = try store.append((1...tasks).map { sampleEvent($0) }, expectingHead: 0, time: 1000)
        return store
    }

    @Test func anEditedSnapshotIsSkippedForTheOlderOneAndNamed() throws {
        let store = try makeStore()
        try store.saveSnapshot(seq: 4, reducerVersion: 9, bytes: Array("state at four".utf8))
        try store.saveSnapshot(seq: 8, reducerVersion: 9, bytes: Array("state at eight".utf8))
        #expect(try store.snapshotProblems(reducerVersion: 9).isEmpty)
        let db = try Database(path: path)
        // Same length, still "decodable": only the seal can tell.
        try db.execute("UPDATE snapshots SET bytes = CAST('state at EIGHT' AS BLOB) WHERE seq = 8")
        let found = try store.latestSnapshot(reducerVersion: 9, atOrBefore: nil)
        #expect(found?.seq == 4)
        #expect(found?.bytes == Array("state at four".utf8))
        #expect(try store.latestSnapshotSeq(reducerVersion: 9, atOrBefore: nil) == 4)
        let problems = try store.snapshotProblems(reducerVersion: 9)
        #expect(problems.map(\.seq) == [8])
        #expect(problems.first?.description.contains("changed after it was saved") == true)
        // A read-only reader sees the same.
        let reader = try SQLiteEventStore(path: path, readOnly: true)
        #expect(try reader.latestSnapshot(reducerVersion: 9, atOrBefore: nil)?.seq == 4)
    }

    @Test func aSnapshotMovedToAnotherSeqOrLogIsNotLoaded() throws {
        let store = try makeStore()
        try store.saveSnapshot(seq: 5, reducerVersion: 9, bytes: [1, 2, 3])
        let db = try Database(path: path)
        try db.execute("UPDATE snapshots SET seq = 6 WHERE seq = 5")
        #expect(try store.latestSnapshot(reducerVersion: 9, atOrBefore: nil) == nil)
        #expect(
            try store.snapshotProblems(reducerVersion: 9).first?.description.contains("not taken on this log")
                == true)
        // Copied, seal and all, into another log with other events at that seq.
        try db.execute("UPDATE snapshots SET seq = 5 WHERE seq = 6")
        #expect(try store.latestSnapshot(reducerVersion: 9, atOrBefore: nil)?.seq == 5)
        let otherPath = directory.file("other.sqlite")
        let other = try SQLiteEventStore(path: otherPath)
        _ = try other.append((1...10).map { sampleEvent($0 + 100) }, expectingHead: 0, time: 1000)
        try db.execute("ATTACH '\(otherPath)' AS other")
        try db.execute("INSERT INTO other.snapshots SELECT * FROM main.snapshots")
        #expect(try other.latestSnapshot(reducerVersion: 9, atOrBefore: nil) == nil)
        #expect(try other.snapshotProblems(reducerVersion: 9).count == 1)
    }

    @Test func theIndexIsCheckedAgainstTheEvents() throws {
        let store = try makeStore()
        _ = try store.append(
            [sampleEvent(3, kind: "tasksMoved", tasks: [3, 7, 3])], expectingHead: 10, time: 2000)
        #expect(try store.verifyIndex() == nil)
        let db = try Database(path: path)
        try db.execute("DELETE FROM event_tasks WHERE task = 7 AND seq = 11")
        let missing = try #require(try store.verifyIndex())
        #expect(missing.missing == 1 && missing.extra == 0)
        #expect(missing.firstSeq == 11 && missing.firstTask == 7 && missing.firstIsMissing)
        #expect(missing.description.contains("event #11 touches task #7"))
        // The index is no help; the events still name the task.
        #expect(try store.events(touching: 7).map(\.seq) == [7])
        #expect(try store.events(listing: 7).map(\.seq) == [7, 11])
        #expect(try store.events(listing: 1).map(\.seq) == [1])
        try db.execute("INSERT INTO event_tasks(task, seq) VALUES (7, 11), (2, 5)")
        let extra = try #require(try store.verifyIndex())
        #expect(extra.missing == 0 && extra.extra == 1)
        #expect(extra.firstSeq == 5 && extra.firstTask == 2 && !extra.firstIsMissing)
        try db.execute("DELETE FROM event_tasks WHERE task = 2 AND seq = 5")
        #expect(try store.verifyIndex() == nil)
    }
}
