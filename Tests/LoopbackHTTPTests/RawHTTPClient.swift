import Glibc

/// A deliberately tiny HTTP/1.1 client over a plain socket, so the server is tested on the wire.
final class RawHTTPClient {
    struct Failure: Error, CustomStringConvertible {
        var description: String
    }

    /// One response as read from the socket.
    struct Response {
        var status: Int
        /// Names lower-cased.
        var headers: [String: String]
        var body: [UInt8]
        /// False when the connection ended before the announced body did.
        var complete: Bool
    }

    let fd: Int32
    private var pending: [UInt8] = []

    /// Connects to 127.0.0.1:`port`; reads give up after `timeout` seconds so a broken server fails the test.
    init(port: UInt16, timeout: Int = 10) throws {
        fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        guard fd >= 0 else { throw Failure(description: "socket: errno \(errno)") }
        var limit = timeval(tv_sec: timeout, tv_usec: 0)
        setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &limit, socklen_t(MemoryLayout<timeval>.size))
        guard RawHTTPClient.connect(fd, port: port) == 0 else {
            let code = errno
            close(fd)
            throw Failure(description: "connect: errno \(code)")
        }
    }

    deinit {
        close(fd)
    }

    /// Whether something accepts connections on 127.0.0.1:`port`.
    static func canConnect(port: UInt16) -> Bool {
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

    /// Sends raw text.
    func send(_ text: String) throws {
        let bytes = Array(text.utf8)
        var offset = 0
        while offset < bytes.count {
            let sent = bytes[offset...].withUnsafeBytes {
                Glibc.send(fd, $0.baseAddress, $0.count, Int32(MSG_NOSIGNAL))
            }
            guard sent > 0 else { throw Failure(description: "send: errno \(errno)") }
            offset += sent
        }
    }

    /// Sends a request with a Host header and `headers`.
    func request(_ method: String = "GET", _ path: String, headers: [String: String] = [:]) throws {
        var text = "\(method) \(path) HTTP/1.1\r\nHost: 127.0.0.1\r\n"
        for (name, value) in headers.sorted(by: { $0.key < $1.key }) {
            text += "\(name): \(value)\r\n"
        }
        try send(text + "\r\n")
    }

    /// Reads one response; `bodyless` for the answer to HEAD.
    func response(bodyless: Bool = false) throws -> Response {
        let (status, headers) = try head()
        var response = Response(status: status, headers: headers, body: [], complete: true)
        if bodyless { return response }
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
    func head() throws -> (status: Int, headers: [String: String]) {
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
            let value = line[line.index(after: colon)...].drop(while: { $0 == " " })
            headers[line[..<colon].lowercased()] = String(value)
        }
        return (status, headers)
    }

    /// Reads up to `count` bytes: fewer only when the server closes first.
    func read(count: Int) throws -> [UInt8] {
        while pending.count < count {
            guard try fill() else { break }
        }
        let taken = Array(pending.prefix(count))
        pending.removeFirst(taken.count)
        return taken
    }

    /// Reads until the server closes the connection.
    func readToEnd() throws -> [UInt8] {
        while try fill() {}
        defer { pending = [] }
        return pending
    }

    /// Whether the server closed the connection (with nothing more to read).
    func isClosed() throws -> Bool {
        try readToEnd().isEmpty && pending.isEmpty
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

    /// Receives more bytes; false at end of stream.
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
