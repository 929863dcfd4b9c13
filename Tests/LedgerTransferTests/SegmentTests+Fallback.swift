import Foundation
import LedgerTransfer
import LoopbackHTTP
import Testing

/// Servers that say they take ranges and then do not: the transfer goes on one connection from zero, finishes, and
/// says why once; a mirror doing it is dropped while another source is left.
extension SegmentTests {
    /// A throttled resource of `size` bytes with `lie` applied to its faults.
    static func liar(_ size: Int64, seed: UInt64, _ lie: (inout Faults) -> Void) -> Resource {
        var faults = Faults()
        faults.throttleBytesPerSecond = 3_000_000
        lie(&faults)
        return Resource(size: size, seed: seed, etag: "\"l\"", faults: faults)
    }

    static func ignoresAdvertisedRanges(_ faults: inout Faults) {
        faults.ignoreRange = true
        faults.advertiseIgnoredRange = true
    }

    /// Runs `path` on `h` to its end and checks what a user would: the file complete and byte-identical, the
    /// restart's reason told once, one split at most, and no ranged request after the fallback.
    static func expectsFallback(
        _ h: Harness, _ id: Int64, _ path: String, _ resource: Resource, why: String
    ) async throws {
        let event = await h.run(h.request(id, path))

        guard case .completed(_, let bytes, _, let name) = event else {
            Issue.record("ended with \(String(describing: event))")
            return
        }
        #expect(bytes == resource.body.count)
        let same = h.holds(name, resource.body.allBytes)
        #expect(same)
        #expect(h.events.restartReasons(id) == [why + "; one connection from now on"])
        let details = connectionDetails(h, id)
        #expect(details.filter { $0.hasPrefix("split into") }.count == 1, "\(details)")
        #expect(!details.contains { $0.contains(why) }, "the reason is told once: \(details)")
        // Two requests ask the whole file, without Range: the first and the fallback's (pieces cut off by the
        // fallback may reach the server after it). The transfer never failed.
        #expect(h.server.requests(path).filter { $0.range == nil }.count == 2)
        #expect(!h.events.of(id).contains { if case .failed = $0 { true } else { false } })
    }

    @Test func aServerThatAdvertisesRangesAndAnswersThemWith200FallsBackToOneConnection() async throws {
        let h = try Harness(config: Self.config())
        defer { h.close() }
        let resource = Self.liar(2_500_000, seed: 61, Self.ignoresAdvertisedRanges)
        h.server.serve("/i.bin", resource)
        try await Self.expectsFallback(h, 1, "/i.bin", resource, why: "server ignored Range")
    }

    @Test func aServerThatAnswersAnotherRangeFallsBackToOneConnection() async throws {
        let h = try Harness(config: Self.config())
        defer { h.close() }
        let resource = Self.liar(2_500_000, seed: 62) { $0.shiftRange = 1000 }
        h.server.serve("/r.bin", resource)
        let event = await h.run(h.request(2, "/r.bin"))

        guard case .completed(_, 2_500_000, _, let name) = event else {
            Issue.record("ended with \(String(describing: event))")
            return
        }
        let same = h.holds(name, resource.body.allBytes)
        #expect(same)
        let reasons = h.events.restartReasons(2)
        #expect(reasons.count == 1)
        #expect(reasons.first?.hasPrefix("server sent a range not starting at ") == true, "\(reasons)")
        #expect(reasons.first?.hasSuffix("; one connection from now on") == true)
        #expect(h.server.requests("/r.bin").filter { $0.range == nil }.count == 2)
    }

    @Test func aServerThatAnswersRangesWithAnotherTotalFallsBackToOneConnection() async throws {
        let h = try Harness(config: Self.config())
        defer { h.close() }
        let resource = Self.liar(2_500_000, seed: 63) { $0.contentRangeTotal = 9_999_999 }
        h.server.serve("/t.bin", resource)
        try await Self.expectsFallback(
            h, 3, "/t.bin", resource, why: "size changed (2500000 -> 9999999 bytes)")
    }

    /// The downloader's own defaults: one connection until it proves slow (below 64 MB/s over 0.2 s), then up to
    /// eight. The fault of issue 26: split, restarted, split again, failed "range not satisfiable".
    @Test func theDefaultSettingsFallBackToo() async throws {
        let h = try Harness(config: Harness.fastConfig)
        defer { h.close() }
        // Twice the default 1 MiB piece must be left when it proves slow.
        let resource = Self.liar(6_000_000, seed: 64, Self.ignoresAdvertisedRanges)
        h.server.serve("/d.bin", resource)
        try await Self.expectsFallback(h, 4, "/d.bin", resource, why: "server ignored Range")
    }

    /// A connection cut after the fallback is asked again from zero (its server's ranges are not trusted), and
    /// the transfer, stopped and started again in the same engine, goes on the same way: one connection from
    /// zero, no Range, no split, and no second reason in the log.
    @Test func afterTheFallbackNothingIsSplitOrAskedWithRangeAgain() async throws {
        let h = try Harness(config: Self.config())
        defer { h.close() }
        var resource = Self.liar(3_000_000, seed: 65, Self.ignoresAdvertisedRanges)
        // Slow enough (3 s) to be stopped halfway.
        resource.faults.throttleBytesPerSecond = 1_000_000
        h.server.serve("/s.bin", resource)
        let request = h.request(5, "/s.bin")

        h.engine.start(request)
        #expect(await Harness.eventually { !h.events.restartReasons(5).isEmpty })
        try await Task.sleep(for: .milliseconds(300))
        h.engine.cancel(id: 5)
        guard case .stopped(_, let kept) = await h.events.terminal(5) else {
            Issue.record("not stopped")
            return
        }
        #expect(kept > 0)
        let before = Self.connectionDetails(h, 5).count
        // Now the server cuts its next response once: the retry asks the whole file again, without Range.
        resource.faults.dropAfterBytes = 200_000
        resource.faults.throttleBytesPerSecond = 3_000_000
        h.server.serve("/s.bin", resource)
        let asked = h.server.requests("/s.bin").count
        h.engine.start(request)
        let event = await h.events.terminal(5, after: 1)

        guard case .completed(_, 3_000_000, _, let name) = event else {
            Issue.record("ended with \(String(describing: event))")
            return
        }
        let same = h.holds(name, resource.body.allBytes)
        #expect(same)
        let later = Self.connectionDetails(h, 5).dropFirst(before)
        #expect(!later.contains { $0.hasPrefix("split into") }, "\(later)")
        let ranges = h.server.requests("/s.bin").dropFirst(asked).map(\.range)
        #expect(ranges.count >= 2 && ranges.allSatisfy { $0 == nil }, "\(ranges)")
        #expect(h.events.of(5).contains { if case .retrying = $0 { true } else { false } })
        #expect(h.events.of(5).contains(.started(id: 5, attempt: 1, offset: 0)))
        #expect(h.events.restartReasons(5).count == 1)
    }

    /// A mirror that ignores ranges is dropped while another source is left; the file completes from the others.
    @Test func aMirrorThatIgnoresRangesIsDroppedWhileAnotherIsLeft() async throws {
        let h = try Harness(config: Self.config())
        defer { h.close() }
        let good = Self.liar(3_000_000, seed: 66) { _ in }
        var bad = good
        Self.ignoresAdvertisedRanges(&bad.faults)
        h.server.serve("/a/m.bin", good)
        h.server.serve("/b/m.bin", bad)

        let event = await h.run(Self.request(h, 6, "/a/m.bin", mirrors: ["/b/m.bin"]))

        guard case .completed(_, 3_000_000, _, let name) = event else {
            Issue.record("ended with \(String(describing: event))")
            return
        }
        let same = h.holds(name, good.body.allBytes)
        #expect(same)
        let details = Self.connectionDetails(h, 6)
        #expect(details.contains { $0.contains("/b/m.bin: server ignored Range") }, "\(details)")
        #expect(h.events.restartReasons(6).isEmpty)
        // Pieces kept coming from the good URL after the drop: the file was not restarted.
        #expect(h.server.requests("/a/m.bin").filter { $0.range != nil }.count >= 2)
    }

    /// Every source ignores ranges: all but the last are dropped, and the last serves the whole file on one
    /// connection.
    @Test func theLastSourceThatIgnoresRangesServesTheFileOnOneConnection() async throws {
        let h = try Harness(config: Self.config())
        defer { h.close() }
        let resource = Self.liar(3_000_000, seed: 67, Self.ignoresAdvertisedRanges)
        h.server.serve("/a/l.bin", resource)
        h.server.serve("/b/l.bin", resource)

        let event = await h.run(Self.request(h, 7, "/a/l.bin", mirrors: ["/b/l.bin"]))

        guard case .completed(_, 3_000_000, _, let name) = event else {
            Issue.record("ended with \(String(describing: event))")
            return
        }
        let same = h.holds(name, resource.body.allBytes)
        #expect(same)
        let details = Self.connectionDetails(h, 7)
        #expect(details.filter { $0.hasPrefix("dropped ") }.count == 1, "\(details)")
        #expect(h.events.restartReasons(7) == ["server ignored Range; one connection from now on"])
    }
}
