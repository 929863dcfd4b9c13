import CWebSocketGuard
import Foundation
import TestSupport
import Testing

/// Issue 26 fault 5: a client frame that is not masked closes the WebSocket connection unanswered (RFC 6455
/// §5.1), on the real server over raw sockets; masked frames of every length form, and other clients, are served.
@Suite struct UnmaskedFrameTests {
    static let call = #"{"jsonrpc":"2.0","id":"u","method":"system.listMethods"}"#

    static func isListing(_ reply: [String: Any]) -> Bool {
        (reply["result"] as? [String])?.contains("aria2.tellActive") == true
    }

    @Test func anUnmaskedFrameClosesTheConnectionUnanswered() throws {
        let h = try RPCHarness()
        let c = try RawHTTPClient(port: h.port, timeout: 3)
        #expect(try c.upgrade() == 101)
        let reads = cwsg_watched_reads()
        try c.send(RawHTTPClient.frame(Self.call, masked: false))
        let (closed, received) = c.closes(within: 3)
        #expect(closed)
        #expect(!String(decoding: received, as: UTF8.self).contains("aria2.tellActive"))
        // The server read it through the guard's recv, not around it.
        #expect(cwsg_watched_reads() > reads)
        // The server keeps serving others.
        let other = try RawHTTPClient(port: h.port, timeout: 3)
        #expect(Self.isListing(try other.post(Self.call).json ?? [:]))
    }

    @Test func aMaskedFrameIsAnsweredInEveryLengthForm() throws {
        let h = try RPCHarness()
        let c = try RawHTTPClient(port: h.port, timeout: 3)
        #expect(try c.upgrade() == 101)
        for form in [0, 2, 8] {
            try c.send(RawHTTPClient.frame(Self.call, masked: true, lengthBytes: form))
            #expect(Self.isListing(try c.receive { $0["id"] as? String == "u" }), "length form \(form)")
        }
        // A payload past 125 bytes in its natural 16-bit form.
        let padded = Self.call.replacingOccurrences(
            of: "\"id\":\"u\"", with: "\"id\":\"u\",\"pad\":\"\(String(repeating: "x", count: 300))\"")
        try c.send(RawHTTPClient.frame(padded, masked: true))
        #expect(Self.isListing(try c.receive { $0["id"] as? String == "u" }))
    }

    @Test func anUnmaskedFrameAfterMaskedOnesSentByteByByteCloses() throws {
        let h = try RPCHarness()
        let c = try RawHTTPClient(port: h.port, timeout: 3)
        let bystander = try RawHTTPClient(port: h.port, timeout: 3)
        #expect(try c.upgrade() == 101)
        #expect(try bystander.upgrade() == 101)
        for form in [0, 2, 8] {
            try c.sendByteByByte(RawHTTPClient.frame(Self.call, masked: true, lengthBytes: form))
            #expect(Self.isListing(try c.receive { $0["id"] as? String == "u" }))
        }
        // The server closes at the frame's second byte, so the writes after it may fail.
        let rejected = cwsg_rejected()
        try? c.sendByteByByte(RawHTTPClient.frame(Self.call, masked: false, lengthBytes: 2))
        let (closed, received) = c.closes(within: 3)
        #expect(closed)
        #expect(!String(decoding: received, as: UTF8.self).contains("aria2.tellActive"))
        #expect(cwsg_rejected() > rejected)
        // Another WebSocket and a plain POST are unaffected.
        try bystander.sendText(Self.call)
        #expect(Self.isListing(try bystander.receive { $0["id"] as? String == "u" }))
        let post = try RawHTTPClient(port: h.port, timeout: 3)
        #expect(Self.isListing(try post.post(Self.call).json ?? [:]))
    }

    @Test func aFrameSentWithTheHandshakeCloses() throws {
        let h = try RPCHarness()
        let handshake =
            "GET /jsonrpc HTTP/1.1\r\nHost: 127.0.0.1\r\nUpgrade: websocket\r\nConnection: Upgrade\r\n"
            + "Sec-WebSocket-Key: dGhlIHNhbXBsZSBub25jZQ==\r\nSec-WebSocket-Version: 13\r\n\r\n"
        // A client must wait for the reply before it sends frames (RFC 6455 §4.1); one that does not is closed,
        // whether or not its frame is masked, as such a frame would go by unchecked.
        for masked in [false, true] {
            let c = try RawHTTPClient(port: h.port, timeout: 3)
            try c.send(Array(handshake.utf8) + RawHTTPClient.frame(Self.call, masked: masked))
            let (closed, received) = c.closes(within: 3)
            #expect(closed, "masked: \(masked)")
            #expect(!String(decoding: received, as: UTF8.self).contains("aria2.tellActive"))
        }
        // The same handshake alone is served.
        let c = try RawHTTPClient(port: h.port, timeout: 3)
        try c.send(handshake)
        #expect(try c.response().status == 101)
        try c.sendText(Self.call)
        #expect(Self.isListing(try c.receive { $0["id"] as? String == "u" }))
    }

    @Test func aLengthWithItsTopBitSetCloses() throws {
        let h = try RPCHarness()
        let c = try RawHTTPClient(port: h.port, timeout: 3)
        #expect(try c.upgrade() == 101)
        try c.send([0x81, 0x80 | 127, 0x80, 0, 0, 0, 0, 0, 0, 5, 1, 2, 3, 4])
        #expect(c.closes(within: 3).closed)
    }

    @Test func theWalkerFollowsFramesAcrossReads() {
        let frames =
            RawHTTPClient.frame("a", masked: true)
            + RawHTTPClient.frame(String(repeating: "b", count: 200), masked: true)
            + RawHTTPClient.frame("c", masked: true, lengthBytes: 8) + RawHTTPClient.frame("", masked: true)
        for cut in 1...frames.count {
            var state = cwsg_walk_state()
            #expect(cwsg_walk(&state, Array(frames[..<cut]), cut) == 0)
            #expect(cwsg_walk(&state, Array(frames[cut...]), frames.count - cut) == 0)
            #expect(state.step == 0, "cut at \(cut)")
        }
        // An unmasked frame is found after masked ones, wherever the reads split.
        let bad = frames + RawHTTPClient.frame("d", masked: false)
        for cut in 1...bad.count {
            var state = cwsg_walk_state()
            let first = cwsg_walk(&state, Array(bad[..<cut]), cut)
            let second = first == 0 ? cwsg_walk(&state, Array(bad[cut...]), bad.count - cut) : first
            #expect(second == -1, "cut at \(cut)")
        }
        // The payload is skipped by count: bytes that look like an unmasked header inside it are not headers.
        var state = cwsg_walk_state()
        let inner: [UInt8] = [0x81, 0x84, 0, 0, 0, 0, 0x81, 0x05, 0x81, 0x05, 0x81, 0x80, 1, 2, 3, 4]
        #expect(cwsg_walk(&state, inner, inner.count) == 0)
        var top = cwsg_walk_state()
        #expect(cwsg_walk(&top, [0x81, 0xFF, 0x80, 0, 0, 0, 0, 0, 0, 1], 10) == -1)
    }
}
