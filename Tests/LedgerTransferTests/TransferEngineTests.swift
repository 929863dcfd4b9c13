import Foundation
import LedgerTransfer
import LoopbackHTTP
import Synchronization
import Testing

@Suite struct TransferEngineTests {
    @Test func downloadsAWholeFileByteIdenticalWithItsSHA256() async throws {
        let h = try Harness()
        defer { h.close() }
        let resource = Resource(size: 3_000_000, seed: 1, etag: "\"e1\"")
        h.server.serve("/a.bin", resource)
        let expected = resource.body.allBytes
        let sha = try await Harness.sha256sum(expected)

        let event = await h.run(h.request(1, "/a.bin", sha256: sha))

        #expect(event == .completed(id: 1, bytes: 3_000_000, sha256: sha, fileName: "a.bin"))
        #expect(h.holds("a.bin", expected))
        #expect(!h.partialExists(1))
        #expect(h.visibleFiles() == ["a.bin"])
        let resolved = h.events.of(1).first { if case .resolved = $0 { true } else { false } }
        #expect(
            resolved
                == .resolved(
                    id: 1, size: 3_000_000, serverName: nil, etag: "\"e1\"", lastModified: nil,
                    acceptsRanges: true,
                    restartedFromZero: nil))
        let request = try #require(h.server.requests("/a.bin").first)
        #expect(request.headers["user-agent"] == "DownloadLedger/0.1 (+libcurl)")
        #expect(request.range == nil)
    }

    @Test func runsSeveralTransfersInParallel() async throws {
        let h = try Harness()
        defer { h.close() }
        for n in 1...4 {
            h.server.serve("/f\(n).bin", Resource(size: Int64(n) * 400_000, seed: UInt64(n)))
        }
        for n in 1...4 {
            h.engine.start(h.request(Int64(n), "/f\(n).bin"))
        }
        for n in 1...4 {
            let event = await h.events.terminal(Int64(n))
            guard case .completed(_, let bytes, _, let name) = event else {
                Issue.record("transfer \(n) ended with \(String(describing: event))")
                continue
            }
            #expect(bytes == Int64(n) * 400_000)
            #expect(h.holds(name, Body.generated(size: Int64(n) * 400_000, seed: UInt64(n)).allBytes))
        }
        #expect(h.engine.running.isEmpty)
    }

    /// With `onEvent`, every event of every transfer reaches the handler on the engine's threads, in order per id.
    @Test func anEventHandlerTakesEveryEventInOrder() async throws {
        let server = try LoopbackServer()
        defer { server.stop() }
        let root = try Harness.makeTemporaryDirectory()
        defer { try? FileManager.default.removeItem(atPath: root) }
        for n in 1...3 { server.serve("/h\(n).bin", Resource(size: 300_000, seed: UInt64(n))) }
        let received = Mutex<[TransferEvent]>([])
        let engine = try TransferEngine(
            config: Harness.fastConfig,
            onEvent: { event in
                received.withLock { $0.append(event) }
            })
        defer { engine.shutdown() }
        for n in 1...3 {
            engine.start(TransferRequest(id: Int64(n), url: server.url("/h\(n).bin"), directory: root))
        }
        let ended = await Harness.eventually {
            received.withLock { events in events.filter(\.isTerminal).count == 3 }
        }
        #expect(ended)
        for n in Int64(1)...3 {
            let kinds = received.withLock { $0.filter { $0.id == n } }.map { event -> String in
                switch event {
                case .started: "started"
                case .resolved: "resolved"
                case .received: "received"
                case .completed: "completed"
                default: "other: \(event)"
                }
            }
            #expect(kinds == ["started", "resolved", "received", "completed"], "transfer \(n)")
        }
        #expect(engine.running.isEmpty)
    }

    @Test func followsARedirectAndNamesTheFileAfterTheTarget() async throws {
        let h = try Harness()
        defer { h.close() }
        h.server.serve("/latest", Resource(redirect: (302, "/release-2.tar.gz")))
        h.server.serve("/release-2.tar.gz", Resource(size: 10_000, seed: 4))

        let event = await h.run(h.request(1, "/latest"))

        guard case .completed(_, _, _, let name) = event else {
            Issue.record("ended with \(String(describing: event))")
            return
        }
        #expect(name == "release-2.tar.gz")
        #expect(h.holds(name, Body.generated(size: 10_000, seed: 4).allBytes))
    }

    @Test func failsWhenRedirectsExceedTheLimit() async throws {
        var config = Harness.fastConfig
        config.maxRedirects = 2
        let h = try Harness(config: config)
        defer { h.close() }
        h.server.serve("/r1", Resource(redirect: (302, "/r2")))
        h.server.serve("/r2", Resource(redirect: (302, "/r3")))
        h.server.serve("/r3", Resource(redirect: (302, "/r1")))

        let event = await h.run(h.request(1, "/r1"))

        #expect(event == .failed(id: 1, reason: .tooManyRedirects, retryable: false, bytes: 0))
    }

    @Test func refusesAURLThatIsNotHTTP() async throws {
        let h = try Harness()
        defer { h.close() }
        let request = TransferRequest(id: 1, url: "file:///etc/passwd", directory: h.directory)

        let event = await h.run(request)

        #expect(
            event == .failed(id: 1, reason: .invalidURL("file:///etc/passwd"), retryable: false, bytes: 0))
        #expect(h.visibleFiles().isEmpty)
    }

    @Test func ignoresAStartOfARunningId() async throws {
        let h = try Harness()
        defer { h.close() }
        var faults = Faults()
        faults.throttleBytesPerSecond = 2_000_000
        h.server.serve("/a.bin", Resource(size: 400_000, seed: 1, faults: faults))

        h.engine.start(h.request(1, "/a.bin"))
        h.engine.start(h.request(1, "/a.bin"))
        #expect(h.engine.running == [1])
        let event = await h.events.terminal(1)

        guard case .completed = event else {
            Issue.record("ended with \(String(describing: event))")
            return
        }
        #expect(h.events.startedAttempts(1) == [1])
        #expect(h.server.requests("/a.bin").count == 1)
        #expect(h.engine.running.isEmpty)
    }

    @Test func reportsActivityWhileRunning() async throws {
        let h = try Harness()
        defer { h.close() }
        var faults = Faults()
        faults.throttleBytesPerSecond = 1_000_000
        h.server.serve("/slow.bin", Resource(size: 1_000_000, seed: 2, faults: faults))

        h.engine.start(h.request(1, "/slow.bin"))
        var seen: TransferActivity?
        for await snapshot in h.engine.activityUpdates {
            // Never waits forever: once the transfer has ended, one more (empty) snapshot comes.
            if !h.engine.running.contains(1) { break }
            if let activity = snapshot.first, activity.bytes > 0, activity.expected != nil {
                seen = activity
                break
            }
        }
        h.engine.cancel(id: 1)
        _ = await h.events.terminal(1)

        let activity = try #require(seen)
        #expect(activity.id == 1)
        #expect(activity.expected == 1_000_000)
        #expect(activity.detail.hasSuffix(" / 1.0 MB"))
    }
}
