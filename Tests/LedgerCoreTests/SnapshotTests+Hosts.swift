import Testing

@testable import LedgerCore

/// A shared ledger's hosts in the snapshot: a task's host and lease, a completion's folder, per-host settings.
extension SnapshotTests {
    @Test func hostsLeasesAndHostSettingsRoundTrip() throws {
        var log = TestLog()
        log.add(u("a.iso"), u("b.iso"), u("c.iso"))
        log.fact(.transferClaimed(id: 1, host: "nas", leaseMs: 30_000))
        log.fact(.transferClaimed(id: 2, host: "desk", leaseMs: 2_000))
        log.fact(
            .transferCompleted(
                id: 2, bytes: 3, sha256: String(repeating: "2", count: 64), fileName: "b.iso", host: "desk",
                directory: "/srv/desk"))
        log.run(.setForHost("nas", .maxDownloads, 2))
        log.run(.setForHost("desk", .speedLimit, 1_000))
        log.run(.set(.claimLease, .number(5)))
        let read = try DownloadList(snapshot: log.list.snapshotBytes())
        expectEqual(read, log.list, "snapshot")
        #expect(read.tasks[1]?.host == "nas" && read.tasks[1]?.leaseUntil != nil)
        let b = try #require(read.tasks[2])
        #expect(b.host == "desk" && b.leaseUntil == nil && b.directory == "/srv/desk")
        #expect(read.maxDownloads(for: "nas") == 2 && read.maxDownloads(for: "desk") == read.maxDownloads)
        #expect(read.speedLimit(for: "desk") == 1_000 && read.claimLeaseMs == 5_000)
        // Undone like any setting: desk follows the ledger's speed limit again.
        log.run(.undo)
        log.run(.undo)
        #expect(
            log.list.speedLimit(for: "desk") == log.list.speedLimit && log.list.hostSettings["desk"] == nil)
        #expect(throws: LedgerError.self) { try log.list.decide(.setForHost("no name", .maxDownloads, 1)) }
        #expect(throws: LedgerError.self) { try log.list.decide(.setForHost("nas", .connections, 1)) }
    }
}
