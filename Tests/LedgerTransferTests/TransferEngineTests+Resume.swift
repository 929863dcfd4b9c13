import Foundation
import LedgerTransfer
import LoopbackHTTP
import Testing

extension TransferEngineTests {
    @Test func resumesOnANewEngineFromThePartialFileAfterCancel() async throws {
        let first = try Harness()
        defer { first.close() }
        var faults = Faults()
        faults.throttleBytesPerSecond = 2_000_000
        let resource = Resource(size: 2_000_000, seed: 9, etag: "\"v1\"", faults: faults)
        first.server.serve("/big.bin", resource)

        first.engine.start(first.request(5, "/big.bin"))
        #expect(await Harness.eventually { first.partialSize(5) >= 200_000 })
        first.engine.cancel(id: 5)
        let stopped = await first.events.terminal(5)
        guard case .stopped(_, let kept) = stopped else {
            Issue.record("ended with \(String(describing: stopped))")
            return
        }
        #expect(kept > 0 && kept < 2_000_000)
        #expect(first.partialSize(5) == kept)
        first.engine.shutdown()

        // A new engine, as after a crash: the partial file's size is the offset.
        let engine = try TransferEngine(config: Harness.fastConfig)
        defer { engine.shutdown() }
        let events = EventRecorder(engine)
        var request = first.request(5, "/big.bin")
        request.validator = "\"v1\""
        engine.start(request)
        let event = await events.terminal(5)

        guard case .completed(_, let bytes, let sha256, let name) = event else {
            Issue.record("ended with \(String(describing: event))")
            return
        }
        #expect(bytes == 2_000_000)
        #expect(events.of(5).first == .started(id: 5, attempt: 1, offset: kept))
        let last = try #require(first.server.requests("/big.bin").last)
        #expect(last.range == "bytes=\(kept)-")
        #expect(last.ifRange == "\"v1\"")
        #expect(first.holds(name, resource.body.allBytes))
        #expect(sha256 == (try await Harness.sha256sum(resource.body.allBytes)))
    }

    @Test func restartsFromZeroWhenTheServerIgnoresRange() async throws {
        let h = try Harness()
        defer { h.close() }
        var faults = Faults()
        faults.ignoreRange = true
        let resource = Resource(size: 500_000, seed: 3, faults: faults)
        h.server.serve("/a.bin", resource)
        try h.writePartial(1, resource.body.bytes(in: 0..<100_000))

        let event = await h.run(h.request(1, "/a.bin"))

        guard case .completed(_, 500_000, let sha256, let name) = event else {
            Issue.record("ended with \(String(describing: event))")
            return
        }
        #expect(h.server.requests("/a.bin").map(\.range) == ["bytes=100000-"])
        #expect(h.events.restartReasons(1) == ["server ignored Range; one connection from now on"])
        #expect(h.holds(name, resource.body.allBytes))
        #expect(sha256 == (try await Harness.sha256sum(resource.body.allBytes)))
    }

    @Test func restartsFromZeroWhenTheValidatorChanged() async throws {
        let h = try Harness()
        defer { h.close() }
        let old = Resource(size: 300_000, seed: 1, etag: "\"v1\"")
        let new = Resource(size: 300_000, seed: 2, etag: "\"v2\"")
        h.server.serve("/a.bin", new)
        try h.writePartial(1, old.body.bytes(in: 0..<120_000))
        var request = h.request(1, "/a.bin")
        request.validator = "\"v1\""

        let event = await h.run(request)

        guard case .completed(_, _, let sha256, let name) = event else {
            Issue.record("ended with \(String(describing: event))")
            return
        }
        let sent = try #require(h.server.requests("/a.bin").first)
        #expect(sent.ifRange == "\"v1\"")
        #expect(h.events.restartReasons(1).first?.hasPrefix("validator changed") == true)
        #expect(h.holds(name, new.body.allBytes))
        #expect(sha256 == (try await Harness.sha256sum(new.body.allBytes)))
    }

    @Test func treatsA416OnACompletePartialAsDone() async throws {
        let h = try Harness()
        defer { h.close() }
        let resource = Resource(size: 200_000, seed: 6)
        h.server.serve("/a.bin", resource)
        try h.writePartial(1, resource.body.allBytes)

        let event = await h.run(h.request(1, "/a.bin"))

        guard case .completed(_, 200_000, let sha256, let name) = event else {
            Issue.record("ended with \(String(describing: event))")
            return
        }
        #expect(h.server.requests("/a.bin").map(\.range) == ["bytes=200000-"])
        #expect(h.holds(name, resource.body.allBytes))
        #expect(sha256 == (try await Harness.sha256sum(resource.body.allBytes)))
    }

    @Test func restartsFromZeroOnceWhenThePartialIsBiggerThanTheRemoteFile() async throws {
        let h = try Harness()
        defer { h.close() }
        let resource = Resource(size: 200_000, seed: 6)
        h.server.serve("/a.bin", resource)
        try h.writePartial(1, [UInt8](repeating: 7, count: 250_000))

        let event = await h.run(h.request(1, "/a.bin"))

        guard case .completed(_, 200_000, let sha256, let name) = event else {
            Issue.record("ended with \(String(describing: event))")
            return
        }
        #expect(h.server.requests("/a.bin").map(\.range) == ["bytes=250000-", nil])
        #expect(h.events.startedAttempts(1) == [1, 2])
        #expect(h.events.restartReasons(1).first?.hasPrefix("range not satisfiable") == true)
        #expect(h.holds(name, resource.body.allBytes))
        #expect(sha256 == (try await Harness.sha256sum(resource.body.allBytes)))
    }

    @Test func resumesAfterALyingContentLength() async throws {
        let h = try Harness()
        defer { h.close() }
        var faults = Faults()
        faults.lieContentLength = 150_000
        let resource = Resource(size: 100_000, seed: 8, faults: faults)
        h.server.serve("/a.bin", resource)

        let event = await h.run(h.request(1, "/a.bin"))

        guard case .completed(_, 100_000, let sha256, let name) = event else {
            Issue.record("ended with \(String(describing: event))")
            return
        }
        #expect(h.events.of(1).contains(.started(id: 1, attempt: 2, offset: 100_000)))
        #expect(h.server.requests("/a.bin").last?.range == "bytes=100000-")
        #expect(h.holds(name, resource.body.allBytes))
        #expect(sha256 == (try await Harness.sha256sum(resource.body.allBytes)))
    }

    @Test func resumesADroppedConnectionWithRange() async throws {
        let h = try Harness()
        defer { h.close() }
        var faults = Faults()
        faults.dropAfterBytes = 100_000
        faults.dropTimes = 2
        let resource = Resource(size: 400_000, seed: 5, faults: faults)
        h.server.serve("/a.bin", resource)

        let event = await h.run(h.request(1, "/a.bin"))

        guard case .completed(_, 400_000, let sha256, let name) = event else {
            Issue.record("ended with \(String(describing: event))")
            return
        }
        #expect(h.events.startedAttempts(1) == [1, 2, 3])
        #expect(h.server.requests("/a.bin").map(\.range) == [nil, "bytes=100000-", "bytes=200000-"])
        #expect(h.holds(name, resource.body.allBytes))
        #expect(sha256 == (try await Harness.sha256sum(resource.body.allBytes)))
    }
}
