import Foundation
import PostgresSupport
import Testing

@testable import DownloadLedger
@testable import LedgerStore

/// On a PostgreSQL ledger a row's age is told by the server's clock, the same for readers on every host: a live
/// downloader's row of running transfers is believed while it is fresh, and no longer once its writer has stopped
/// publishing for longer than ``ActivityRecord/maxAgeMs``.
@Suite struct PostgresActivityAgeTests {
    @Test func aRowOfRunningTransfersIsBelievedOnlyWhileFreshByTheServersClock() throws {
        let uri = try PostgresTestCluster.freshLedger("age")
        let folder = NSTemporaryDirectory() + "dl-age-\(getpid())-\(UInt32.random(in: 0...UInt32.max))"
        defer { try? FileManager.default.removeItem(atPath: folder) }
        let writer = try Ledger(path: uri, creatingWithDirectory: folder)
        try writer.add(["https://example.com/a.iso"])
        let location = try PostgresLocation(uri)
        let lock = try #require(try PostgresRunLock.acquire(location, host: "nas"))
        defer { lock.release() }
        // The writer's own clock says 1970: the server's time is what counts.
        let record = ActivityRecord(
            pid: getpid(), writtenMs: 1,
            activity: [TransferActivity(id: 1, bytes: 5_000, expected: 9_000, speed: 100, eta: nil)])
        let board = PostgresActivityWriter(location, host: "nas")
        try board.publish(record.encoded(), pid: getpid(), lockBackend: try #require(lock.sessionPid))
        let reader = try Ledger(path: uri, readOnly: true)
        #expect(reader.liveActivity()[1]?.bytes == 5_000)

        // The writer stops publishing: its row ages on the server.
        let admin = try PostgresConnection(location)
        _ = try admin.executeScript(
            "UPDATE \(PostgresConnection.identifier(location.schema)).activity SET written_at = written_at - 10000"
        )
        #expect(reader.liveActivity().isEmpty)
        // Published again, it is believed again.
        try board.publish(record.encoded(), pid: getpid(), lockBackend: try #require(lock.sessionPid))
        #expect(reader.liveActivity()[1]?.bytes == 5_000)
    }
}
