import Foundation
import LedgerTransfer
import LoopbackHTTP
import Testing

/// A response that breaks HTTP is the server's doing and will not change on a retry: the task fails at once, with
/// the violation named, after exactly one request (issue 10 §6).
@Suite struct ProtocolViolationTests {
    /// Serves `faults` on a fresh path and runs one transfer of it: the terminal event and the requests seen.
    private func fetch(
        _ faults: Faults, chunked: Bool = false, file: String = "/bad.bin"
    ) async throws -> (TransferEvent?, Int, Harness) {
        let h = try Harness()
        h.server.serve(file, Resource(size: 40_000, seed: 3, chunked: chunked, faults: faults))
        let event = await h.run(h.request(1, file))
        return (event, h.server.requests(file).count, h)
    }

    /// The violation, when `event` is the one expected: a failure, not retryable, of the protocol kind.
    private func violation(_ event: TransferEvent?) -> String? {
        guard case .failed(_, .protocolViolation(let what), false, _) = event else { return nil }
        return what
    }

    @Test func aStatusOutsideTheRangeOfHTTPFailsAtOnce() async throws {
        var faults = Faults()
        faults.failFirst = 100
        faults.failStatus = 999
        let (event, requests, h) = try await fetch(faults)
        defer { h.close() }
        #expect(violation(event)?.contains("999") == true, "\(String(describing: event))")
        #expect(requests == 1)
        #expect(h.visibleFiles().isEmpty)
    }

    @Test func aNulByteInAHeaderFailsAtOnce() async throws {
        var faults = Faults()
        faults.rawHeaders = ["X-Evil: a\u{0}b"]
        let (event, requests, h) = try await fetch(faults)
        defer { h.close() }
        #expect(violation(event) != nil, "\(String(describing: event))")
        #expect(requests == 1)
    }

    @Test func aMegabyteHeaderFailsAtOnce() async throws {
        var faults = Faults()
        faults.rawHeaders = ["X-Huge: " + String(repeating: "a", count: 1 << 20)]
        let (event, requests, h) = try await fetch(faults)
        defer { h.close() }
        #expect(violation(event) != nil, "\(String(describing: event))")
        #expect(requests == 1)
    }

    @Test func aHeadOfManyLinesFailsAtOnce() async throws {
        // Each line under curl's own bound, 400 KB in all: the head is bounded too (a server could send lines
        // forever).
        var faults = Faults()
        faults.rawHeaders = (0..<400).map { "X-Line-\($0): " + String(repeating: "b", count: 1000) }
        let (event, requests, h) = try await fetch(faults)
        defer { h.close() }
        #expect(violation(event)?.contains("response head over") == true, "\(String(describing: event))")
        #expect(requests == 1)
    }

    @Test func aContentLengthThatIsNotANumberFailsAtOnce() async throws {
        for text in ["abc", "-5", "12, 13"] {
            var faults = Faults()
            faults.contentLengthText = text
            let (event, requests, h) = try await fetch(faults)
            defer { h.close() }
            #expect(violation(event) != nil, "Content-Length: \(text): \(String(describing: event))")
            #expect(requests == 1, "Content-Length: \(text)")
        }
    }

    @Test func aMalformedContentRangeFailsAtOnce() async throws {
        // The client resumes a partial file: the server's 206 carries a Content-Range that cannot be read, or one
        // whose end lies past its own total.
        for range in ["bytes 10000-9999/40000", "bytes 10000-50000/40000", "bytes x-y/z"] {
            let h = try Harness()
            defer { h.close() }
            var faults = Faults()
            faults.rawHeaders = ["Content-Range: " + range]
            h.server.serve("/r.bin", Resource(size: 40_000, seed: 3, faults: faults))
            let body = Resource(size: 40_000, seed: 3).body
            try h.writePartial(1, body.bytes(in: 0..<10_000))
            let event = await h.run(h.request(1, "/r.bin"))
            // The served head holds two Content-Range lines when the server also sends its own; the client sees a
            // header it cannot trust either way.
            #expect(violation(event) != nil, "\(range): \(String(describing: event))")
            #expect(h.server.requests("/r.bin").count == 1, "\(range)")
        }
    }

    @Test func aBrokenChunkedEncodingFailsAtOnce() async throws {
        // A chunk size that is not hexadecimal.
        let h = try Harness()
        defer { h.close() }
        var faults = Faults()
        faults.rawHeaders = ["Transfer-Encoding: chunked"]
        faults.contentLengthText = nil
        h.server.serve("/c.bin", Resource(text: "not a chunk size\r\n", faults: faults))
        let event = await h.run(h.request(1, "/c.bin"))
        #expect(violation(event) != nil, "\(String(describing: event))")
        #expect(h.server.requests("/c.bin").count == 1)
    }

    @Test func serverErrorsAreStillRetried() async throws {
        // The fence is 100–599: a 503 is a server's transient state, retried as before.
        var config = Harness.fastConfig
        config.maxRetries = 1
        let h = try Harness(config: config)
        defer { h.close() }
        var faults = Faults()
        faults.failFirst = 10
        faults.failStatus = 599
        h.server.serve("/a.bin", Resource(size: 1000, seed: 1, faults: faults))
        let event = await h.run(h.request(1, "/a.bin"))
        #expect(event == .failed(id: 1, reason: .http(599), retryable: true, bytes: 0))
        #expect(h.server.requests("/a.bin").count == 2)
    }
}
