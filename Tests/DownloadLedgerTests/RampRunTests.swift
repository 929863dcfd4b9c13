import DownloadLedger
import Foundation
import LoopbackHTTP
import Testing

/// The default without a count asked (`dledger get URL`, no `--connections`): a download whose one connection is
/// slow ramps its connections up while each new one adds throughput, as far as `max-connection-per-server` allows;
/// one whose connection alone is fast stays on it. What is checked is what a user sees: the log's
/// `transferConnections` facts, the scheduler's activity, the server's count of bodies at once, and the file.
@Suite(.serialized) struct RampRunTests {
    let server: LoopbackServer

    init() throws { server = try LoopbackServer() }

    /// Runs the ledger until idle with the downloader's defaults, and returns the most connections the task had at
    /// once, as the scheduler's activity showed them.
    private func run(_ ledger: Ledger, _ config: TransferConfig = TransferConfig()) async throws -> Int {
        let scheduler = try Scheduler(ledger: ledger, config: config)
        scheduler.tick = .milliseconds(20)
        let watcher = Task {
            var most = 0
            while !Task.isCancelled {
                for a in scheduler.currentActivity() { most = max(most, a.connections) }
                try? await Task.sleep(for: .milliseconds(5))
            }
            return most
        }
        try await scheduler.run(untilIdle: true)
        watcher.cancel()
        return await watcher.value
    }

    /// The `transferConnections` facts of task 1: count and detail, in order.
    private func logged(_ ledger: Ledger) throws -> [(count: Int, detail: String)] {
        try ledger.log().compactMap { e -> (Int, String)? in
            if case .transferConnections(1, let n, let detail) = e.entry.event { (n, detail) } else { nil }
        }
    }

    /// Each connection held to 2 MB/s: every step adds about as much again per connection, so the task goes from
    /// one connection to four, then to sixteen (the default `max-connection-per-server`), and holds there.
    @Test func aServerThatCapsEachConnectionGetsMoreThanEightConnections() async throws {
        let box = try Sandbox()
        let ledger = try box.ledger()
        let size: Int64 = 24 << 20
        server.serve(
            "/paced.bin",
            Resource(size: size, seed: 61, etag: "\"r1\"", faults: Faults(throttleBytesPerSecond: 2_000_000)))
        try ledger.execute(
            .add(urls: [server.url("/paced.bin")], placement: .end, name: nil, sha256: nil, directory: nil))

        let most = try await run(ledger)

        #expect(box.holds("paced.bin", seed: 61, size: size))
        let facts = try logged(ledger)
        let details = facts.map(\.detail)
        #expect(details.first?.hasPrefix("split into 4 connections") == true, "\(details)")
        #expect(details.contains { $0.hasPrefix("ramped up to 16 connections (4 gave ") }, "\(details)")
        #expect(details.contains { $0.hasPrefix("holding 16 connections, the most allowed") }, "\(details)")
        #expect(facts.map(\.count).max() == 16, "\(facts)")
        #expect(details.last?.hasPrefix("16 connections; 127.0.0.1:") == true, "\(details)")
        #expect(most > 8, "activity showed at most \(most) connections")
        #expect(server.peakConcurrency.bodies > 8, "\(server.peakConcurrency)")
    }

    /// `set max-connection-per-server 6`: the ramp goes from four to six, not past it.
    @Test func theRampStopsAtTheLedgersConnectionsPerServer() async throws {
        let box = try Sandbox()
        let ledger = try box.ledger()
        let size: Int64 = 12 << 20
        server.serve(
            "/six.bin",
            Resource(size: size, seed: 62, etag: "\"r2\"", faults: Faults(throttleBytesPerSecond: 2_000_000)))
        try ledger.execute(.setConnectionsPerServer(6))
        try ledger.execute(
            .add(urls: [server.url("/six.bin")], placement: .end, name: nil, sha256: nil, directory: nil))

        let most = try await run(ledger)

        #expect(box.holds("six.bin", seed: 62, size: size))
        let facts = try logged(ledger)
        #expect(facts.contains { $0.detail.hasPrefix("ramped up to 6 connections") }, "\(facts)")
        #expect(facts.map(\.count).max() == 6, "\(facts)")
        #expect(most == 6, "activity showed at most \(most) connections")
    }

    /// An unpaced server on loopback: the one connection gives more than the split threshold, so the task is never
    /// split, and the log says why, once. (The threshold is 4 MB/s here, not the default 64: LoopbackHTTP in a
    /// debug build gives 50–270 MB/s, nginx 800, and less when the suites run in parallel on two cores, where 16
    /// MB/s was seen to split it.)
    @Test func anUnpacedServerStaysOnOneConnection() async throws {
        let box = try Sandbox()
        let ledger = try box.ledger()
        let size: Int64 = 64 << 20
        server.serve("/fast.bin", Resource(size: size, seed: 63, etag: "\"r3\""))
        try ledger.execute(
            .add(urls: [server.url("/fast.bin")], placement: .end, name: nil, sha256: nil, directory: nil))
        var config = TransferConfig()
        config.splitBelowSpeed = 4_000_000

        let most = try await run(ledger, config)

        #expect(box.holds("fast.bin", seed: 63, size: size))
        let facts = try logged(ledger)
        #expect(facts.count == 1 && facts.first?.count == 1, "\(facts)")
        #expect(facts.first?.detail.hasPrefix("one connection: it alone gives ") == true, "\(facts)")
        // Never more than one (a fast transfer may end before the engine first publishes its activity, at 0.25 s).
        #expect(most <= 1, "activity showed \(most) connections")
        #expect(server.requests("/fast.bin").count == 1)
    }
}
