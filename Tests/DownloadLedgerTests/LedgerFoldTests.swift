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
