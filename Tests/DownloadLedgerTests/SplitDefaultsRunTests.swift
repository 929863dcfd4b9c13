import DownloadLedger
import Foundation
import LoopbackHTTP
import Testing

/// The ledger's defaults for splitting (`dledger set max-connection-per-server`, `set min-split-size`) reach the
/// downloader for every task without its own, and a task's own value wins over them. The connections are counted
/// where a user would count them: at the server (LoopbackHTTP's bodies at once), and in the log.
@Suite(.serialized) struct SplitDefaultsRunTests {
    let server: LoopbackServer

    init() throws { server = try LoopbackServer() }

    /// Runs the ledger until idle, and returns the most connections each task had at once, as the scheduler's
    /// activity showed them.
    private func run(_ ledger: Ledger) async throws -> [TaskID: Int] {
        let scheduler = try Scheduler(ledger: ledger, config: TransferConfig())
        scheduler.tick = .milliseconds(20)
        let watcher = Task {
            var most: [TaskID: Int] = [:]
            while !Task.isCancelled {
                for a in scheduler.currentActivity() { most[a.id] = max(most[a.id] ?? 0, a.connections) }
                try? await Task.sleep(for: .milliseconds(10))
            }
            return most
        }
        try await scheduler.run(untilIdle: true)
        watcher.cancel()
        return await watcher.value
    }

    /// `set max-connection-per-server 2`, a task asking for 8 connections on one URL: two at once, at the server
    /// too (eight 1 MiB pieces of an 8 MiB file, each connection held to 4 MB/s).
    @Test func theLedgersConnectionsPerServerCapsATaskWithoutItsOwn() async throws {
        let box = try Sandbox()
        let ledger = try box.ledger()
        let size: Int64 = 8 << 20
        server.serve(
            "/d.bin", Resource(size: size, seed: 81, faults: Faults(throttleBytesPerSecond: 4_000_000)))
        try ledger.execute(.setConnectionsPerServer(2))
        try ledger.execute(
            .add(
                urls: [server.url("/d.bin")], placement: .end, name: nil, sha256: nil, directory: nil,
                options: TaskOptions(connections: 8)))
        let most = try await run(ledger)
        #expect(most[1] == 2, "\(most)")
        #expect(box.holds("d.bin", seed: 81, size: size))
        #expect(try ledger.loggedConnections(1).max() == 2)
        // A connection cut at the end of its piece is noticed by the server a moment after the next one opens.
        let peak = server.peakConcurrency
        #expect(peak.bodies >= 2 && peak.bodies <= 3, "\(peak)")
    }

    /// The ledger says one connection per server; the task's own `--max-connection-per-server 3` wins.
    @Test func aTasksOwnConnectionsPerServerWinsOverTheLedgers() async throws {
        let box = try Sandbox()
        let ledger = try box.ledger()
        let size: Int64 = 6 << 20
        server.serve(
            "/e.bin", Resource(size: size, seed: 82, faults: Faults(throttleBytesPerSecond: 4_000_000)))
        try ledger.execute(.setConnectionsPerServer(1))
        try ledger.execute(
            .add(
                urls: [server.url("/e.bin")], placement: .end, name: nil, sha256: nil, directory: nil,
                options: TaskOptions(connections: 8, connectionsPerServer: 3)))
        let most = try await run(ledger)
        #expect(most[1] == 3, "\(most)")
        #expect(box.holds("e.bin", seed: 82, size: size))
        #expect(server.peakConcurrency.bodies >= 3 && server.peakConcurrency.bodies <= 4)
    }

    /// `set min-split-size 2M` keeps a 3 MiB file on one request (less than twice the piece is left); a task
    /// with its own 1 MiB splits the same file.
    @Test func theLedgersMinSplitSizeHoldsUnlessATaskHasItsOwn() async throws {
        let box = try Sandbox()
        let ledger = try box.ledger()
        let size: Int64 = 3 << 20
        for (path, seed) in [("/m1.bin", UInt64(83)), ("/m2.bin", UInt64(84))] {
            server.serve(
                path, Resource(size: size, seed: seed, faults: Faults(throttleBytesPerSecond: 3_000_000)))
        }
        try ledger.execute(.setMinSplitSize(2 << 20))
        for (path, own) in [("/m1.bin", Int64?.none), ("/m2.bin", Int64(1 << 20))] {
            try ledger.execute(
                .add(
                    urls: [server.url(path)], placement: .end, name: nil, sha256: nil, directory: nil,
                    options: TaskOptions(connections: 8, minSplitSize: own)))
        }
        _ = try await run(ledger)
        #expect(box.holds("m1.bin", seed: 83, size: size) && box.holds("m2.bin", seed: 84, size: size))
        #expect(server.requests("/m1.bin").count == 1)
        #expect(try ledger.loggedConnections(1).allSatisfy { $0 == 1 })
        #expect(server.requests("/m2.bin").count >= 2)
        #expect(try ledger.loggedConnections(2).max() ?? 0 >= 2)
    }
}
