import DownloadLedger
import Foundation
import PostgresSupport
import Testing

@testable import LedgerStore

/// `ls`, `info` and `stats` ask whether a downloader runs. On PostgreSQL the question goes on the ledger's own
/// connection: it needs no session of its own (over TLS to a remote server, a second handshake per command).
@Suite struct PostgresRunLockLookTests {
    @Test func aReaderTellsARunningDownloaderWithoutANewSession() throws {
        let cluster = try PostgresOwnCluster()
        defer { cluster.remove() }
        let uri = cluster.ledger("look")
        let folder = NSTemporaryDirectory() + "dl-look-\(getpid())-\(UInt32.random(in: 0...UInt32.max))"
        defer { try? FileManager.default.removeItem(atPath: folder) }
        let writer = try Ledger(path: uri, creatingWithDirectory: folder)
        _ = try writer.execute(
            .add(urls: ["https://example.com/a"], placement: .end, name: nil, sha256: nil, directory: nil))
        let reader = try Ledger(path: uri, readOnly: true)
        #expect(!reader.isDownloaderRunning)

        let location = try PostgresLocation(uri)
        let lock = try #require(try PostgresRunLock.acquire(location, host: "nas"))
        defer { lock.release() }
        #expect(reader.isDownloaderRunning)

        // From here on the server refuses every new session to the ledger's database (said from another one).
        let database = try PostgresConnection(location).execute("SELECT current_database()").string(0, 0)
        var other = try #require(URLComponents(string: cluster.uri))
        other.path = "/postgres"
        let admin = try PostgresConnection(PostgresLocation(try #require(other.string)))
        _ = try admin.executeScript(
            "ALTER DATABASE \(PostgresConnection.identifier(database)) ALLOW_CONNECTIONS false")
        defer {
            _ = try? admin.executeScript(
                "ALTER DATABASE \(PostgresConnection.identifier(database)) ALLOW_CONNECTIONS true")
        }
        #expect(throws: StoreError.self) { _ = try PostgresConnection(location) }

        #expect(reader.isDownloaderRunning)
        #expect(reader.isDownloaderRunning(host: "nas"))
        #expect(!reader.isDownloaderRunning(host: "other"))
        lock.release()
        #expect(!reader.isDownloaderRunning)
    }
}
