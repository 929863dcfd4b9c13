import DownloadLedger
import Foundation
import LoopbackHTTP
import PostgresSupport
import Synchronization
import Testing

/// On PostgreSQL, another connection's commit reaches a ledger's followers by its NOTIFY, not by a poll: the
/// followers here ask for an hourly look, so only the announcement can bring the change in time.
@Suite struct PostgresChangesTests {
    /// When each head was first seen by a follower, on the follower's side.
    final class Sightings: Sendable {
        private let seen = Mutex<[(head: Int64, at: ContinuousClock.Instant)]>([])

        func record(_ head: Int64) { seen.withLock { $0.append((head, .now)) } }

        /// The first time a head at or past `head` was seen; waits up to `limit`.
        func waitFor(_ head: Int64, limit: Duration) async -> ContinuousClock.Instant? {
            let deadline = ContinuousClock.now + limit
            while ContinuousClock.now < deadline {
                if let found = seen.withLock({ $0.first { $0.head >= head }?.at }) { return found }
                try? await Task.sleep(for: .milliseconds(1))
            }
            return nil
        }
    }

    @Test(.timeLimit(.minutes(2))) func aCommitOnAnotherConnectionReachesChangesWithinTheBound() async throws
    {
        let uri = try PostgresTestCluster.freshLedger("notify")
        let folder = NSTemporaryDirectory() + "dl-notify-\(getpid())-\(UInt32.random(in: 0...UInt32.max))"
        let writer = try Ledger(path: uri, creatingWithDirectory: folder)
        let follower = try Ledger(path: uri)
        let sightings = Sightings()
        let stream = follower.changes(pollInterval: .seconds(3600))
        let following = Task {
            for await list in stream { sightings.record(list.head) }
        }
        defer { following.cancel() }
        _ = await sightings.waitFor(writer.list.head, limit: .seconds(10))
        var latencies: [Double] = []
        for n in 1...50 {
            let started = ContinuousClock.now
            let head = try writer.execute(
                .add(
                    urls: ["https://example.com/\(n)"], placement: .end, name: nil, sha256: nil,
                    directory: nil)
            ).seq
            let seen = try #require(
                await sightings.waitFor(head, limit: .seconds(10)), "head \(head) never seen")
            latencies.append(Double((seen - started).components.attoseconds) / 1e15)
        }
        latencies.sort()
        let p50 = latencies[latencies.count / 2]
        let p99 = latencies[Int(Double(latencies.count) * 0.99) - 1]
        // 100 ms is the target on an idle loopback (ledger-bench postgres measures it: about 2 ms p99); the bound is
        // looser so a test machine loaded by the suite's parallel tests (about 500 ms seen on 2 busy cores) does not
        // fail it, and still far below the hourly look the follower asked for.
        #expect(p99 < 1_000, "p50 \(p50) ms, p99 \(p99) ms")
        #expect(follower.list.tasks.count == 50)
    }

    /// The downloader wakes on another connection's command, not on its tick: a task added elsewhere starts at
    /// once although the scheduler looks at the ledger only every hour.
    @Test(.timeLimit(.minutes(2))) func aSchedulerStartsATaskAddedElsewhereWithoutWaitingForItsTick()
        async throws
    {
        let server = try LoopbackServer()
        server.serve("/f.bin", Resource(size: 50_000, seed: 3))
        let uri = try PostgresTestCluster.freshLedger("wake")
        let box = try Sandbox()
        let ledger = try Ledger(path: uri, creatingWithDirectory: box.downloads)
        let scheduler = try Scheduler(ledger: ledger)
        scheduler.tick = .seconds(3600)
        let running = Task { try await scheduler.run() }
        // The scheduler's first pass has run once its follower holds the head (a pass follows every wake).
        try await Task.sleep(for: .milliseconds(300))
        let other = try Ledger(path: uri)
        let started = ContinuousClock.now
        let id = try other.add([server.url("/f.bin")])[0]
        var finished = false
        while ContinuousClock.now - started < .seconds(20) {
            _ = try other.refresh()
            if other.list.tasks[id]?.state == .finished {
                finished = true
                break
            }
            try await Task.sleep(for: .milliseconds(10))
        }
        let took = ContinuousClock.now - started
        scheduler.requestStop()
        try await running.value
        #expect(finished, "not finished after \(took)")
        #expect(took < .seconds(10))
        #expect(box.holds("f.bin", seed: 3, size: 50_000))
    }
}
