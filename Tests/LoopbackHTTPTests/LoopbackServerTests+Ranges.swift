import LoopbackHTTP
import TestSupport
import Testing

/// Range and If-Range handling.
extension LoopbackServerTests {
    @Test(
        arguments: [
            ("bytes=0-99", 0..<100),
            ("bytes=100-", 100..<1000),
            ("bytes=-50", 950..<1000),
            ("bytes=990-5000", 990..<1000),
            ("bytes=-5000", 0..<1000),
            ("bytes=999-999", 999..<1000),
            ("Bytes = 5-6", 5..<7),
        ] as [(String, Range<Int64>)])
    func rangeGets206WithTheRightSlice(header: String, expected: Range<Int64>) throws {
        let server = try LoopbackServer()
        server.serve("/f", Resource(size: 1000, seed: 11))
        let response = try Self.fetch(server, "/f", headers: ["Range": header])
        #expect(response.status == 206)
        #expect(
            response.headers["content-range"]
                == "bytes \(expected.lowerBound)-\(expected.upperBound - 1)/1000")
        #expect(response.headers["content-length"] == String(expected.count))
        #expect(Fingerprint(response.body) == Fingerprint(Body.generatedBytes(seed: 11, in: expected)))
    }

    @Test(arguments: ["bytes=1000-", "bytes=5000-6000", "bytes=-0"])
    func unsatisfiableRangeGets416(header: String) throws {
        let server = try LoopbackServer()
        server.serve("/f", Resource(size: 1000, seed: 11))
        let response = try Self.fetch(server, "/f", headers: ["Range": header])
        #expect(response.status == 416)
        #expect(response.headers["content-range"] == "bytes */1000")
    }

    @Test func anyRangeOfAnEmptyBodyIs416() throws {
        let server = try LoopbackServer()
        server.serve("/empty", Resource(bytes: []))
        #expect(try Self.fetch(server, "/empty", headers: ["Range": "bytes=0-"]).status == 416)
        #expect(try Self.fetch(server, "/empty", headers: ["Range": "bytes=-1"]).status == 416)
        #expect(try Self.fetch(server, "/empty").status == 200)
    }

    @Test(arguments: ["bytes=abc", "bytes=9-3", "items=0-1", "bytes=0-1,5-6", "bytes 0-1", "bytes=--1"])
    func unusableRangeGetsTheWholeBody(header: String) throws {
        let server = try LoopbackServer()
        server.serve("/f", Resource(size: 1000, seed: 11))
        let response = try Self.fetch(server, "/f", headers: ["Range": header])
        #expect(response.status == 200)
        #expect(response.body.count == 1000)
    }

    @Test func rangedPiecesReassembleTheFullBody() throws {
        let server = try LoopbackServer()
        let size: Int64 = 1_000_003
        server.serve("/p", Resource(size: size, seed: 77))
        let full = try Self.fetch(server, "/p").body
        let client = try RawHTTPClient(port: server.port)
        var pieces: [UInt8] = []
        for start in stride(from: Int64(0), to: size, by: 300_007) {
            try client.sendRequest("GET", "/p", headers: ["Range": "bytes=\(start)-\(start + 300_006)"])
            let response = try client.response()
            #expect(response.status == 206)
            pieces += response.body
        }
        #expect(Fingerprint(pieces) == Fingerprint(full))
        #expect(Fingerprint(full) == Fingerprint(Body.generated(size: size, seed: 77).allBytes))
    }

    @Test func headHonoursRange() throws {
        let server = try LoopbackServer()
        server.serve("/f", Resource(size: 1000, seed: 11))
        let response = try Self.fetch(server, "/f", method: "HEAD", headers: ["Range": "bytes=-10"])
        #expect(response.status == 206)
        #expect(response.headers["content-range"] == "bytes 990-999/1000")
    }

    @Test func ifRangeWithTheCurrentETagAllowsTheRange() throws {
        let server = try LoopbackServer()
        server.serve("/e", Resource(size: 1000, seed: 1, etag: "\"v1\""))
        let match = try Self.fetch(server, "/e", headers: ["Range": "bytes=500-", "If-Range": "\"v1\""])
        #expect(match.status == 206)
        #expect(Fingerprint(match.body) == Fingerprint(Body.generatedBytes(seed: 1, in: 500..<1000)))
        let stale = try Self.fetch(server, "/e", headers: ["Range": "bytes=500-", "If-Range": "\"v0\""])
        #expect(stale.status == 200)
        #expect(stale.body.count == 1000)
        let weak = try Self.fetch(server, "/e", headers: ["Range": "bytes=500-", "If-Range": "W/\"v1\""])
        #expect(weak.status == 200)
    }

    @Test func ifRangeWithTheLastModifiedDateAllowsTheRange() throws {
        let date = "Tue, 15 Nov 1994 12:45:26 GMT"
        let server = try LoopbackServer()
        server.serve("/d", Resource(size: 1000, seed: 1, lastModified: date))
        let match = try Self.fetch(server, "/d", headers: ["Range": "bytes=0-9", "If-Range": date])
        #expect(match.status == 206)
        let stale = try Self.fetch(
            server, "/d", headers: ["Range": "bytes=0-9", "If-Range": "Mon, 14 Nov 1994 12:45:26 GMT"])
        #expect(stale.status == 200)
        #expect(stale.body.count == 1000)
    }

    @Test func ifRangeWithoutValidatorsGetsTheWholeBody() throws {
        let server = try LoopbackServer()
        server.serve("/n", Resource(size: 100, seed: 1))
        let response = try Self.fetch(server, "/n", headers: ["Range": "bytes=0-9", "If-Range": "\"x\""])
        #expect(response.status == 200)
    }

    @Test func chunkedRangeStillCarriesContentRange() throws {
        let server = try LoopbackServer()
        server.serve("/cr", Resource(size: 1000, seed: 6, chunked: true))
        let response = try Self.fetch(server, "/cr", headers: ["Range": "bytes=10-19"])
        #expect(response.status == 206)
        #expect(response.headers["content-range"] == "bytes 10-19/1000")
        #expect(Fingerprint(response.body) == Fingerprint(Body.generatedBytes(seed: 6, in: 10..<20)))
    }
}
