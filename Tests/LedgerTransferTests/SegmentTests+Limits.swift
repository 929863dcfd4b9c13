import Foundation
import LedgerTransfer
import LoopbackHTTP
import Synchronization
import Testing

extension SegmentTests {
    @Test func theSpeedLimitHoldsAcrossSixteenConnections() async throws {
        var config = Self.config(connections: 16)
        config.speedLimit = 3_000_000
        let h = try Harness(config: config)
        defer { h.close() }
        let resource = Resource(size: 6_000_000, seed: 41)
        h.server.serve("/l.bin", resource)

        // The rate while it runs, from the progress snapshots (about four a second, timed as they arrive) while all
        // sixteen connections receive: the start and the end, the sync and the hash, are not the limiter's business.
        let samples = Mutex<[(time: Date, bytes: Int64)]>([])
        let updates = h.engine.activityUpdates
        let watcher = Task {
            for await snapshot in updates {
                guard let activity = snapshot.first, activity.connections >= 16 else { continue }
                samples.withLock { $0.append((Date(), activity.bytes)) }
            }
        }
        h.engine.start(h.request(1, "/l.bin"))
        let event = await h.events.terminal(1)

        guard case .completed(_, 6_000_000, _, let name) = event else {
            Issue.record("ended with \(String(describing: event))")
            return
        }
        let same = h.holds(name, resource.body.allBytes)
        #expect(same)
        watcher.cancel()
        let steady = samples.withLock { $0 }
        try #require(steady.count >= 4)
        let first = steady[1]
        let last = steady[steady.count - 1]
        let rate = Double(last.bytes - first.bytes) / last.time.timeIntervalSince(first.time)
        #expect(rate <= 3_300_000 && rate >= 2_700_000, "\(rate) B/s")
    }

    @Test func theActivityCountsTheConnections() async throws {
        let h = try Harness(config: Self.config(connections: 4))
        defer { h.close() }
        var faults = Faults()
        faults.throttleBytesPerSecond = 500_000
        h.server.serve("/n.bin", Resource(size: 3_000_000, seed: 42, faults: faults))

        h.engine.start(h.request(2, "/n.bin"))
        #expect(await Harness.eventually { h.engine.activity().first?.connections == 4 })
        h.engine.cancel(id: 2)
        _ = await h.events.terminal(2)
    }
}
