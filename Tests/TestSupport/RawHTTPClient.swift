import Foundation
import Glibc

/// A deliberately tiny HTTP/1.1 client over a plain socket to 127.0.0.1, so that servers (LoopbackHTTP, the RPC
/// server, `dledger serve`) are tested on the wire, byte for byte, with nothing in between to mend what they send.
public final class RawHTTPClient {
    public struct Failure: Error, CustomStringConvertible {
        public var description: String
        public init(description: String) { self.description = description }
    }

    /// One response as read from the socket.
    public struct Response {
        public var status: Int
        /// Names lower-cased.
        public var headers: [String: String]
        public var body: [UInt8]
        /// False when the connection ended before the announced body did.
        public var complete: Bool
        public var text: String { String(decoding: body, as: UTF8.self) }
        public var json: [String: Any]? {
            try? JSONSerialization.jsonObject(with: Data(body)) as? [String: Any]
        }
    }

    public let fd: Int32
    /// Bytes received and not yet taken.
    private var pending: [UInt8] = []

    /// Connects to 127.0.0.1:`port`; reads give up after `timeout` seconds so a broken server fails the test.
    public init(port: Int, timeout: Int = 10) throws {
        guard let port = UInt16(exactly: port) else {
            throw Failure(description: "port \(port) out of range")
        }
        fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        guard fd >= 0 else { throw Failure(description: "socket: errno \(errno)") }
        var limit = timeval(tv_sec: timeout, tv_usec: 0)
        setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &limit, socklen_t(MemoryLayout<timeval>.size))
        guard Self.connect(fd, port: port) == 0 else {
            let code = errno
            close(fd)
            throw Failure(description: "connect: errno \(code)")
        }
    }

    public convenience init(port: UInt16, timeout: Int = 10) throws {
        try self.init(port: Int(port), timeout: timeout)
    }

    deinit { close(fd) }

    /// Whether something accepts connections on 127.0.0.1:`port`.
    public static func canConnect(port: UInt16) -> Bool {
        let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        defer { close(fd) }
        return connect(fd, port: port) == 0
    }

    private static func connect(_ fd: Int32, port: UInt16) -> Int32 {
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_port = port.bigEndian
        address.sin_addr = in_addr(s_addr: UInt32(0x7F00_0001).bigEndian)
        return withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                Glibc.connect(fd, $0, socklen_t(MemoryLayout<sockaddr_in>.size))
            }
        }
    }

    // MARK: Sending

    /// Sends raw bytes, all of them.
    public func send(_ bytes: [UInt8]) throws {
        var offset = 0
        while offset < bytes.count {
            let sent = bytes[offset...].withUnsafeBytes {
                Glibc.send(fd, $0.baseAddress, $0.count, Int32(MSG_NOSIGNAL))
            }
            guard sent > 0 else { throw Failure(description: "send: errno \(errno)") }
            offset += sent
        }
    }

    /// Sends raw text.
    public func send(_ text: String) throws { try send(Array(text.utf8)) }

    /// Sends a request without a body, with a Host header and `headers`; the response is read apart.
    public func sendRequest(_ method: String = "GET", _ path: String, headers: [String: String] = [:]) throws
    {
        var text = "\(method) \(path) HTTP/1.1\r\nHost: 127.0.0.1\r\n"
        for (name, value) in headers.sorted(by: { $0.key < $1.key }) {
            text += "\(name): \(value)\r\n"
        }
        try send(text + "\r\n")
    }

    /// One request with any method and no body, `extra` header lines (each ending in CRLF) added; its response.
    public func request(_ method: String, _ target: String, extra: String = "") throws -> Response {
        try send("\(method) \(target) HTTP/1.1\r\nHost: 127.0.0.1\r\n\(extra)\r\n")
        return try response()
    }

    /// One JSON POST (to /jsonrpc unless told) on this connection (keep-alive); its response.
    public func post(_ body: String, path: String = "/jsonrpc", extra: String = "") throws -> Response {
        try send(
            "POST \(path) HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\n\(extra)"
                + "Content-Length: \(body.utf8.count)\r\n\r\n\(body)")
        return try response()
    }

    // MARK: Receiving

    /// Reads one response; `bodyless` for the answer to HEAD. A 1xx, 204 or 304 has no body; otherwise a chunked
    /// body, a `Content-Length` one, or, without either, everything until the server closes.
    public func response(bodyless: Bool = false) throws -> Response {
        let (status, headers) = try head()
        var response = Response(status: status, headers: headers, body: [], complete: true)
        if bodyless || (100..<200).contains(status) || status == 204 || status == 304 { return response }
        if headers["transfer-encoding"]?.lowercased() == "chunked" {
            try readChunked(into: &response)
        } else if let length = headers["content-length"].flatMap({ Int($0) }) {
            response.body = try read(count: length)
            response.complete = response.body.count == length
        } else {
            response.body = try readToEnd()
        }
        return response
    }

    /// Reads a status line and headers.
    public func head() throws -> (status: Int, headers: [String: String]) {
        var lines: [String] = []
        while true {
            let line = try readLine()
            if line.isEmpty { break }
            lines.append(line)
        }
        let parts = lines.first?.split(separator: " ") ?? []
        guard parts.count >= 2, parts[0].hasPrefix("HTTP/1."), let status = Int(parts[1]) else {
            throw Failure(description: "bad status line \(lines.first ?? "<none>")")
        }
        var headers: [String: String] = [:]
        for line in lines.dropFirst() {
            guard let colon = line.firstIndex(of: ":") else {
                throw Failure(description: "bad header \(line)")
            }
            let value = line[line.index(after: colon)...].trimmingCharacters(in: .whitespaces)
            headers[line[..<colon].lowercased()] = value
        }
        return (status, headers)
    }

    /// Reads up to `count` bytes: fewer only when the server closes first.
    public func read(count: Int) throws -> [UInt8] {
        while pending.count < count {
            guard try fill() else { break }
        }
        let taken = Array(pending.prefix(count))
        pending.removeFirst(taken.count)
        return taken
    }

    /// Reads exactly `count` bytes, or throws when the server closes first.
    public func take(_ count: Int) throws -> [UInt8] {
        let bytes = try read(count: count)
        guard bytes.count == count else { throw Failure(description: "closed early") }
        return bytes
    }

    /// Reads until the server closes the connection.
    public func readToEnd() throws -> [UInt8] {
        while try fill() {}
        defer { pending = [] }
        return pending
    }

    /// Whether the server closes the connection: reads until the end of the stream (or a reset), false when the
    /// read times out first. What came before the end is read past.
    public func isClosed() -> Bool {
        while true {
            guard let more = try? fill() else { return false }
            if !more { return true }
        }
    }

    /// Whether the server has closed the connection by now, without waiting (end of stream, or a reset).
    public func isClosedNow() -> Bool {
        var probe = pollfd(fd: fd, events: Int16(POLLIN), revents: 0)
        guard poll(&probe, 1, 0) > 0 else { return false }
        var byte: UInt8 = 0
        let n = recv(fd, &byte, 1, Int32(MSG_PEEK | MSG_DONTWAIT))
        return n == 0 || (n < 0 && errno != EAGAIN)
    }

    private func readChunked(into response: inout Response) throws {
        while true {
            let sizeLine = try readLine()
            guard let size = Int(sizeLine.split(separator: ";").first ?? "", radix: 16) else {
                response.complete = false
                return
            }
            if size == 0 {
                _ = try readLine()
                return
            }
            let data = try read(count: size)
            response.body += data
            guard data.count == size, try readLine().isEmpty else {
                response.complete = false
                return
            }
        }
    }

    private func readLine() throws -> String {
        while true {
            if let newline = pending.firstIndex(of: UInt8(ascii: "\n")) {
                var line = pending[..<newline]
                if line.last == UInt8(ascii: "\r") { line = line.dropLast() }
                defer { pending.removeFirst(newline + 1) }
                return String(decoding: line, as: UTF8.self)
            }
            guard try fill() else {
                defer { pending = [] }
                return String(decoding: pending, as: UTF8.self)
            }
        }
    }

    /// Receives more bytes; false at the end of the stream (or a reset). Throws when the read times out.
    private func fill() throws -> Bool {
        var buffer = [UInt8](repeating: 0, count: 64 * 1024)
        while true {
            let count = buffer.withUnsafeMutableBytes { recv(fd, $0.baseAddress, $0.count, 0) }
            if count > 0 {
                pending += buffer[..<count]
                return true
            }
            if count == 0 || errno == ECONNRESET { return false }
            if errno == EINTR { continue }
            throw Failure(description: "recv: errno \(errno) (timed out?)")
        }
    }
}
