import Testing

@testable import DownloadLedger

/// How a PostgreSQL ledger's board merges the rows of its live hosts (the liveness itself, a `pg_locks` join, is
/// tested against a real server in DledgerTests' LiveActivityTests and SharedHostsLiveActivityTests).
@Suite struct PostgresActivityBoardTests {
    static func row(_ host: String, pid: Int32, writtenMs: Int64, _ activity: [TransferActivity])
        -> PostgresActivityRow
    {
        let record = ActivityRecord(pid: pid, writtenMs: writtenMs, activity: activity)
        return PostgresActivityRow(host: host, pid: pid, writtenMs: writtenMs, record: record.encoded())
    }

    static func transfer(_ id: Int64, bytes: Int64) -> TransferActivity {
        TransferActivity(id: id, bytes: bytes, expected: 1_000_000, speed: 1000, eta: nil)
    }

    @Test func everyLiveHostsTransfersAreMergedInHostOrder() throws {
        let rows = [
            Self.row(
                "alpha", pid: 10, writtenMs: 5, [Self.transfer(1, bytes: 100), Self.transfer(4, bytes: 400)]),
            Self.row("beta", pid: 10, writtenMs: 6, [Self.transfer(2, bytes: 200)]),
        ]
        let merged = try #require(PostgresActivityBoard.merged(rows))
        #expect(merged.map(\.id) == [1, 4, 2])
        #expect(merged.map(\.bytes) == [100, 400, 200])
    }

    @Test func aTaskTwoHostsCarryIsTheNewerRows() throws {
        // alpha stalled past its lease and still publishes #1; beta took it over and wrote later.
        let rows = [
            Self.row("alpha", pid: 10, writtenMs: 5, [Self.transfer(1, bytes: 900)]),
            Self.row(
                "beta", pid: 20, writtenMs: 9, [Self.transfer(1, bytes: 30), Self.transfer(2, bytes: 5)]),
        ]
        let merged = try #require(PostgresActivityBoard.merged(rows))
        #expect(merged.map(\.id) == [1, 2])
        #expect(merged.first?.bytes == 30)
    }

    /// Ages and order are the server's: a row of running transfers older than ``ActivityRecord/maxAgeMs`` is a live
    /// host whose figures are not believed; an empty one is believed at any age; two hosts' rows of one task are
    /// ordered by the server's time, whatever their own clocks wrote in the record.
    @Test func staleRowsAreNotBelievedAndOrderIsTheServers() throws {
        var fresh = Self.row("alpha", pid: 10, writtenMs: 5_000, [Self.transfer(1, bytes: 100)])
        fresh.ageMs = 1_000
        var stale = Self.row("beta", pid: 20, writtenMs: 9_000, [Self.transfer(2, bytes: 200)])
        stale.ageMs = ActivityRecord.maxAgeMs + 1
        #expect(PostgresActivityBoard.merged([fresh, stale])?.map(\.id) == [1])
        var idle = Self.row("gamma", pid: 30, writtenMs: 1, [])
        idle.ageMs = 3_600_000
        #expect(PostgresActivityBoard.merged([stale, idle]) == [])
        // beta's own clock is behind: its record says 1, the server wrote it after alpha's.
        let alpha = Self.row("alpha", pid: 10, writtenMs: 5_000, [Self.transfer(1, bytes: 900)])
        let record = ActivityRecord(pid: 20, writtenMs: 1, activity: [Self.transfer(1, bytes: 30)])
        let beta = PostgresActivityRow(host: "beta", pid: 20, writtenMs: 6_000, record: record.encoded())
        #expect(PostgresActivityBoard.merged([alpha, beta])?.first?.bytes == 30)
    }

    @Test func rowsThatDoNotDecodeOrNameAnotherProcessAreIgnored() throws {
        var otherPid = Self.row("beta", pid: 20, writtenMs: 9, [Self.transfer(2, bytes: 5)])
        otherPid.pid = 21
        let garbage = PostgresActivityRow(host: "gamma", pid: 30, writtenMs: 9, record: Array("x\u{0}".utf8))
        let good = Self.row("alpha", pid: 10, writtenMs: 5, [Self.transfer(1, bytes: 100)])
        #expect(PostgresActivityBoard.merged([otherPid, garbage, good])?.map(\.id) == [1])
        #expect(PostgresActivityBoard.merged([otherPid, garbage]) == nil)
        #expect(PostgresActivityBoard.merged([]) == nil)
        // A live downloader with nothing running publishes an empty record: no transfers, not "none publishes".
        #expect(PostgresActivityBoard.merged([Self.row("alpha", pid: 10, writtenMs: 5, [])]) == [])
    }
}
