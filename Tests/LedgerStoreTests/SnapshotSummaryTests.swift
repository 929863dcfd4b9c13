import Foundation
import TestSupport
import Testing

@testable import LedgerStore

/// A snapshot's summary is read without the snapshot's bytes, under its own seal (schema 5).
struct SnapshotSummaryTests {
    let directory: TemporaryDirectory
    let path: String

    init() throws {
        directory = try TemporaryDirectory()
        path = directory.file("ledger.sqlite")
    }

    func summary(_ store: SQLiteEventStore) throws -> (seq: Int64, bytes: [UInt8])? {
        try store.withLatestSummary(reducerVersion: 9, atOrBefore: nil) { ($0, Array($1)) }
    }

    @Test func anEditedSummaryIsSkippedAndNamedWhileItsSnapshotStillLoads() throws {
        let store = try SQLiteEventStore(path: path)
        _ = try store.append((1...10).map { sampleEvent($0) }, expectingHead: 0, time: 1000)
        try store.saveSnapshot(seq: 4, reducerVersion: 9, bytes: [4, 4], summary: Array("four".utf8))
        try store.saveSnapshot(seq: 8, reducerVersion: 9, bytes: [8, 8], summary: Array("eight".utf8))
        try store.saveSnapshot(seq: 9, reducerVersion: 9, bytes: [9, 9])
        // The newest row has none: the newest summary is the one at 8.
        #expect(try summary(store)?.seq == 8 && summary(store)?.bytes == Array("eight".utf8))
        #expect(try store.snapshotProblems(reducerVersion: 9).isEmpty)
        try Database(path: path).execute("UPDATE snapshots SET summary = CAST('EIGHT' AS BLOB) WHERE seq = 8")
        #expect(try summary(store)?.seq == 4)
        #expect(try store.latestSnapshot(reducerVersion: 9, atOrBefore: 8)?.bytes == [8, 8])
        #expect(
            try store.snapshotProblems(reducerVersion: 9).map(\.description) == [
                "snapshot at #8 is not used: its summary was changed after it was saved (digest mismatch)"
            ])
        // A summary and its digest moved into the snapshot's own columns are no sealed snapshot.
        try Database(path: path).execute(
            "UPDATE snapshots SET bytes = summary, digest = summary_digest WHERE seq = 4")
        #expect(try store.latestSnapshot(reducerVersion: 9, atOrBefore: 4) == nil)
    }

    @Test func aLedgerOfTheSchemaBeforeSummariesIsReadWithoutThem() throws {
        do {
            let db = try Database(path: path)
            try Migration.migrate(db, upTo: 4)
        }
        do {
            let old = try SQLiteEventStore(path: path, readOnly: true)
            #expect(!old.hasSnapshotSummaries)
            #expect(try summary(old) == nil)
            #expect(try old.snapshotProblems(reducerVersion: 9).isEmpty)
        }
        let store = try SQLiteEventStore(path: path)
        #expect(store.hasSnapshotSummaries)
        _ = try store.append([sampleEvent(1)], expectingHead: 0, time: 1)
        try store.saveSnapshot(seq: 1, reducerVersion: 9, bytes: [1], summary: [7])
        #expect(try summary(store)?.bytes == [7])
    }
}
