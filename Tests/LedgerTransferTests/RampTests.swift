import Foundation
import LedgerTransfer
import LoopbackHTTP
import Testing

/// The ramp of a transfer's connections when no count was asked, against LoopbackHTTP: it stops adding when the
/// connections it added bring nothing (a total that is capped), and says so in its facts.
@Suite struct RampTests {
    /// The `.connections` facts of `id`: count and detail, in order.
    static func facts(_ h: Harness, _ id: Int64) -> [(count: Int, detail: String)] {
        h.events.of(id).compactMap {
            if case .connections(_, let n, let detail) = $0 { (n, detail) } else { nil }
        }
    }

    /// Each connection is held to 1 MB/s by the server and all of them together to 2 MB/s by the engine's own limit
    /// (a full link): the four connections of the first step bring no more than two would, so the ramp holds
    /// below them instead of going on to sixteen.
    @Test func aCappedTotalStopsTheRamp() async throws {
        var config = Harness.fastConfig
        config.speedLimit = 2_000_000
        config.minPieceSize = 64 * 1024
        let h = try Harness(config: config)
        defer { h.close() }
        let resource = Resource(
            size: 3_000_000, seed: 71, etag: "\"t1\"", faults: Faults(throttleBytesPerSecond: 1_000_000))
        h.server.serve("/t.bin", resource)

        let event = await h.run(h.request(1, "/t.bin"))

        guard case .completed(_, 3_000_000, _, let name) = event else {
            Issue.record("ended with \(String(describing: event))")
            return
        }
        let same = h.holds(name, resource.body.allBytes)
        #expect(same)
        let facts = Self.facts(h, 1)
        #expect(facts.first?.detail.hasPrefix("split into 4 connections") == true, "\(facts)")
        let hold = facts.first { $0.detail.hasPrefix("holding ") }
        #expect(hold.map { $0.count <= 4 && !$0.detail.contains("the most allowed") } == true, "\(facts)")
    }

    /// A count asked (``TransferConfig/splitAtOnce``) is not ramped: the transfer splits into it at once and no
    /// ramp fact follows.
    @Test func aCountAskedIsNotRamped() async throws {
        var config = Harness.fastConfig
        config.connectionsPerTask = 6
        config.splitAtOnce = true
        config.minPieceSize = 64 * 1024
        let h = try Harness(config: config)
        defer { h.close() }
        let resource = Resource(
            size: 2_000_000, seed: 72, etag: "\"t2\"", faults: Faults(throttleBytesPerSecond: 1_000_000))
        h.server.serve("/u.bin", resource)

        let event = await h.run(h.request(2, "/u.bin"))

        guard case .completed(_, 2_000_000, _, let name) = event else {
            Issue.record("ended with \(String(describing: event))")
            return
        }
        let same = h.holds(name, resource.body.allBytes)
        #expect(same)
        let details = Self.facts(h, 2).map(\.detail)
        #expect(details.first?.hasPrefix("split into 6 connections") == true, "\(details)")
        #expect(!details.contains { $0.hasPrefix("ramped") || $0.hasPrefix("holding") }, "\(details)")
    }
}
