import DownloadLedger
import Foundation
import LoopbackHTTP
import Testing

/// A task's options, logged with it, applied by the downloader: headers, mirrors, connections, a live limit.
@Suite(.serialized) struct TaskOptionsRunTests {
    let server: LoopbackServer

    init() throws { server = try LoopbackServer() }

    @Test func theLoggedOptionsReachEveryRequestAndTheMirrorsServePieces() async throws {
        let box = try Sandbox()
        let ledger = try box.ledger()
        let resource = Resource(
            size: 4_000_000, seed: 71, etag: "\"o\"", faults: Faults(throttleBytesPerSecond: 2_000_000))
        server.serve("/a/o.bin", resource)
        server.serve("/b/o.bin", resource)
        let options = TaskOptions(
            headers: [try Validation.header("X-Trace: s-42")], userAgent: "dl-test/1", referer: "*",
            connections: 4, mirrors: [server.url("/b/o.bin")])
        try ledger.execute(
            .add(
                urls: [server.url("/a/o.bin")], placement: .end, name: nil, sha256: nil, directory: nil,
                options: options))
        var config = TransferConfig()
        config.minPieceSize = 256 * 1024
        let scheduler = try Scheduler(ledger: ledger, config: config)
        scheduler.tick = .milliseconds(20)
        try await scheduler.run(untilIdle: true)

        #expect(ledger.list.tasks[1]?.state == .finished)
        #expect(box.holds("o.bin", seed: 71, size: 4_000_000))
        let seen = server.requests("/a/o.bin") + server.requests("/b/o.bin")
        #expect(!server.requests("/b/o.bin").isEmpty)
        for r in seen {
            #expect(r.headers["x-trace"] == "s-42")
            #expect(r.headers["user-agent"] == "dl-test/1")
            #expect(r.headers["referer"] == server.url("/a/o.bin"))
        }
        let counts = try ledger.log().compactMap { e -> Int? in
            if case .transferConnections(_, let n, _) = e.entry.event { n } else { nil }
        }
        #expect(counts.first == 4)
    }

    @Test func theLedgersDefaultConnectionCountSplitsTasksWithoutTheirOwn() async throws {
        let box = try Sandbox()
        let ledger = try box.ledger()
        try ledger.execute(.setConnections(3))
        server.serve(
            "/d.bin", Resource(size: 3_000_000, seed: 72, faults: Faults(throttleBytesPerSecond: 3_000_000)))
        try ledger.add([server.url("/d.bin")])
        var config = TransferConfig()
        config.minPieceSize = 256 * 1024
        let scheduler = try Scheduler(ledger: ledger, config: config)
        scheduler.tick = .milliseconds(20)
        try await scheduler.run(untilIdle: true)
        #expect(box.holds("d.bin", seed: 72, size: 3_000_000))
        let counts = try ledger.log().compactMap { e -> Int? in
            if case .transferConnections(_, let n, _) = e.entry.event { n } else { nil }
        }
        #expect(counts.first == 3)
    }

    /// 20 MB at the task's 100 KB/s would take 200 s: the change event lifts it while the transfer runs.
    @Test func changingATasksLimitReachesItsRunningTransfer() async throws {
        let box = try Sandbox()
        let ledger = try box.ledger()
        server.serve("/l.bin", Resource(size: 20_000_000, seed: 73))
        try ledger.execute(
            .add(
                urls: [server.url("/l.bin")], placement: .end, name: nil, sha256: nil, directory: nil,
                options: TaskOptions(maxSpeed: 100_000)))
        let scheduler = try Scheduler(ledger: ledger)
        scheduler.tick = .milliseconds(20)
        let run = Task { try await scheduler.run(untilIdle: true) }
        #expect(await eventually { scheduler.currentActivity().first.map { $0.bytes > 0 } == true })
        try ledger.execute(.setOptions(1, TaskOptions()))
        #expect(await eventually(30) { ledger.list.tasks[1]?.state == .finished })
        try await run.value
        #expect(box.holds("l.bin", seed: 73, size: 20_000_000))
    }
}
