import Foundation
import LedgerTransfer
import LoopbackHTTP
import Testing

/// A server cannot make a file grow without bound nor splice another file's bytes onto a partial one (issue 10 §6):
/// bodies without a length stop at the maximum size, an announced size over it is refused before any byte, and a
/// resume whose `Content-Range` total differs from the size resolved before starts the file again from zero.
@Suite struct HostileSizeTests {
    static func config(maxSize: Int64? = nil, unannounced: Int64 = 16 << 30) -> TransferConfig {
        var config = Harness.fastConfig
        config.maxSize = maxSize
        config.unannouncedMaxSize = unannounced
        config.connectionsPerTask = 1
        return config
    }

    @Test(arguments: [false, true])
    func anEndlessBodyStopsAtTheMaximumSize(chunked: Bool) async throws {
        let h = try Harness(config: Self.config(maxSize: 2_000_000))
        defer { h.close() }
        var faults = Faults()
        faults.endlessBody = true
        h.server.serve("/endless", Resource(size: 1000, seed: 4, chunked: chunked, faults: faults))

        let event = await h.run(h.request(1, "/endless"))

        #expect(
            event
                == .failed(
                    id: 1, reason: .tooLarge(limit: 2_000_000, announced: nil), retryable: false, bytes: 0))
        #expect(h.server.requests("/endless").count == 1)
        // Nothing stays: no partial, no file.
        #expect(!h.partialExists(1))
        #expect(h.visibleFiles().isEmpty)
    }

    @Test func withoutAMaximumOnlyABodyWithoutALengthIsCapped() async throws {
        // The default rule: an announced size is taken as it is, a body without one stops at the unannounced cap.
        let h = try Harness(config: Self.config(unannounced: 1_000_000))
        defer { h.close() }
        var faults = Faults()
        faults.endlessBody = true
        h.server.serve("/endless", Resource(size: 1000, seed: 4, chunked: true, faults: faults))
        let big = Resource(size: 3_000_000, seed: 5)
        h.server.serve("/big.bin", big)
        let small = Resource(size: 500_000, seed: 6, chunked: true)
        h.server.serve("/small.bin", small)

        let endless = await h.run(h.request(1, "/endless"))
        let announced = await h.run(h.request(2, "/big.bin"))
        let chunked = await h.run(h.request(3, "/small.bin"))

        #expect(
            endless
                == .failed(
                    id: 1, reason: .tooLarge(limit: 1_000_000, announced: nil), retryable: false, bytes: 0))
        guard case .completed(_, 3_000_000, _, _) = announced, case .completed(_, 500_000, _, _) = chunked
        else {
            Issue.record("\(String(describing: announced)), \(String(describing: chunked))")
            return
        }
        let same = h.holds("big.bin", big.body.allBytes)
        #expect(same)
    }

    @Test func anAnnouncedSizeOverTheMaximumIsRefusedBeforeAnyByte() async throws {
        let h = try Harness(config: Self.config(maxSize: 100_000))
        defer { h.close() }
        h.server.serve("/big.bin", Resource(size: 5_000_000, seed: 7))

        let event = await h.run(h.request(1, "/big.bin"))

        #expect(
            event
                == .failed(
                    id: 1, reason: .tooLarge(limit: 100_000, announced: 5_000_000), retryable: false, bytes: 0
                ))
        #expect(!h.partialExists(1))
        #expect(h.server.requests("/big.bin").count == 1)
        // The request's own maximum wins over the engine's.
        h.server.serve("/big.bin", Resource(size: 5_000_000, seed: 7))
        var request = h.request(2, "/big.bin")
        request.maxSize = 10_000_000
        guard case .completed(_, 5_000_000, _, _) = await h.run(request) else {
            Issue.record("a larger request maximum did not let the file through")
            return
        }
    }

    @Test func aBodyWithoutALengthOfAKnownFileMayNotPassItsSize() async throws {
        var config = Self.config()
        config.maxRetries = 1
        let h = try Harness(config: config)
        defer { h.close() }
        var faults = Faults()
        faults.endlessBody = true
        h.server.serve("/same", Resource(size: 1000, seed: 8, etag: "\"s\"", chunked: true, faults: faults))
        var request = h.request(1, "/same")
        request.expectedSize = 300_000
        request.validator = "\"s\""

        let event = await h.run(request)

        guard case .failed(_, .sizeMismatch(300_000, let actual), true, _) = event else {
            Issue.record("ended with \(String(describing: event))")
            return
        }
        #expect(actual > 300_000)
        // Never a byte past the known size on disk.
        #expect(h.partialSize(1) <= 300_000)
    }

    @Test func aResumeWhoseTotalChangedRestartsFromZero() async throws {
        // No validator: the server changes the file (another size) between the dropped response and the resume.
        let h = try Harness(config: Self.config())
        defer { h.close() }
        var faults = Faults()
        faults.dropAfterBytes = 40_000
        faults.changeContentAfterRequests = 1
        faults.changedSize = 150_000
        let old = Resource(size: 100_000, seed: 9, faults: faults)
        h.server.serve("/c.bin", old)
        let new = old.changedContent()

        let event = await h.run(h.request(1, "/c.bin"))

        guard case .completed(_, 150_000, _, let name) = event else {
            Issue.record("ended with \(String(describing: event))")
            return
        }
        let same = h.holds(name, new.body.allBytes)
        #expect(same)
        #expect(h.events.restartReasons(1) == ["size changed (100000 -> 150000 bytes)"])
    }

    @Test func aResumeInALaterRunWhoseTotalDiffersRestartsFromZero() async throws {
        // The size the ledger resolved in an earlier run is what the resume is checked against.
        let h = try Harness(config: Self.config())
        defer { h.close() }
        let old = Resource(size: 100_000, seed: 10)
        let new = Resource(size: 120_000, seed: 11)
        h.server.serve("/l.bin", new)
        try h.writePartial(1, old.body.bytes(in: 0..<40_000))
        var request = h.request(1, "/l.bin")
        request.expectedSize = 100_000

        let event = await h.run(request)

        guard case .completed(_, 120_000, _, let name) = event else {
            Issue.record("ended with \(String(describing: event))")
            return
        }
        let same = h.holds(name, new.body.allBytes)
        #expect(same)
        #expect(h.events.restartReasons(1) == ["size changed (100000 -> 120000 bytes)"])
        #expect(h.server.requests("/l.bin").map(\.range) == ["bytes=40000-", nil])
    }

    @Test func aContentRangeWithAnotherTotalRestartsFromZero() async throws {
        // The server's 206 names a total other than the 200 before it announced: another file, or a lie.
        let h = try Harness(config: Self.config())
        defer { h.close() }
        var faults = Faults()
        faults.dropAfterBytes = 30_000
        faults.contentRangeTotal = 999_999
        let resource = Resource(size: 100_000, seed: 12, faults: faults)
        h.server.serve("/t.bin", resource)

        let event = await h.run(h.request(1, "/t.bin"))

        guard case .completed(_, 100_000, _, let name) = event else {
            Issue.record("ended with \(String(describing: event))")
            return
        }
        let same = h.holds(name, resource.body.allBytes)
        #expect(same)
        #expect(h.events.restartReasons(1) == ["size changed (100000 -> 999999 bytes)"])
    }

    @Test func aPieceWhoseTotalChangedRestartsTheSplitFileFromZero() async throws {
        // Split over 8 connections; from the fourth request on the server has another file, 200 KB longer.
        let h = try Harness(config: SegmentTests.config())
        defer { h.close() }
        var faults = Faults()
        faults.throttleBytesPerSecond = 2_000_000
        faults.changeContentAfterRequests = 3
        faults.changedSize = 3_200_000
        let old = Resource(size: 3_000_000, seed: 13, faults: faults)
        h.server.serve("/s.bin", old)
        var unthrottled = old.changedContent()
        unthrottled.faults = Faults()

        let event = await h.run(h.request(1, "/s.bin"))

        guard case .completed(_, 3_200_000, _, let name) = event else {
            Issue.record("ended with \(String(describing: event))")
            return
        }
        let same = h.holds(name, unthrottled.body.allBytes)
        #expect(same)
        // Another size for a piece is a range fault: the rest of the transfer stays on one connection.
        #expect(
            h.events.restartReasons(1) == [
                "size changed (3000000 -> 3200000 bytes); one connection from now on"
            ])
    }
}
