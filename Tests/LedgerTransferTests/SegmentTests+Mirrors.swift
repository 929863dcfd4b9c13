import Foundation
import LedgerTransfer
import LoopbackHTTP
import Testing

extension SegmentTests {
    /// A request for `path` with `mirrors` (paths on the same server) beside it.
    static func request(_ h: Harness, _ id: Int64, _ path: String, mirrors: [String]) -> TransferRequest {
        var request = h.request(id, path)
        request.mirrors = mirrors.map { h.server.url($0) }
        return request
    }

    @Test func piecesAreSpreadOverTheMirrors() async throws {
        let h = try Harness(config: Self.config())
        defer { h.close() }
        var faults = Faults()
        faults.throttleBytesPerSecond = 1_500_000
        let resource = Resource(size: 3_000_000, seed: 51, etag: "\"m\"", faults: faults)
        h.server.serve("/a/x.bin", resource)
        h.server.serve("/b/x.bin", resource)

        let event = await h.run(Self.request(h, 1, "/a/x.bin", mirrors: ["/b/x.bin"]))

        guard case .completed(_, 3_000_000, _, let name) = event else {
            Issue.record("ended with \(String(describing: event))")
            return
        }
        let same = h.holds(name, resource.body.allBytes)
        #expect(same)
        #expect(h.server.requests("/b/x.bin").count >= 3)
        let summary = Self.connectionDetails(h, 1).last ?? ""
        #expect(summary.contains("/a/x.bin: ") && summary.contains("/b/x.bin: "), "\(summary)")
    }

    @Test func aMirrorThatDropsAfterSomeBytesIsDroppedAndTheFileCompletes() async throws {
        let h = try Harness(config: Self.config())
        defer { h.close() }
        var faults = Faults()
        faults.throttleBytesPerSecond = 1_500_000
        let good = Resource(size: 3_000_000, seed: 52, etag: "\"d\"", faults: faults)
        var dropping = good
        dropping.faults.dropAfterBytes = 50_000
        dropping.faults.dropTimes = .max
        h.server.serve("/a/d.bin", good)
        h.server.serve("/b/d.bin", dropping)

        let event = await h.run(Self.request(h, 2, "/a/d.bin", mirrors: ["/b/d.bin"]))

        guard case .completed(_, 3_000_000, _, let name) = event else {
            Issue.record("ended with \(String(describing: event))")
            return
        }
        let same = h.holds(name, good.body.allBytes)
        #expect(same)
        #expect(
            Self.connectionDetails(h, 2).contains {
                $0.hasPrefix("dropped 127.0.0.1:") && $0.contains("/b/d.bin")
            })
    }

    @Test func aMirrorWithAnotherSizeOrAnotherETagIsDropped() async throws {
        let h = try Harness(config: Self.config())
        defer { h.close() }
        var faults = Faults()
        faults.throttleBytesPerSecond = 1_500_000
        let good = Resource(size: 3_000_000, seed: 53, etag: "\"s\"", faults: faults)
        h.server.serve("/a/s.bin", good)
        h.server.serve("/b/s.bin", Resource(size: 3_100_000, seed: 53, etag: "\"s\"", faults: faults))
        h.server.serve("/c/s.bin", Resource(size: 3_000_000, seed: 54, etag: "\"other\"", faults: faults))

        let event = await h.run(Self.request(h, 3, "/a/s.bin", mirrors: ["/b/s.bin", "/c/s.bin"]))

        guard case .completed(_, 3_000_000, _, let name) = event else {
            Issue.record("ended with \(String(describing: event))")
            return
        }
        let same = h.holds(name, good.body.allBytes)
        #expect(same)
        let details = Self.connectionDetails(h, 3)
        #expect(
            details.contains { $0.contains("/b/s.bin: size changed (3000000 -> 3100000 bytes)") },
            "\(details)")
        #expect(details.contains { $0.contains("/c/s.bin: validator changed") }, "\(details)")
    }

    @Test func theTaskFailsOnlyWhenEveryMirrorFailed() async throws {
        let h = try Harness(config: Self.config(connections: 4))
        defer { h.close() }
        var faults = Faults()
        faults.throttleBytesPerSecond = 1_500_000
        let good = Resource(size: 3_000_000, seed: 55, etag: "\"f\"", faults: faults)
        var gone = Faults()
        gone.failFirst = .max
        gone.failStatus = 404
        h.server.serve("/a/f.bin", good)
        h.server.serve("/b/f.bin", Resource(size: 3_000_000, seed: 55, faults: gone))

        let event = await h.run(Self.request(h, 4, "/a/f.bin", mirrors: ["/b/f.bin"]))

        guard case .completed(_, 3_000_000, _, let name) = event else {
            Issue.record("ended with \(String(describing: event))")
            return
        }
        let same = h.holds(name, good.body.allBytes)
        #expect(same)
        #expect(
            Self.connectionDetails(h, 4).contains {
                $0.contains("/b/f.bin: the server answered HTTP 404 (Not Found)")
            })
    }
}
