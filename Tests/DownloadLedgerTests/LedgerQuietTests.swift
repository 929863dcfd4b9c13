import DownloadLedger
import Foundation
import LoopbackHTTP
import Testing

/// A program that uses the library and lets its ledger go leaves the file quiet, as `dledger` does after each
/// command (issue 24 §2): rollback-journal mode in the header, no `-wal` or `-shm` beside it, so that a copy of it
/// opens in the plain `sqlite3` shell even read-only in a folder the reader cannot write.
@Suite struct LedgerQuietTests {
    /// Header bytes 18 and 19 (the file format's write and read versions): 1 for a rollback journal, 2 for WAL.
    static func versions(_ path: String) throws -> [UInt8] {
        let bytes = try Data(contentsOf: URL(fileURLWithPath: path))
        return [bytes[18], bytes[19]]
    }

    static func beside(_ path: String) -> [String] {
        ["-wal", "-shm"].filter { FileManager.default.fileExists(atPath: path + $0) }
    }

    @Test func aLedgerLetGoLeavesItsFileQuiet() throws {
        let box = try Sandbox()
        do {
            let ledger = try box.ledger()
            try ledger.add(["https://example.com/a.iso"])
            #expect(try Self.versions(box.ledgerPath) == [2, 2])
        }
        #expect(try Self.versions(box.ledgerPath) == [1, 1])
        #expect(Self.beside(box.ledgerPath).isEmpty)
        // A reader neither switches it nor stops the next writer from leaving it quiet, and reads what it wrote.
        let reader = try Ledger(path: box.ledgerPath, readOnly: true)
        #expect(reader.list.tasks.count == 1)
        do {
            let writer = try Ledger(path: box.ledgerPath)
            try writer.execute(.pause(.tasks([1])))
            #expect(try Self.versions(box.ledgerPath) == [2, 2])
        }
        #expect(try Self.versions(box.ledgerPath) == [1, 1])
        #expect(Self.beside(box.ledgerPath).isEmpty)
        let seqs = try reader.log().map(\.seq)
        #expect(seqs == [1, 2, 3], "\(seqs)")
    }

    /// The shape of a download program: a ledger created, URLs added, a scheduler run until idle, both let go.
    @Test func aRunLetGoLeavesItsFileQuiet() async throws {
        let box = try Sandbox()
        let server = try LoopbackServer()
        server.serve("/a.bin", Resource(size: 300_000, seed: 3))
        do {
            let ledger = try Ledger(
                path: box.ledgerPath, creatingWithDirectory: box.downloads, deferringCreation: true)
            try ledger.add([server.url("/a.bin")])
            let scheduler = try Scheduler(ledger: ledger)
            try await scheduler.run(untilIdle: true)
            #expect(ledger.list.tasks[1]?.state == .finished)
        }
        #expect(box.holds("a.bin", seed: 3, size: 300_000))
        #expect(try Self.versions(box.ledgerPath) == [1, 1])
        #expect(Self.beside(box.ledgerPath).isEmpty)
        #expect(try Ledger(path: box.ledgerPath, readOnly: true).list.tasks[1]?.state == .finished)
    }
}
