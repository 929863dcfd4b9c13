import Foundation
import PostgresSupport
import Testing

@testable import LedgerStore

/// The PostgreSQL store's bulk paths: a big batch appended by COPY and a long scan read through a cursor give the
/// same rows, chain and audit index as the small paths and the in-memory store.
struct PostgresBulkTests {
    /// Events of `count`, every seventh naming three tasks (one twice), from `first`.
    static func events(from first: Int64, count: Int) -> [NewEvent] {
        (first..<first + Int64(count)).map { n in
            n % 7 == 0 ? sampleEvent(n, kind: "moved", tasks: [n, n + 1, n]) : sampleEvent(n)
        }
    }

    @Test func aBigBatchByCopyHasTheSameChainAndIndexAsTheSmallPath() throws {
        let uri = try PostgresTestCluster.freshLedger("bulk")
        let store = try PostgresEventStore(uri: uri)
        let memory = InMemoryEventStore()
        // Small appends, then batches past the COPY threshold, then small again.
        var batches: [[NewEvent]] = [Self.events(from: 1, count: 3)]
        batches.append(Self.events(from: 4, count: PostgresEventStore.copyThreshold))
        batches.append(Self.events(from: 4 + Int64(PostgresEventStore.copyThreshold), count: 25_000))
        batches.append(Self.events(from: 1_000_000, count: 2))
        var head: Int64 = 0
        for (n, batch) in batches.enumerated() {
            let time = 1_000 + Int64(n)
            let stored = try store.append(batch, expectingHead: head, time: time)
            #expect(try memory.append(batch, expectingHead: head, time: time) == stored)
            head = stored
        }
        #expect(head == Int64(batches.map(\.count).reduce(0, +)))
        let report = try store.verifyChain()
        #expect(report.isValid && report.head == head, "\(report)")
        #expect(try store.verifyIndex() == nil)
        #expect(report.headHash == (try memory.verifyChain()).headHash)
        #expect(try store.events(touching: 14).map(\.seq) == (try memory.events(touching: 14)).map(\.seq))
        // A store that never appended reads the same head and appends after it.
        let other = try PostgresEventStore(uri: uri)
        #expect(try other.head() == head)
    }

    @Test func aBigBatchThatExpectsAnOldHeadWritesNothing() throws {
        let uri = try PostgresTestCluster.freshLedger("bulk")
        let store = try PostgresEventStore(uri: uri)
        _ = try store.append(Self.events(from: 1, count: 2), expectingHead: 0, time: 5)
        let other = try PostgresEventStore(uri: uri)
        _ = try other.append(Self.events(from: 3, count: 1), expectingHead: 2, time: 6)
        #expect(throws: StoreError.conflict(head: 3)) {
            try store.append(Self.events(from: 10, count: 1_000), expectingHead: 2, time: 7)
        }
        #expect(try store.head() == 3)
        #expect(try store.verifyChain().rowCount == 3)
        // The same batch after the real head goes in, chained after the other connection's event.
        #expect(try store.append(Self.events(from: 10, count: 1_000), expectingHead: 3, time: 7) == 1_003)
        #expect(try store.verifyChain().isValid)
    }

    /// A store whose last append was followed by another connection's appends after the later head its reader
    /// folded: no conflict (it once answered with the head it remembered, and a writer retried that forever).
    @Test func anAppendAfterAHeadAnotherConnectionMovedGoesIn() throws {
        let uri = try PostgresTestCluster.freshLedger("bulk")
        let store = try PostgresEventStore(uri: uri)
        let other = try PostgresEventStore(uri: uri)
        #expect(try store.append([sampleEvent(1)], expectingHead: 0, time: 5) == 1)
        #expect(try other.append([sampleEvent(2), sampleEvent(3)], expectingHead: 1, time: 6) == 3)
        #expect(throws: StoreError.conflict(head: 3)) {
            try store.append([sampleEvent(4)], expectingHead: 1, time: 7)
        }
        #expect(try other.append([sampleEvent(4)], expectingHead: 3, time: 7) == 4)
        #expect(try store.append([sampleEvent(5)], expectingHead: 4, time: 8) == 5)
        #expect(try store.append(Self.events(from: 6, count: 300), expectingHead: 5, time: 9) == 305)
        #expect(try other.append([sampleEvent(306)], expectingHead: 305, time: 10) == 306)
        #expect(try store.verifyChain().isValid)
    }

    @Test func aLongScanReadsEveryEventOnceInOrderAndCanStopHalfway() throws {
        let store = try PostgresEventStore(uri: PostgresTestCluster.freshLedger("bulk"))
        let total = Int(PostgresEventStore.pageRows) * 2 + 123
        _ = try store.append(Self.events(from: 1, count: total), expectingHead: 0, time: 9)
        var seqs: [Int64] = []
        var payloads = 0
        try store.scan(after: 0, through: nil) { view in
            seqs.append(view.seq)
            payloads += view.payload.count
        }
        #expect(seqs == Array(1...Int64(total)))
        #expect(payloads == Self.events(from: 1, count: total).map(\.payload.count).reduce(0, +))
        // Through a seq past the first page, from the middle.
        var middle: [Int64] = []
        try store.scan(after: 5, through: 15_000) { middle.append($0.seq) }
        #expect(middle == Array(6...15_000))
        // A reader that throws in the second page ends the read; the connection goes on working.
        struct Enough: Error {}
        #expect(throws: Enough.self) {
            try store.scan(after: 0, through: nil) { if $0.seq == 12_345 { throw Enough() } }
        }
        #expect(
            try store.append([sampleEvent(99_999)], expectingHead: Int64(total), time: 10) == Int64(total) + 1
        )
        var again = 0
        try store.scan(after: 0, through: nil) { _ in again += 1 }
        #expect(again == total + 1)
    }
}
