import Foundation
import LoopbackHTTP
import Testing

@testable import LedgerTransfer

extension SegmentTests {
    /// The piece map on the partial file of `request`, read as the engine reads it.
    static func pieceMap(_ request: TransferRequest) throws -> PieceMap? {
        try PartialFile(request: request).readPieces()?.get()
    }

    @Test func aStoppedSegmentedTransferResumesEveryHoleWithItsOwnRange() async throws {
        let first = try Harness(config: Self.config())
        defer { first.close() }
        var faults = Faults()
        // Slow enough that the cut comes with holes left even on a quiet machine (at 1 MB/s a connection, eight of
        // them had nearly all of it by then).
        faults.throttleBytesPerSecond = 400_000
        let resource = Resource(size: 6_000_011, seed: 31, etag: "\"r1\"", faults: faults)
        first.server.serve("/r.bin", resource)
        let request = first.request(7, "/r.bin")

        first.engine.start(request)
        #expect(
            await Harness.eventually { Self.connectionDetails(first, 7).contains { $0.hasPrefix("split") } })
        try await Task.sleep(for: .milliseconds(600))
        first.engine.cancel(id: 7)
        guard case .stopped(_, let kept) = await first.events.terminal(7) else {
            Issue.record("not stopped")
            return
        }
        first.engine.shutdown()
        let map = try #require(try Self.pieceMap(request))
        #expect(map.doneBytes == kept)
        let holes = map.missing
        #expect(holes.count >= 4)
        let asked = first.server.requests("/r.bin").count

        // A new engine, as after a crash: each hole is asked for with its own Range, nothing already kept again.
        let engine = try TransferEngine(config: Self.config())
        defer { engine.shutdown() }
        let events = EventRecorder(engine)
        var resumed = request
        resumed.validator = "\"r1\""
        engine.start(resumed)
        let event = await events.terminal(7)

        guard case .completed(_, 6_000_011, _, let name) = event else {
            Issue.record("ended with \(String(describing: event))")
            return
        }
        let same = first.holds(name, resource.body.allBytes)
        #expect(same)
        #expect(events.of(7).first == .started(id: 7, attempt: 1, offset: kept))
        let later = first.server.requests("/r.bin").dropFirst(asked)
        let ranges = later.compactMap { $0.range.flatMap(Self.bounded) }
        #expect(ranges.count == later.count)
        #expect(later.allSatisfy { $0.ifRange == "\"r1\"" })
        for hole in holes {
            #expect(ranges.contains { $0.lowerBound == hole.lowerBound })
        }
        for range in ranges {
            #expect(!map.done.contains { $0.overlaps(range) })
        }
    }

    @Test func aHoleyPartialWhoseFileChangedOnTheServerRestartsFromZero() async throws {
        let h = try Harness(config: Self.config())
        defer { h.close() }
        var faults = Faults()
        faults.throttleBytesPerSecond = 400_000
        let old = Resource(size: 3_000_000, seed: 32, etag: "\"o\"", faults: faults)
        h.server.serve("/v.bin", old)
        var request = h.request(8, "/v.bin")

        h.engine.start(request)
        #expect(await Harness.eventually { Self.connectionDetails(h, 8).contains { $0.hasPrefix("split") } })
        try await Task.sleep(for: .milliseconds(300))
        h.engine.cancel(id: 8)
        _ = await h.events.terminal(8)
        #expect(try Self.pieceMap(request)?.missing.count ?? 0 >= 2)

        let new = Resource(size: 3_000_000, seed: 33, etag: "\"n\"")
        h.server.serve("/v.bin", new)
        request.validator = "\"o\""
        h.engine.start(request)
        let event = await h.events.terminal(8, after: 1)

        guard case .completed(_, 3_000_000, _, let name) = event else {
            Issue.record("ended with \(String(describing: event))")
            return
        }
        let same = h.holds(name, new.body.allBytes)
        #expect(same)
        #expect(h.events.restartReasons(8) == ["validator changed (\"o\" -> \"n\")"])
    }

    @Test func aPieceMapThatCannotBeTrustedStartsTheFileOver() async throws {
        let h = try Harness(config: Self.config())
        defer { h.close() }
        let resource = Resource(size: 400_000, seed: 34, etag: "\"m\"")
        h.server.serve("/m.bin", resource)
        var request = h.request(9, "/m.bin")
        request.validator = "\"m\""
        try h.writePartial(9, [UInt8](repeating: 0, count: 300_000))
        let file = try PartialFile(request: request)
        let bogus = Array("dledger-pieces 1\n400000\n0-100000\n50000-200000\n".utf8)
        try file.writePieces(bytes: bogus)

        let event = await h.run(request)

        guard case .completed(_, 400_000, _, let name) = event else {
            Issue.record("ended with \(String(describing: event))")
            return
        }
        let same = h.holds(name, resource.body.allBytes)
        #expect(same)
        #expect(h.events.restartReasons(9).first?.hasPrefix("piece map not usable") == true)
        #expect(h.server.requests("/m.bin").first?.range == nil)
    }
}
