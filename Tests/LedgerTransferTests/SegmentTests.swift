import Foundation
import LedgerTransfer
import LoopbackHTTP
import Testing

/// Segmented transfers against LoopbackHTTP: the pieces reassemble byte-identical, whatever the sizes, a stalled
/// connection, a restart or a server that changed.
@Suite struct SegmentTests {
    /// Splits after a short probe straight into `connections` (no ramp), into pieces of at least `minPiece`.
    static func config(connections: Int = 8, minPiece: Int64 = 64 * 1024) -> TransferConfig {
        var config = Harness.fastConfig
        config.connectionsPerTask = connections
        config.minPieceSize = minPiece
        config.splitProbe = 0.02
        config.rampConnections = false
        config.splitBelowSpeed = .infinity
        return config
    }

    /// The `Range` headers the server saw for `path`, in order.
    static func ranges(_ h: Harness, _ path: String) -> [String] {
        h.server.requests(path).compactMap(\.range)
    }

    /// `bytes=a-b` as a range `a..<b+1`; nil for an open or other form.
    static func bounded(_ header: String) -> Range<Int64>? {
        guard header.hasPrefix("bytes=") else { return nil }
        let bounds = header.dropFirst(6).split(separator: "-", omittingEmptySubsequences: false)
        guard bounds.count == 2, let first = Int64(bounds[0]), let last = Int64(bounds[1]) else { return nil }
        return first..<(last + 1)
    }

    static func connectionDetails(_ h: Harness, _ id: Int64) -> [String] {
        h.events.of(id).compactMap { if case .connections(_, _, let detail) = $0 { detail } else { nil } }
    }

    @Test func anUnevenFileOverEightConnectionsIsByteIdentical() async throws {
        let h = try Harness(config: Self.config())
        defer { h.close() }
        var faults = Faults()
        faults.throttleBytesPerSecond = 1_500_000
        let resource = Resource(size: 3_000_037, seed: 21, etag: "\"p1\"", faults: faults)
        h.server.serve("/a.bin", resource)
        let sha = try await Harness.sha256sum(resource.body.allBytes)

        let event = await h.run(h.request(1, "/a.bin", sha256: sha))

        #expect(event == .completed(id: 1, bytes: 3_000_037, sha256: sha, fileName: "a.bin"))
        let same = h.holds("a.bin", resource.body.allBytes)
        #expect(same)
        let pieces = Self.ranges(h, "/a.bin").compactMap(Self.bounded)
        #expect(pieces.count >= 7)
        // Every piece asked with If-Range, none asked twice: two asked ranges overlap only where a connection took
        // over the rest of another's piece (which was cut there), so they end together and start apart. (In either
        // order: the server logs a request when it arrives, and a piece's own request can arrive after the one
        // that took over its second half, when its connection was slower to open.)
        #expect(h.server.requests("/a.bin").dropFirst().allSatisfy { $0.ifRange == "\"p1\"" })
        for (i, a) in pieces.enumerated() {
            for b in pieces[(i + 1)...] where a.overlaps(b) {
                #expect(a.upperBound == b.upperBound && a.lowerBound != b.lowerBound, "\(a) and \(b)")
            }
        }
        #expect(Self.connectionDetails(h, 1).contains { $0.hasPrefix("split into 8 connections") })
        #expect(Self.connectionDetails(h, 1).last?.hasPrefix("8 connections; 127.0.0.1:") == true)
        #expect(!h.partialExists(1))
        let attributes = try FileManager.default.attributesOfItem(atPath: h.directory + "/a.bin")
        #expect((attributes[.size] as? NSNumber)?.int64Value == 3_000_037)
    }

    @Test func aFileOfFewMinimumPiecesUsesNoMoreConnectionsThanPieces() async throws {
        let h = try Harness(config: Self.config(connections: 16, minPiece: 256 * 1024))
        defer { h.close() }
        var faults = Faults()
        faults.throttleBytesPerSecond = 2_000_000
        // Five minimum pieces and a bit: at most five pieces, however many connections are allowed.
        let resource = Resource(size: 5 * 256 * 1024 + 4321, seed: 22, faults: faults)
        h.server.serve("/b.bin", resource)

        let event = await h.run(h.request(2, "/b.bin"))

        guard case .completed(_, _, _, let name) = event else {
            Issue.record("ended with \(String(describing: event))")
            return
        }
        let same = h.holds(name, resource.body.allBytes)
        #expect(same)
        let split = Self.connectionDetails(h, 2).first { $0.hasPrefix("split into ") }
        let count = split.flatMap { Int($0.dropFirst(11).prefix { $0 != " " }) }
        #expect(count.map { $0 >= 2 && $0 <= 5 } == true)
    }

    @Test func aFileBelowTwoMinimumPiecesStaysOnOneConnection() async throws {
        let h = try Harness(config: Self.config(minPiece: 512 * 1024))
        defer { h.close() }
        var faults = Faults()
        faults.throttleBytesPerSecond = 2_000_000
        let resource = Resource(size: 900_000, seed: 23, faults: faults)
        h.server.serve("/c.bin", resource)

        let event = await h.run(h.request(3, "/c.bin"))

        guard case .completed(_, 900_000, _, let name) = event else {
            Issue.record("ended with \(String(describing: event))")
            return
        }
        let same = h.holds(name, resource.body.allBytes)
        #expect(same)
        #expect(h.server.requests("/c.bin").count == 1)
    }

    @Test func aStalledConnectionsPieceIsTakenOverAndTheFileCompletes() async throws {
        let h = try Harness(config: Self.config(connections: 4))
        defer { h.close() }
        var faults = Faults()
        // The first response (the one the transfer starts on) stalls after 300 KB and never sends more.
        faults.stallAfterBytes = 300_000
        faults.stallTimes = 1
        faults.throttleBytesPerSecond = 4_000_000
        let resource = Resource(size: 2_000_000, seed: 24, etag: "\"s\"", faults: faults)
        h.server.serve("/d.bin", resource)

        let began = Date()
        let event = await h.run(h.request(4, "/d.bin"))

        guard case .completed(_, 2_000_000, _, let name) = event else {
            Issue.record("ended with \(String(describing: event))")
            return
        }
        let same = h.holds(name, resource.body.allBytes)
        #expect(same)
        // Taken over, not waited out: the stalled connection would time out only after lowSpeedTime (10 s).
        #expect(Date().timeIntervalSince(began) < 8)
        #expect(!h.events.of(4).contains { if case .retrying = $0 { true } else { false } })
    }

    @Test func aServerWithoutRangesStaysOnOneConnectionAndTheLogSaysWhy() async throws {
        let h = try Harness(config: Self.config())
        defer { h.close() }
        var faults = Faults()
        faults.ignoreRange = true
        faults.throttleBytesPerSecond = 4_000_000
        let resource = Resource(size: 1_000_000, seed: 25, faults: faults)
        h.server.serve("/e.bin", resource)

        let event = await h.run(h.request(5, "/e.bin"))

        guard case .completed(_, 1_000_000, _, let name) = event else {
            Issue.record("ended with \(String(describing: event))")
            return
        }
        let same = h.holds(name, resource.body.allBytes)
        #expect(same)
        #expect(h.server.requests("/e.bin").count == 1)
        #expect(Self.connectionDetails(h, 5) == ["one connection: server does not accept ranges"])
    }

    @Test func anUnknownSizeStaysOnOneConnectionAndTheLogSaysWhy() async throws {
        let h = try Harness(config: Self.config())
        defer { h.close() }
        var faults = Faults()
        faults.throttleBytesPerSecond = 4_000_000
        let resource = Resource(size: 1_000_000, seed: 26, chunked: true, faults: faults)
        h.server.serve("/f.bin", resource)

        let event = await h.run(h.request(6, "/f.bin"))

        guard case .completed(_, 1_000_000, _, let name) = event else {
            Issue.record("ended with \(String(describing: event))")
            return
        }
        let same = h.holds(name, resource.body.allBytes)
        #expect(same)
        #expect(Self.connectionDetails(h, 6) == ["one connection: size unknown"])
    }
}
