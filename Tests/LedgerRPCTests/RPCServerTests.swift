import DownloadLedger
import Foundation
import LedgerRPC
import LedgerRPCServer
import TestSupport
import Testing

@Suite(.serialized) struct RPCServerTests {
    @Test func postAddsAndTheDownloaderFinishesIt() async throws {
        let h = try RPCHarness(download: true)
        let url = h.file("big.bin", size: 300_000, seed: 7)
        let c = try RawHTTPClient(port: h.port)
        let added = try c.post(#"{"jsonrpc":"2.0","id":"a","method":"aria2.addUri","params":[["\#(url)"]]}"#)
        #expect(added.status == 200)
        #expect(added.headers["content-type"] == "application/json-rpc")
        let gid = try #require(added.json?["result"] as? String)
        // The same connection, kept alive, until the task is complete.
        let done = try await eventually(20) {
            let r = try c.post(
                #"{"jsonrpc":"2.0","id":"s","method":"aria2.tellStatus","params":["\#(gid)"]}"#)
            return (r.json?["result"] as? [String: Any])?["status"] as? String == "complete"
        }
        #expect(done)
        let stopped = try c.post(#"{"jsonrpc":"2.0","id":"t","method":"aria2.tellStopped","params":[0,10]}"#)
        let first = try #require((stopped.json?["result"] as? [[String: Any]])?.first)
        #expect(first["completedLength"] as? String == "300000")
        #expect(first["totalLength"] as? String == "300000")
        let files = try #require(first["files"] as? [[String: Any]])
        #expect(files.first?["path"] as? String == h.downloads + "/big.bin")
        #expect(FileManager.default.contents(atPath: h.downloads + "/big.bin")?.count == 300_000)
    }

    @Test func getWithBase64ParamsAndJSONP() throws {
        let h = try RPCHarness(secret: "tok")
        let params = Data(#"["token:tok",0,5,["gid"]]"#.utf8).base64EncodedString()
        let token = Data(#"["token:tok"]"#.utf8).base64EncodedString()
        let c = try RawHTTPClient(port: h.port)
        let plain = try c.request("GET", "/jsonrpc?method=aria2.tellWaiting&id=7&params=\(params)")
        #expect(plain.status == 200)
        #expect(plain.text == #"{"id":"7","jsonrpc":"2.0","result":[]}"#)
        let jsonp = try c.request(
            "GET", "/jsonrpc?method=aria2.getGlobalStat&id=8&jsoncallback=cb&params=\(token)")
        #expect(jsonp.headers["content-type"] == "text/javascript")
        #expect(
            jsonp.text.hasPrefix(#"cb({"id":"8","jsonrpc":"2.0","result":{"#) && jsonp.text.hasSuffix("})"))
        let hostile = try c.request(
            "GET", "/jsonrpc?method=aria2.getGlobalStat&id=8&jsoncallback=alert(1)//&params=\(token)")
        #expect(hostile.headers["content-type"] == "application/json-rpc")
        let bad = try c.request("GET", "/jsonrpc?method=aria2.tellWaiting&id=9&params=%25%25%25")
        #expect(bad.status == 400 && bad.text.contains("-32700"))
    }

    @Test func errorsAreJSONRPCAndChangeNothing() throws {
        let h = try RPCHarness()
        let before = try h.eventCount()
        let c = try RawHTTPClient(port: h.port)
        let parse = try c.post("{not json")
        #expect(parse.status == 400)
        #expect((parse.json?["error"] as? [String: Any])?["code"] as? Int == -32700)
        let unknown = try c.post(#"{"jsonrpc":"2.0","id":1,"method":"aria2.nothing"}"#)
        #expect((unknown.json?["error"] as? [String: Any])?["code"] as? Int == -32601)
        #expect(unknown.json?["id"] as? Int == 1)
        let params = try c.post(#"{"jsonrpc":"2.0","id":1,"method":"aria2.tellWaiting","params":"x"}"#)
        #expect((params.json?["error"] as? [String: Any])?["code"] as? Int == -32602)
        let batch = try c.post(
            #"[{"jsonrpc":"2.0","id":1,"method":"aria2.getVersion"},{"jsonrpc":"2.0","id":2,"method":"x"}]"#)
        let replies = try #require(
            try JSONSerialization.jsonObject(with: Data(batch.body)) as? [[String: Any]])
        #expect(replies.count == 2 && replies[0]["result"] != nil && replies[1]["error"] != nil)
        #expect(try c.request("GET", "/other").status == 404)
        #expect(try c.request("DELETE", "/jsonrpc").status == 405)
        #expect(try h.eventCount() == before)
    }

    @Test func oversizedBodiesAreRefusedUnread() throws {
        let h = try RPCHarness(config: .init(maxRequestSize: 4096))
        let before = try h.eventCount()
        let url = h.file("a.bin")
        let padding = String(repeating: " ", count: 5000)
        let c = try RawHTTPClient(port: h.port)
        let big = try c.post(
            #"{"jsonrpc":"2.0","id":1,"method":"aria2.addUri","params":[["\#(url)"]]}"# + padding)
        #expect(big.status == 413)
        #expect(try h.eventCount() == before)
        // A body that lies about its length and sends more: the connection is cut.
        let liar = try RawHTTPClient(port: h.port)
        try liar.send("POST /jsonrpc HTTP/1.1\r\nHost: 127.0.0.1\r\nTransfer-Encoding: chunked\r\n\r\n")
        try liar.send("2000\r\n" + String(repeating: "x", count: 8192) + "\r\n")
        #expect(liar.isClosed())
        #expect(try h.eventCount() == before)
    }

    @Test func corsAsAria2AnswersWithAllowOriginAll() throws {
        let h = try RPCHarness(config: .init(allowOriginAll: true))
        let c = try RawHTTPClient(port: h.port)
        let preflight = try c.request(
            "OPTIONS", "/jsonrpc",
            extra: "Origin: http://example.org\r\nAccess-Control-Request-Method: POST\r\n"
                + "Access-Control-Request-Headers: content-type\r\n")
        #expect(preflight.status == 200)
        #expect(preflight.headers["access-control-allow-origin"] == "*")
        #expect(preflight.headers["access-control-allow-methods"] == "POST, GET, OPTIONS")
        #expect(preflight.headers["access-control-allow-headers"] == "content-type")
        let post = try c.post(
            #"{"jsonrpc":"2.0","id":1,"method":"aria2.getVersion"}"#, extra: "Origin: http://example.org\r\n")
        #expect(post.headers["access-control-allow-origin"] == "*")
        let closed = try RPCHarness()
        let d = try RawHTTPClient(port: closed.port)
        let none = try d.post(
            #"{"jsonrpc":"2.0","id":1,"method":"aria2.getVersion"}"#, extra: "Origin: http://x\r\n")
        #expect(none.status == 403 && none.headers["access-control-allow-origin"] == nil)
    }

    @Test func webSocketCallsAndNotifications() async throws {
        let h = try RPCHarness(secret: "tok", download: true)
        let ws = try RawHTTPClient(port: h.port)
        #expect(try ws.upgrade() == 101)
        try ws.sendText(#"{"jsonrpc":"2.0","id":"v","method":"aria2.getVersion","params":["token:tok"]}"#)
        let version = try ws.receive { $0["id"] as? String == "v" }
        #expect((version["result"] as? [String: Any])?["version"] as? String == Aria2Service.aria2Version)
        try ws.sendText(#"{"jsonrpc":"2.0","id":"u","method":"aria2.getVersion","params":["token:no"]}"#)
        let refused = try ws.receive { $0["id"] as? String == "u" }
        #expect((refused["error"] as? [String: Any])?["message"] as? String == "Unauthorized")
        let url = h.file("n.bin", size: 50_000)
        try ws.sendText(
            #"{"jsonrpc":"2.0","id":"a","method":"aria2.addUri","params":["token:tok",["\#(url)"]]}"#)
        let gid = try #require(try ws.receive { $0["id"] as? String == "a" }["result"] as? String)
        func notified(_ method: String) throws -> Bool {
            let n = try ws.receive { $0["method"] as? String == method }
            return (n["params"] as? [[String: String]]) == [["gid": gid]] && n["id"] == nil
        }
        #expect(try notified("aria2.onDownloadStart"))
        #expect(try notified("aria2.onDownloadComplete"))
        // A change by another process (a second ledger on the same file) is notified too.
        let other = try Ledger(path: h.ledgerPath)
        try other.execute(.delete(.tasks([GID.id(of: gid)!]), mode: .record))
        #expect(try notified("aria2.onDownloadStop"))
    }

    @Test func webSocketToAnotherPathIsRefused() throws {
        let h = try RPCHarness()
        let ws = try RawHTTPClient(port: h.port)
        // Refused: either an HTTP error or the connection closed, never the 101 of an upgrade.
        #expect((try? ws.upgrade(path: "/elsewhere")) != 101)
    }

    @Test func aThousandOpenConnectionsAndSilentOnesTimeOut() throws {
        let h = try RPCHarness()
        var clients: [RawHTTPClient] = []
        for _ in 0..<1000 { clients.append(try RawHTTPClient(port: h.port, timeout: 20)) }
        // All of them ask at once, then each reads its answer, and they stay open (keep-alive) for another.
        let call = #"{"jsonrpc":"2.0","id":1,"method":"aria2.getGlobalStat"}"#
        for c in clients {
            try c.send(
                "POST /jsonrpc HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Length: \(call.utf8.count)\r\n\r\n\(call)"
            )
        }
        #expect(try clients.allSatisfy { try $0.response().status == 200 })
        #expect(try clients.allSatisfy { try $0.post(call).status == 200 })
        let fresh = try RawHTTPClient(port: h.port)
        #expect(try fresh.post(#"{"jsonrpc":"2.0","id":1,"method":"aria2.getGlobalStat"}"#).status == 200)
        // A client that sends half a request and goes quiet is dropped after the timeout.
        let quick = try RPCHarness(config: .init(idleTimeout: 2, requestTimeout: 2))
        let slow = try RawHTTPClient(port: quick.port, timeout: 15)
        try slow.send("POST /jsonrpc HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Length: 100\r\n\r\n{\"json")
        let start = Date()
        #expect(slow.isClosed())
        #expect(Date().timeIntervalSince(start) < 12)
    }

    @Test func listenAllNeedsASecret() throws {
        let h = try RPCHarness(listen: false)
        #expect(throws: RPCServerError.self) {
            _ = try RPCServer(service: h.service, configuration: .init(port: 0, listenAll: true))
        }
    }
}
