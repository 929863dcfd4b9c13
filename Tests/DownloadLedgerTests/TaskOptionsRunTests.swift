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

    /// `--connections 8 --max-connection-per-server 2` on one URL: two connections at once, never more (eight
    /// 1 MiB pieces, so no piece is ever stolen). Without the task's limit the engine's 16 would allow eight.
    @Test func aTasksConnectionsPerServerCapsTheConnectionsToItsServer() async throws {
        let box = try Sandbox()
        let ledger = try box.ledger()
        let size: Int64 = 8 << 20
        server.serve(
            "/s.bin", Resource(size: size, seed: 74, faults: Faults(throttleBytesPerSecond: 4_000_000)))
        try ledger.execute(
            .add(
                urls: [server.url("/s.bin")], placement: .end, name: nil, sha256: nil, directory: nil,
                options: TaskOptions(connections: 8, connectionsPerServer: 2, minSplitSize: 1 << 20)))
        let scheduler = try Scheduler(ledger: ledger, config: TransferConfig())
        scheduler.tick = .milliseconds(20)
        let watcher = Task {
            var most = 0
            while !Task.isCancelled {
                most = max(most, scheduler.currentActivity().reduce(0) { $0 + $1.connections })
                try? await Task.sleep(for: .milliseconds(10))
            }
            return most
        }
        try await scheduler.run(untilIdle: true)
        watcher.cancel()
        #expect(await watcher.value == 2)
        #expect(box.holds("s.bin", seed: 74, size: size))
        #expect(try ledger.loggedConnections(1).max() == 2)
        #expect(server.requests("/s.bin").count >= 2)
        // The server's count of bodies can pass the client's for an instant (a connection cut at the end of its
        // piece is noticed a moment after the next one opens), never by two.
        let peak = server.peakConcurrency
        #expect(peak.bodies >= 2 && peak.bodies <= 3, "\(peak)")
    }

    /// A `min-split-size` above half the file keeps it on one request; the same file with 1 MiB splits.
    @Test func aMinSplitSizeAboveHalfTheFileKeepsItInOnePiece() async throws {
        let box = try Sandbox()
        let ledger = try box.ledger()
        let size: Int64 = 3 << 20
        for (path, seed) in [("/k1.bin", UInt64(75)), ("/k2.bin", UInt64(76))] {
            server.serve(
                path, Resource(size: size, seed: seed, faults: Faults(throttleBytesPerSecond: 3_000_000)))
        }
        for (path, minSplit) in [("/k1.bin", Int64(2 << 20)), ("/k2.bin", Int64(1 << 20))] {
            try ledger.execute(
                .add(
                    urls: [server.url(path)], placement: .end, name: nil, sha256: nil, directory: nil,
                    options: TaskOptions(connections: 8, minSplitSize: minSplit)))
        }
        let scheduler = try Scheduler(ledger: ledger, config: TransferConfig())
        scheduler.tick = .milliseconds(20)
        try await scheduler.run(untilIdle: true)
        #expect(box.holds("k1.bin", seed: 75, size: size) && box.holds("k2.bin", seed: 76, size: size))
        #expect(server.requests("/k1.bin").count == 1)
        #expect(try ledger.loggedConnections(1).allSatisfy { $0 == 1 })
        #expect(server.requests("/k2.bin").count >= 2)
        #expect(try ledger.loggedConnections(2).max() ?? 0 >= 2)
    }
}
