import LoopbackHTTP
import TestSupport
import Testing

/// Fault injection.
extension LoopbackServerTests {
    @Test func failFirstAnswersTheStatusWithRetryAfter() throws {
        let server = try LoopbackServer()
        var faults = Faults()
        faults.failFirst = 2
        faults.failStatus = 429
        faults.retryAfter = 3
        server.serve("/busy", Resource(bytes: [9, 9], faults: faults))
        let client = try RawHTTPClient(port: server.port)
        for _ in 0..<2 {
            try client.sendRequest("GET", "/busy")
            let failure = try client.response()
            #expect(failure.status == 429)
            #expect(failure.headers["retry-after"] == "3")
        }
        try client.sendRequest("GET", "/busy")
        let success = try client.response()
        #expect(success.status == 200)
        #expect(success.body == [9, 9])
        #expect(success.headers["retry-after"] == nil)
    }

    @Test func failuresDefaultTo503WithoutRetryAfter() throws {
        let server = try LoopbackServer()
        server.serve("/down", Resource(bytes: [1], faults: Faults(failFirst: 1)))
        let failure = try Self.fetch(server, "/down")
        #expect(failure.status == 503)
        #expect(failure.headers["retry-after"] == nil)
        #expect(try Self.fetch(server, "/down").status == 200)
    }

    @Test func dropAfterBytesCutsTheFirstResponsesOnly() throws {
        let server = try LoopbackServer()
        var faults = Faults()
        faults.dropAfterBytes = 1000
        faults.dropTimes = 2
        server.serve("/drop", Resource(size: 5000, seed: 8, faults: faults))
        let expected = Body.generatedBytes(seed: 8, in: 0..<5000)
        for _ in 0..<2 {
            let cut = try Self.fetch(server, "/drop")
            #expect(cut.status == 200)
            #expect(cut.headers["content-length"] == "5000")
            #expect(!cut.complete)
            #expect(Fingerprint(cut.body) == Fingerprint(Array(expected[0..<1000])))
        }
        let resumed = try Self.fetch(server, "/drop", headers: ["Range": "bytes=1000-"])
        #expect(resumed.status == 206)
        #expect(Fingerprint(resumed.body) == Fingerprint(Array(expected[1000...])))
        #expect(Fingerprint(try Self.fetch(server, "/drop").body) == Fingerprint(expected))
    }

    @Test func dropCountsBodyBytesOfAChunkedResponse() throws {
        let server = try LoopbackServer()
        server.serve(
            "/dc", Resource(size: 5000, seed: 8, chunked: true, faults: Faults(dropAfterBytes: 1234)))
        let cut = try Self.fetch(server, "/dc")
        #expect(!cut.complete)
        #expect(Fingerprint(cut.body) == Fingerprint(Body.generatedBytes(seed: 8, in: 0..<1234)))
        #expect(try Self.fetch(server, "/dc").complete)
    }

    @Test func throttlePacesTheBody() throws {
        let server = try LoopbackServer()
        var faults = Faults()
        faults.throttleBytesPerSecond = 128 * 1024
        server.serve("/slow", Resource(size: 256 * 1024, seed: 2, faults: faults))
        let clock = ContinuousClock()
        let started = clock.now
        let response = try Self.fetch(server, "/slow")
        let elapsed = clock.now - started
        #expect(Fingerprint(response.body) == Fingerprint(Body.generatedBytes(seed: 2, in: 0..<256 * 1024)))
        #expect(elapsed >= .milliseconds(1500))
    }

    @Test func ignoreRangeAnswers200WithEverything() throws {
        let server = try LoopbackServer()
        server.serve("/nr", Resource(size: 1000, seed: 3, faults: Faults(ignoreRange: true)))
        let response = try Self.fetch(server, "/nr", headers: ["Range": "bytes=500-"])
        #expect(response.status == 200)
        #expect(response.headers["content-range"] == nil)
        #expect(response.headers["accept-ranges"] == nil)
        #expect(Fingerprint(response.body) == Fingerprint(Body.generatedBytes(seed: 3, in: 0..<1000)))
    }

    @Test func anAdvertisedRangeIsIgnoredWithAcceptRangesAllTheSame() throws {
        let server = try LoopbackServer()
        var faults = Faults(ignoreRange: true)
        faults.advertiseIgnoredRange = true
        server.serve("/ar", Resource(size: 1000, seed: 3, faults: faults))
        let plain = try Self.fetch(server, "/ar")
        #expect(plain.status == 200 && plain.headers["accept-ranges"] == "bytes")
        let ranged = try Self.fetch(server, "/ar", headers: ["Range": "bytes=100-199"])
        #expect(ranged.status == 200)
        #expect(ranged.headers["accept-ranges"] == "bytes")
        #expect(ranged.headers["content-range"] == nil)
        #expect(ranged.body.count == 1000)
    }

    @Test func aShiftedRangeAnswersOtherBytesAndSaysWhich() throws {
        let server = try LoopbackServer()
        var faults = Faults()
        faults.shiftRange = 30
        server.serve("/sr", Resource(size: 1000, seed: 4, faults: faults))
        let ranged = try Self.fetch(server, "/sr", headers: ["Range": "bytes=100-199"])
        #expect(ranged.status == 206)
        #expect(ranged.headers["content-range"] == "bytes 70-169/1000")
        #expect(Fingerprint(ranged.body) == Fingerprint(Body.generatedBytes(seed: 4, in: 70..<170)))
        // Never before byte 0; a request without Range is answered whole.
        let early = try Self.fetch(server, "/sr", headers: ["Range": "bytes=10-19"])
        #expect(early.headers["content-range"] == "bytes 0-9/1000")
        #expect(try Self.fetch(server, "/sr").body.count == 1000)
    }

    @Test func lieContentLengthLongerThanTheBodyEndsEarly() throws {
        let server = try LoopbackServer()
        server.serve("/lie", Resource(size: 100, seed: 4, faults: Faults(lieContentLength: 200)))
        let response = try Self.fetch(server, "/lie")
        #expect(response.headers["content-length"] == "200")
        #expect(!response.complete)
        #expect(Fingerprint(response.body) == Fingerprint(Body.generatedBytes(seed: 4, in: 0..<100)))
    }

    @Test func lieContentLengthShorterThanTheBodySendsTheRestAnyway() throws {
        let server = try LoopbackServer()
        server.serve("/short", Resource(size: 100, seed: 4, faults: Faults(lieContentLength: 10)))
        let client = try RawHTTPClient(port: server.port)
        try client.sendRequest("GET", "/short")
        let response = try client.response()
        #expect(response.headers["content-length"] == "10")
        #expect(Fingerprint(response.body) == Fingerprint(Body.generatedBytes(seed: 4, in: 0..<10)))
        #expect(
            Fingerprint(try client.readToEnd()) == Fingerprint(Body.generatedBytes(seed: 4, in: 10..<100)))
    }

    @Test func contentChangesAfterTheGivenNumberOfRequests() throws {
        let server = try LoopbackServer()
        let original = Resource(
            size: 1000, seed: 20, etag: "\"abc\"", lastModified: "Sun, 06 Nov 1994 08:49:37 GMT",
            faults: Faults(changeContentAfterRequests: 1))
        server.serve("/ch", original)
        let first = try Self.fetch(server, "/ch")
        #expect(first.headers["etag"] == "\"abc\"")
        #expect(Fingerprint(first.body) == Fingerprint(Body.generatedBytes(seed: 20, in: 0..<1000)))

        let resume = try Self.fetch(server, "/ch", headers: ["Range": "bytes=500-", "If-Range": "\"abc\""])
        #expect(resume.status == 200)
        #expect(resume.headers["etag"] == "\"abc-v2\"")
        #expect(resume.headers["last-modified"] == "Mon, 07 Nov 1994 08:49:37 GMT")
        #expect(Fingerprint(resume.body) == Fingerprint(Body.generatedBytes(seed: 21, in: 0..<1000)))
        #expect(Fingerprint(resume.body) == Fingerprint(original.changedContent().body.allBytes))
    }

    @Test func changedBytesAreInverted() {
        let changed = Resource(bytes: [0, 1, 255], etag: "plain").changedContent()
        #expect(changed.body == .bytes([255, 254, 0]))
        #expect(changed.etag == "plain-v2")
    }

    @Test func stallKeepsTheConnectionSilentUntilStop() throws {
        let server = try LoopbackServer()
        var faults = Faults()
        faults.stallAfterBytes = 64
        faults.stallTimes = 1
        server.serve("/st", Resource(size: 1000, seed: 5, faults: faults))
        let stalled = try RawHTTPClient(port: server.port, timeout: 1)
        try stalled.sendRequest("GET", "/st")
        _ = try stalled.head()
        #expect(
            Fingerprint(try stalled.read(count: 64)) == Fingerprint(Body.generatedBytes(seed: 5, in: 0..<64)))
        #expect(throws: RawHTTPClient.Failure.self) { try stalled.read(count: 1) }

        let second = try Self.fetch(server, "/st")
        #expect(second.complete && second.body.count == 1000)
        server.stop()
        #expect(try stalled.readToEnd().isEmpty)
    }
}
