import Foundation
import Glibc
import LedgerRPC
import LedgerRPCServer
import Synchronization
import TestSupport
import Testing

/// Issue 26's hostile clients, on the wire: bodies that cost much to parse, calls by the thousand, bodies sent a
/// byte at a time, and more connections than the server holds. Each is answered with one clear error or closed,
/// and another client is answered meanwhile.
@Suite struct HostileClientTests {
    /// 40 objects nested 450 deep, as in the issue (108 KB).
    static let nested: String = {
        let one = String(repeating: #"{"a":"#, count: 450) + "1" + String(repeating: "}", count: 450)
        return #"{"jsonrpc":"2.0","id":7,"method":"aria2.addUri","params":["#
            + Array(repeating: one, count: 40).joined(separator: ",") + "]}"
    }()

    static func error(_ response: RawHTTPClient.Response) -> (code: Int?, message: String) {
        let error = response.json?["error"] as? [String: Any]
        return (error?["code"] as? Int, error?["message"] as? String ?? response.text)
    }

    @Test func aDeeplyNestedBodyIsOneErrorAndOthersAreAnsweredMeanwhile() throws {
        let h = try RPCHarness()
        let before = try h.eventCount()
        let abuser = try RawHTTPClient(port: h.port)
        let body = Self.nested
        #expect(body.utf8.count > 100_000)
        try abuser.send(
            "POST /jsonrpc HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Length: \(body.utf8.count)\r\n\r\n\(body)")
        let other = try RawHTTPClient(port: h.port)
        let listed = try other.post(#"{"jsonrpc":"2.0","id":1,"method":"system.listMethods"}"#)
        #expect((listed.json?["result"] as? [String])?.contains("aria2.tellActive") == true)
        let refused = try abuser.response()
        #expect(refused.status == 400)
        #expect(refused.json?["id"] is NSNull)
        #expect(Self.error(refused).code == -32600)
        #expect(Self.error(refused).message.contains("nested deeper than 64"), "\(refused.text)")
        // The same over a WebSocket, and the connection keeps serving.
        let ws = try RawHTTPClient(port: h.port)
        #expect(try ws.upgrade() == 101)
        try ws.sendText(body)
        let reply = try ws.receive { _ in true }
        #expect((reply["error"] as? [String: Any])?["code"] as? Int == -32600)
        try ws.sendText(#"{"jsonrpc":"2.0","id":2,"method":"aria2.getVersion"}"#)
        #expect(try ws.receive { $0["id"] as? Int == 2 }["result"] != nil)
        #expect(try h.eventCount() == before)
    }

    @Test func aLargeBodyWithoutTheSecretIsRefusedUnread() throws {
        let h = try RPCHarness(secret: "s3cret")
        let before = try h.eventCount()
        let c = try RawHTTPClient(port: h.port)
        let refused = try c.post(Self.nested)
        #expect(Self.error(refused).code == 1)
        #expect(Self.error(refused).message == "Unauthorized")
        // With the token, a large body is read (and this one, still too deep, refused as such).
        let padded = Self.nested.replacingOccurrences(of: #""params":["#, with: #""params":["token:s3cret","#)
        #expect(Self.error(try c.post(padded)).code == -32600)
        // A small body without it is read: the open calls need no token.
        let open = try c.post(#"{"jsonrpc":"2.0","id":1,"method":"system.listNotifications"}"#)
        #expect(open.json?["result"] != nil)
        #expect(try h.eventCount() == before)
    }

    @Test func aBatchOfTenThousandCallsIsRefusedWholeAndAThousandAreAnswered() throws {
        let h = try RPCHarness()
        let before = try h.eventCount()
        let call = #"{"jsonrpc":"2.0","id":1,"method":"aria2.tellActive"}"#
        let c = try RawHTTPClient(port: h.port)
        let huge = try c.post("[" + Array(repeating: call, count: 10_000).joined(separator: ",") + "]")
        #expect(huge.status == 400)
        #expect(Self.error(huge).code == -32600)
        #expect(Self.error(huge).message.contains("10000 calls"), "\(huge.text.prefix(200))")
        let multi = try c.post(
            #"{"jsonrpc":"2.0","id":1,"method":"system.multicall","params":[["#
                + Array(repeating: #"{"methodName":"aria2.addUri","params":[["http://x/"]]}"#, count: 1001)
                .joined(separator: ",") + "]]}")
        #expect(Self.error(multi).code == -32600)
        let allowed = try c.post("[" + Array(repeating: call, count: 1000).joined(separator: ",") + "]")
        let replies = try JSONSerialization.jsonObject(with: Data(allowed.body)) as? [[String: Any]]
        #expect(replies?.count == 1000)
        #expect(replies?.allSatisfy { $0["result"] != nil } == true)
        #expect(try h.eventCount() == before)
    }

    /// Sends `bytes` one at a time, `interval` apart, until they are all sent or the server closes.
    static func trickle(_ c: RawHTTPClient, _ bytes: [UInt8], interval: Double) -> Bool {
        for b in bytes {
            guard (try? c.send([b])) != nil else { return true }
            Thread.sleep(forTimeInterval: interval)
        }
        return false
    }

    @Test func aSlowHeadBodyOrMessageIsClosedWhenTheRequestTimeIsUp() async throws {
        let h = try RPCHarness(config: .init(requestTimeout: 2))
        let port = h.port
        let body =
            #"{"jsonrpc":"2.0","id":1,"method":"aria2.getVersion","params":[]}"#
            + String(repeating: " ", count: 48)
        // Each on a thread of its own (they sleep between bytes), all at once.
        let closed = Mutex<[String: Bool]>([:])
        let group = DispatchGroup()
        func trickling(_ name: String, _ prepare: @escaping @Sendable (RawHTTPClient) throws -> [UInt8]) {
            group.enter()
            Thread {
                defer { group.leave() }
                guard let c = try? RawHTTPClient(port: port, timeout: 2), let bytes = try? prepare(c) else {
                    return
                }
                // A byte every 0.3 s would take many seconds; the request has 2.
                let cut = Self.trickle(c, bytes, interval: 0.3)
                closed.withLock { $0[name] = cut }
            }.start()
        }
        trickling("body") { c in
            try c.send(
                "POST /jsonrpc HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Length: \(body.utf8.count)\r\n\r\n")
            return Array(body.utf8)
        }
        trickling("head") { _ in
            Array(
                "POST /jsonrpc HTTP/1.1\r\nHost: 127.0.0.1\r\nUser-Agent: \(String(repeating: "s", count: 64))\r\n"
                    .utf8)
        }
        trickling("message") { c in
            guard try c.upgrade() == 101 else { return [] }
            // One masked frame announcing the body's length, its bytes sent one at a time.
            return [0x81, 0x80 | UInt8(body.utf8.count), 0, 0, 0, 0] + Array(body.utf8)
        }
        // Waited for without holding one of the test runner's few threads (downloads of other tests need them).
        await withCheckedContinuation { c in group.notify(queue: .global()) { c.resume() } }
        // Each would take 30 s or more to send at that pace: closed means cut at its deadline, long before.
        #expect(closed.withLock { $0 } == ["body": true, "head": true, "message": true])
        // A prompt client is answered as before.
        let c = try RawHTTPClient(port: h.port)
        #expect(try c.post(body).json?["result"] != nil)
    }

    @Test func connectionsBeyondTheLimitMakeRoomAndABusyClientKeepsItsOwn() async throws {
        let h = try RPCHarness(config: .init(maxConnections: 16))
        #expect(h.server?.connectionLimit == 16)
        // A front end, connected first and polling.
        let frontEnd = try RawHTTPClient(port: h.port, timeout: 5)
        #expect(try frontEnd.upgrade() == 101)
        try frontEnd.sendText(#"{"jsonrpc":"2.0","id":0,"method":"aria2.tellActive"}"#)
        #expect(try frontEnd.receive { $0["id"] as? Int == 0 }["result"] != nil)
        // 40 connections that say nothing.
        var idle: [RawHTTPClient] = []
        for _ in 0..<40 { idle.append(try RawHTTPClient(port: h.port, timeout: 1)) }
        // A new client is answered: its connection takes the place of one of them.
        for i in 1...5 {
            let c = try RawHTTPClient(port: h.port, timeout: 5)
            #expect(
                try c.post(#"{"jsonrpc":"2.0","id":\#(i),"method":"aria2.getVersion"}"#).json?["result"]
                    != nil)
            try frontEnd.sendText(#"{"jsonrpc":"2.0","id":\#(i),"method":"aria2.tellActive"}"#)
            #expect(try frontEnd.receive { $0["id"] as? Int == i }["result"] != nil)
        }
        // The oldest silent ones were closed to make that room (once a second old); no more than the limit stay.
        _ = await eventually(10) { idle.filter { $0.isClosedNow() }.count >= 40 - 16 }
        let closed = idle.filter { $0.isClosedNow() }.count
        #expect(closed >= 40 - 16, "only \(closed) of 40 idle connections were closed")
        #expect(idle.prefix(10).allSatisfy { $0.isClosedNow() })
    }
}
