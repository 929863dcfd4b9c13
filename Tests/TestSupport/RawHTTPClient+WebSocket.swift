import Foundation

/// The client side of a WebSocket on the same connection: the upgrade, masked text frames, messages read back.
extension RawHTTPClient {
    /// Upgrades this connection to a WebSocket on `path`; returns the handshake's status.
    @discardableResult
    public func upgrade(path: String = "/jsonrpc", extra: String = "") throws -> Int {
        try send(
            "GET \(path) HTTP/1.1\r\nHost: 127.0.0.1\r\nUpgrade: websocket\r\nConnection: Upgrade\r\n\(extra)"
                + "Sec-WebSocket-Key: dGhlIHNhbXBsZSBub25jZQ==\r\nSec-WebSocket-Version: 13\r\n\r\n")
        return try response().status
    }

    /// Sends one masked text frame.
    public func sendText(_ text: String) throws {
        let payload = Array(text.utf8)
        var frame: [UInt8] = [0x81]
        if payload.count < 126 {
            frame.append(0x80 | UInt8(payload.count))
        } else if payload.count < 65536 {
            frame += [0x80 | 126, UInt8(payload.count >> 8), UInt8(payload.count & 0xFF)]
        } else {
            frame.append(0x80 | 127)
            for shift in stride(from: 56, through: 0, by: -8) {
                frame.append(UInt8((payload.count >> shift) & 0xFF))
            }
        }
        let mask: [UInt8] = [0x12, 0x34, 0x56, 0x78]
        frame += mask
        frame += payload.enumerated().map { $0.element ^ mask[$0.offset % 4] }
        try send(frame)
    }

    /// Reads the next text message (control frames other than a close are skipped).
    public func receiveText() throws -> String {
        while true {
            let head = try take(2)
            let opcode = head[0] & 0x0F
            var length = Int(head[1] & 0x7F)
            if length == 126 {
                let b = try take(2)
                length = Int(b[0]) << 8 | Int(b[1])
            } else if length == 127 {
                length = try take(8).reduce(0) { $0 << 8 | Int($1) }
            }
            let payload = try take(length)
            if opcode == 0x1 { return String(decoding: payload, as: UTF8.self) }
            if opcode == 0x8 { throw Failure(description: "closed by the server") }
        }
    }

    /// Reads messages until one satisfies `match` (notifications and replies interleave).
    public func receive(until match: ([String: Any]) -> Bool) throws -> [String: Any] {
        while true {
            let text = try receiveText()
            if let json = try JSONSerialization.jsonObject(with: Data(text.utf8)) as? [String: Any],
                match(json)
            {
                return json
            }
        }
    }
}
