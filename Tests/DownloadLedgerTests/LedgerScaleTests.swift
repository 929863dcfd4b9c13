import DownloadLedger
import Foundation
import LedgerStore
import Testing

/// Start-up stays flat whatever shape the history has (issue 10 §5), and a creation that died half-way leaves
/// nothing behind for long.
@Suite struct LedgerScaleTests {
    func snapshotSeq(_ path: String) throws -> Int64? {
        try SQLiteEventStore(path: path, readOnly: true)
            .latestSnapshotSeq(reducerVersion: DownloadList.reducerVersion, atOrBefore: nil)
    }

    @Test func bigBatchesAreSnapshottedThoughTheyAreFewEvents() throws {
        let box = try Sandbox()
        let ledger = try box.ledger()
        // Adds of 1,000 URLs: a few events, but megabytes of replay. By the old rule (every 10,000 events) a
        // hundred of them never got a snapshot.
        for batch in 0..<6 {
            try ledger.add((0..<1000).map { "https://mirror.example.org/pub/batch\(batch)/file-\($0).iso" })
        }
        #expect(ledger.list.head == 7)
        let seq = try #require(try snapshotSeq(box.ledgerPath), "no snapshot after 6 adds of 1,000 URLs")
        #expect(seq > 2 && seq <= 7)
        // One add big enough is snapshotted at once.
        let one = try Sandbox()
        let big = try one.ledger()
        try big.add((0..<6000).map { "https://mirror.example.org/pub/one/file-\($0).iso" })
        #expect(try snapshotSeq(one.ledgerPath) == 2)
        // Small events alone stay under the threshold: no snapshot for a few single adds.
        let few = try Sandbox()
        let small = try few.ledger()
        for i in 0..<20 { try small.add(["https://example.com/\(i)"]) }
        #expect(try snapshotSeq(few.ledgerPath) == nil)
        // What reopening starts from is the list itself.
        #expect(try Ledger(path: box.ledgerPath).list == ledger.list)
        #expect(try Ledger(path: box.ledgerPath, readOnly: true).snapshotSeq == snapshotSeq(box.ledgerPath))
    }

    @Test func anAddAppliesWhatItWroteAndItsOutcomeHasTheCommitTime() throws {
        let box = try Sandbox()
        let ledger = try box.ledger(clock: { 1_700_000_000_000 })
        let outcome = try ledger.execute(
            .add(
                urls: ["https://example.com/a", "https://example.com/b"], placement: .end, name: nil,
                sha256: nil,
                directory: nil))
        #expect(outcome.time == 1_700_000_000_000)
        let reopened = try Ledger(path: box.ledgerPath)
        #expect(reopened.list == ledger.list)
        #expect(try ledger.verify(checkFiles: false).isValid)
    }

    /// A pid no process has now.
    static func deadPID() -> pid_t {
        var pid: pid_t = 999_999
        while kill(pid, 0) == 0 || errno != ESRCH { pid += 1 }
        return pid
    }

    @Test func theTemporariesOfACreationThatDiedAreRemovedOnTheNextOpen() throws {
        let box = try Sandbox()
        _ = try box.ledger()
        let dead = Self.deadPID()
        let outside = box.root + "/outside.txt"
        #expect(FileManager.default.createFile(atPath: outside, contents: Data("mine".utf8)))
        let ours = ["ledger.sqlite.new-\(dead)-12345", "ledger.sqlite.new-\(dead)-12345-wal"]
        let notOurs = [
            "ledger.sqlite.new-\(getpid())-1",  // a creation under way (its process lives)
            "ledger.sqlite.new-x-1", "ledger.sqlite.new-\(dead)-1-old", "other.sqlite.new-\(dead)-1",
            "ledger.sqlite.new-\(dead)",
        ]
        for name in ours + notOurs {
            #expect(FileManager.default.createFile(atPath: box.root + "/" + name, contents: Data("x".utf8)))
        }
        let link = "ledger.sqlite.new-\(dead)-777"
        try FileManager.default.createSymbolicLink(
            atPath: box.root + "/" + link, withDestinationPath: outside)
        // A read-only open touches nothing.
        _ = try Ledger(path: box.ledgerPath, readOnly: true)
        #expect(ours.allSatisfy { FileManager.default.fileExists(atPath: box.root + "/" + $0) })
        _ = try Ledger(path: box.ledgerPath)
        for name in ours {
            #expect(!FileManager.default.fileExists(atPath: box.root + "/" + name), "\(name)")
        }
        for name in notOurs + [link] {
            #expect(FileManager.default.fileExists(atPath: box.root + "/" + name), "\(name) was removed")
        }
        #expect(FileManager.default.contents(atPath: outside) == Data("mine".utf8))
    }
}
