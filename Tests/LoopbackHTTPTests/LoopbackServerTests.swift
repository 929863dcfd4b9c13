import Foundation
import LoopbackHTTP
import TestSupport
import Testing

/// The server over a real socket: basics, connections and lifecycle. Ranges, faults and curl live in the
/// `LoopbackServerTests+*.swift` files.
@Suite struct LoopbackServerTests {
    /// One request on a fresh connection.
    static func fetch(
        _ server: LoopbackServer, _ path: String, method: String = "GET", headers: [String: String] = [:]
    ) throws -> RawHTTPClient.Response {
        let client = try RawHTTPClient(port: server.port)
        try client.sendRequest(method, path, headers: headers)
        return try client.response(bodyless: method == "HEAD")
    }

    @Test func servesBytesWithTheirHeaders() throws {
        let server = try LoopbackServer()
        server.serve(
            "/hello.txt",
            Resource(
                bytes: Array("hello".utf8), etag: "\"h1\"", lastModified: "Sun, 06 Nov 1994 08:49:37 GMT",
                contentDisposition: "attachment; filename=\"../../evil.txt\"", contentType: "text/plain"))
        let response = try Self.fetch(server, "/hello.txt")
        #expect(response.status == 200)
        #expect(response.body == Array("hello".utf8))
        #expect(response.headers["content-length"] == "5")
        #expect(response.headers["content-type"] == "text/plain")
        #expect(response.headers["etag"] == "\"h1\"")
        #expect(response.headers["last-modified"] == "Sun, 06 Nov 1994 08:49:37 GMT")
        #expect(response.headers["content-disposition"] == "attachment; filename=\"../../evil.txt\"")
        #expect(response.headers["accept-ranges"] == "bytes")
    }

    @Test func urlJoinsPortAndPath() throws {
        let server = try LoopbackServer()
        #expect(server.port != 0)
        #expect(server.url("/a/b.bin") == "http://127.0.0.1:\(server.port)/a/b.bin")
        #expect(server.url("a/b.bin") == "http://127.0.0.1:\(server.port)/a/b.bin")
    }

    @Test func generatedBodyArrivesWhole() throws {
        let server = try LoopbackServer()
        let size: Int64 = 3 * 1024 * 1024 + 17
        server.serve("g.bin", Resource(size: size, seed: 9))
        let response = try Self.fetch(server, "/g.bin")
        #expect(response.status == 200)
        #expect(response.complete)
        #expect(Fingerprint(response.body) == Fingerprint(Body.generatedBytes(seed: 9, in: 0..<size)))
    }

    @Test func headSendsHeadersOnly() throws {
        let server = try LoopbackServer()
        server.serve("/h", Resource(size: 1000, seed: 1, etag: "\"e\""))
        let client = try RawHTTPClient(port: server.port)
        try client.sendRequest("HEAD", "/h")
        let head = try client.response(bodyless: true)
        #expect(head.status == 200)
        #expect(head.headers["content-length"] == "1000")
        #expect(head.headers["etag"] == "\"e\"")
        try client.sendRequest("GET", "/h", headers: ["Connection": "close"])
        let get = try client.response()
        #expect(Fingerprint(get.body) == Fingerprint(Body.generatedBytes(seed: 1, in: 0..<1000)))
        #expect(server.requests("/h").map(\.method) == ["HEAD", "GET"])
    }

    @Test func chunkedBodyDecodesToTheSameBytes() throws {
        let server = try LoopbackServer()
        server.serve("/c", Resource(size: 200_000, seed: 4, chunked: true))
        let response = try Self.fetch(server, "/c")
        #expect(response.headers["transfer-encoding"] == "chunked")
        #expect(response.headers["content-length"] == nil)
        #expect(response.complete)
        #expect(Fingerprint(response.body) == Fingerprint(Body.generatedBytes(seed: 4, in: 0..<200_000)))
    }

    @Test func redirectsToAnotherPath() throws {
        let server = try LoopbackServer()
        server.serve("/old", Resource(redirect: (301, "/new")))
        server.serve("/tmp", Resource(redirect: (307, "new")))
        server.serve("/away", Resource(redirect: (302, "http://example.invalid/x")))
        let moved = try Self.fetch(server, "/old")
        #expect(moved.status == 301)
        #expect(moved.headers["location"] == "/new")
        #expect(try Self.fetch(server, "/tmp").headers["location"] == "/new")
        let away = try Self.fetch(server, "/away")
        #expect(away.status == 302)
        #expect(away.headers["location"] == "http://example.invalid/x")
    }

    @Test func keepsTheConnectionAliveUntilAskedToClose() throws {
        let server = try LoopbackServer()
        server.serve("/a", Resource(bytes: [1, 2, 3]))
        server.serve("/b", Resource(bytes: [4, 5]))
        let client = try RawHTTPClient(port: server.port)
        try client.sendRequest("GET", "/a")
        #expect(try client.response().body == [1, 2, 3])
        try client.sendRequest("GET", "/b", headers: ["Connection": "close"])
        let last = try client.response()
        #expect(last.body == [4, 5])
        #expect(last.headers["connection"] == "close")
        #expect(try client.readToEnd().isEmpty, "closed, with nothing more")
    }

    @Test func answersPipelinedRequestsInOrder() throws {
        let server = try LoopbackServer()
        server.serve("/a", Resource(bytes: [1]))
        server.serve("/b", Resource(bytes: [2]))
        let client = try RawHTTPClient(port: server.port)
        try client.send("GET /a HTTP/1.1\r\nHost: x\r\n\r\nGET /b HTTP/1.1\r\nHost: x\r\n\r\n")
        #expect(try client.response().body == [1])
        #expect(try client.response().body == [2])
    }

    @Test func http10ClosesByDefault() throws {
        let server = try LoopbackServer()
        server.serve("/a", Resource(bytes: [7]))
        let client = try RawHTTPClient(port: server.port)
        try client.send("GET /a HTTP/1.0\r\n\r\n")
        #expect(try client.response().body == [7])
        #expect(try client.readToEnd().isEmpty, "closed, with nothing more")
    }

    @Test func unknownPathIs404AndOtherMethodsAre405() throws {
        let server = try LoopbackServer()
        server.serve("/x", Resource(bytes: [1]))
        #expect(try Self.fetch(server, "/nothing").status == 404)
        let client = try RawHTTPClient(port: server.port)
        try client.send("POST /x HTTP/1.1\r\nHost: x\r\nContent-Length: 5\r\n\r\nabcde")
        let post = try client.response()
        #expect(post.status == 405)
        #expect(post.headers["allow"] == "GET, HEAD")
        try client.sendRequest("GET", "/x")
        #expect(try client.response().body == [1])
        #expect(server.requests("/nothing").count == 1)
        #expect(server.requests("/x").map(\.method) == ["POST", "GET"])
    }

    @Test(arguments: [
        "GARBAGE\r\n\r\n",
        "GET /x HTTP/1.1 extra\r\n\r\n",
        "GET x HTTP/1.1\r\n\r\n",
        "GET /x HTTP/2.0\r\n\r\n",
        "GET /x HTTP/1.1\r\nno colon here\r\n\r\n",
        "GET /x HTTP/1.1\r\nBad Name: 1\r\n\r\n",
        "GET /x HTTP/1.1\r\nContent-Length: -3\r\n\r\n",
        "GET /x HTTP/1.1\r\nTransfer-Encoding: chunked\r\n\r\n",
    ])
    func malformedRequestsGet400AndAClosedConnection(request: String) throws {
        let server = try LoopbackServer()
        server.serve("/x", Resource(bytes: [1]))
        let client = try RawHTTPClient(port: server.port)
        try client.send(request)
        let response = try client.response()
        #expect(response.status == 400)
        #expect(try client.readToEnd().isEmpty, "closed, with nothing more")
    }

    @Test func oversizedHeadIs400() throws {
        let server = try LoopbackServer()
        let client = try RawHTTPClient(port: server.port)
        try client.send("GET /x HTTP/1.1\r\nX-Big: " + String(repeating: "a", count: 70_000) + "\r\n\r\n")
        #expect(try client.response().status == 400)
    }

    @Test func recordsRequestsWithLowercasedHeaders() throws {
        let server = try LoopbackServer()
        server.serve("/r", Resource(size: 100, seed: 2, etag: "\"r\""))
        _ = try Self.fetch(server, "/r?attempt=1", headers: ["Range": "bytes=10-", "If-Range": "\"r\""])
        let records = server.requests("r")
        #expect(records.count == 1)
        #expect(records.first?.path == "/r?attempt=1")
        #expect(records.first?.range == "bytes=10-")
        #expect(records.first?.ifRange == "\"r\"")
        #expect(records.first?.headers["host"] == "127.0.0.1")
    }

    @Test func servesReplacesAndRemovesWhileRunning() throws {
        let server = try LoopbackServer()
        server.serve("/v", Resource(bytes: [1]))
        let client = try RawHTTPClient(port: server.port)
        try client.sendRequest("GET", "/v")
        #expect(try client.response().body == [1])
        server.serve("/v", Resource(bytes: [2, 2]))
        try client.sendRequest("GET", "/v")
        #expect(try client.response().body == [2, 2])
        server.remove("/v")
        try client.sendRequest("GET", "/v")
        #expect(try client.response().status == 404)
    }

    @Test func servesConcurrentClients() throws {
        let server = try LoopbackServer()
        var stalling = Faults()
        stalling.stallAfterBytes = 10
        server.serve("/stuck", Resource(size: 1000, seed: 1, faults: stalling))
        server.serve("/big", Resource(size: 1 << 20, seed: 3))
        let stuck = try RawHTTPClient(port: server.port)
        try stuck.sendRequest("GET", "/stuck")
        _ = try stuck.head()
        #expect(try stuck.read(count: 10).count == 10)

        let expected = Body.generatedBytes(seed: 3, in: 0..<(1 << 20))
        let clients = try (0..<8).map { _ in try RawHTTPClient(port: server.port) }
        for client in clients { try client.sendRequest("GET", "/big") }
        for client in clients {
            let response = try client.response()
            #expect(response.complete)
            #expect(Fingerprint(response.body) == Fingerprint(expected))
        }
    }

    @Test func stopEndsStalledConnectionsAndClosesTheListener() throws {
        let server = try LoopbackServer()
        var faults = Faults()
        faults.stallAfterBytes = 100
        server.serve("/stall", Resource(size: 1000, seed: 5, faults: faults))
        let client = try RawHTTPClient(port: server.port)
        try client.sendRequest("GET", "/stall")
        let head = try client.head()
        #expect(head.headers["content-length"] == "1000")
        #expect(
            Fingerprint(try client.read(count: 100)) == Fingerprint(Body.generatedBytes(seed: 5, in: 0..<100))
        )
        let idle = try RawHTTPClient(port: server.port)
        server.stop()
        server.stop()
        #expect(try client.readToEnd().isEmpty)
        #expect(try idle.readToEnd().isEmpty, "closed, with nothing more")
        #expect(!RawHTTPClient.canConnect(port: server.port))
    }

    @Test func deinitStopsTheServer() throws {
        var server: LoopbackServer? = try LoopbackServer()
        let port = server!.port
        #expect(RawHTTPClient.canConnect(port: port))
        server = nil
        #expect(!RawHTTPClient.canConnect(port: port))
    }
}
