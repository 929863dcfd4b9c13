import Foundation
import Glibc

/// A tiny HTTP/1.1 and WebSocket client over a plain socket, so the server is tested on the wire.
final class WireClient {
    struct Failure: Error, CustomStringConvertible {
        var description: String
    }

    struct Response {
        var status: Int
        /// Names lower-cased.
        var headers: [String: String]
        var body: [UInt8]
        var text: String { String(decoding: body, as: UTF8.self) }
        var json: [String: Any]? { try? JSONSerialization.jsonObject(with: Data(body)) as? [String: Any] }
    }

    let fd: Int32
    private var buffer: [UInt8] = []

    init(port: Int, timeout: Int = 10) throws {
        fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        guard fd >= 0 else { throw Failure(description: "socket: errno \(errno)") }
        var limit = timeval(tv_sec: timeout, tv_usec: 0)
        setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &limit, socklen_t(MemoryLayout<timeval>.size))
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_port = UInt16(port).bigEndian
        address.sin_addr = in_addr(s_addr: UInt32(0x7F00_0001).bigEndian)
        let rc = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                Glibc.connect(fd, $0, socklen_t(MemoryLayout<sockaddr_in>.size))
            }
        }
        guard rc == 0 else {
            close(fd)
            throw Failure(description: "connect: errno \(errno)")
        }
    }

    deinit { close(fd) }

    func send(_ bytes: [UInt8]) throws {
        var sent = 0
        while sent < bytes.count {
            let n = bytes[sent...].withUnsafeBytes {
                Glibc.send(fd, $0.baseAddress, $0.count, Int32(MSG_NOSIGNAL))
            }
            guard n > 0 else { throw Failure(description: "send: errno \(errno)") }
            sent += n
        }
    }

    func send(_ text: String) throws { try send(Array(text.utf8)) }

    /// Reads more bytes; false at end of stream.
    private func fill() throws -> Bool {
        var chunk = [UInt8](repeating: 0, count: 65536)
        let n = chunk.withUnsafeMutableBytes { recv(fd, $0.baseAddress, $0.count, 0) }
        if n < 0 { throw Failure(description: "recv: errno \(errno) (timeout?)") }
        if n == 0 { return false }
        buffer += chunk[0..<n]
        return true
    }

    /// Whether the server closed the connection (reads until end of stream or timeout).
    func isClosed() -> Bool {
        while true {
            guard let more = try? fill() else { return false }
            if !more { return true }
        }
    }

    private func take(_ n: Int) throws -> [UInt8] {
        while buffer.count < n { guard try fill() else { throw Failure(description: "closed early") } }
        defer { buffer.removeFirst(n) }
        return Array(buffer[0..<n])
    }

    /// Reads one HTTP response (Content-Length bodies).
    func response() throws -> Response {
        let marker: [UInt8] = [13, 10, 13, 10]
        var end: Int?
        while end == nil {
            if buffer.count >= 4 {
                end = (0...(buffer.count - 4)).first { Array(buffer[$0..<$0 + 4]) == marker }
            }
            if end == nil { guard try fill() else { throw Failure(description: "closed before headers") } }
        }
        let head = String(decoding: buffer[0..<end!], as: UTF8.self)
        buffer.removeFirst(end! + 4)
        var lines = head.components(separatedBy: "\r\n")
        let status = Int(lines.removeFirst().split(separator: " ")[1]) ?? 0
        var headers: [String: String] = [:]
        for line in lines {
            guard let colon = line.firstIndex(of: ":") else { continue }
            headers[line[..<colon].lowercased()] = line[line.index(after: colon)...]
                .trimmingCharacters(in: .whitespaces)
        }
        let length = Int(headers["content-length"] ?? "0") ?? 0
        return Response(status: status, headers: headers, body: try take(length))
    }

    /// One POST to /jsonrpc on this connection (keep-alive).
    func post(_ body: String, path: String = "/jsonrpc", extra: String = "") throws -> Response {
        try send(
            "POST \(path) HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\n\(extra)"
                + "Content-Length: \(body.utf8.count)\r\n\r\n\(body)")
        return try response()
    }

    /// One request with any method and no body.
    func request(_ method: String, _ target: String, extra: String = "") throws -> Response {
        try send("\(method) \(target) HTTP/1.1\r\nHost: 127.0.0.1\r\n\(extra)\r\n")
        return try response()
    }

    // MARK: WebSocket

    /// Upgrades this connection to a WebSocket on `path`; returns the handshake's status.
    @discardableResult
    func upgrade(path: String = "/jsonrpc", extra: String = "") throws -> Int {
        try send(
            "GET \(path) HTTP/1.1\r\nHost: 127.0.0.1\r\nUpgrade: websocket\r\nConnection: Upgrade\r\n\(extra)"
                + "Sec-WebSocket-Key: dGhlIHNhbXBsZSBub25jZQ==\r\nSec-WebSocket-Version: 13\r\n\r\n")
        return try response().status
    }

    /// Sends one masked text frame.
    func sendText(_ text: String) throws {
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

    /// Reads the next text message (pings are answered, other control frames skipped).
    func receiveText() throws -> String {
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
    func receive(until match: ([String: Any]) -> Bool) throws -> [String: Any] {
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
