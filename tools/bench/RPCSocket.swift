import Foundation

#if canImport(Glibc)
    import Glibc
#endif

/// One TCP connection to an RPC server on 127.0.0.1: a WebSocket client for the load (masked text frames out,
/// whole messages in) and a plain HTTP POST for the bench's own questions.
final class RPCSocket {
    let fd: Int32
    private var input: [UInt8] = []
    private var inputStart = 0
    private var output: [UInt8] = []
    private var outputStart = 0
    private var scratch = [UInt8](repeating: 0, count: 1 << 18)
    /// A WebSocket message arriving in fragments, so far.
    private var fragments: [UInt8] = []

    /// - Parameter timeout: seconds a blocking read may wait (an overloaded server answers late, not never).
    init(port: Int, timeout: Int = 10) throws {
        fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue) | Int32(SOCK_CLOEXEC.rawValue), 0)
        guard fd >= 0 else { throw TransferBenchError("socket: errno \(errno)") }
        var limit = timeval(tv_sec: timeout, tv_usec: 0)
        setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &limit, socklen_t(MemoryLayout<timeval>.size))
        var one: Int32 = 1
        setsockopt(fd, Int32(IPPROTO_TCP), TCP_NODELAY, &one, socklen_t(MemoryLayout<Int32>.size))
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_port = UInt16(port).bigEndian
        address.sin_addr = in_addr(s_addr: UInt32(0x7F00_0001).bigEndian)
        let rc = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                connect(fd, $0, socklen_t(MemoryLayout<sockaddr_in>.size))
            }
        }
        guard rc == 0 else {
            Glibc.close(fd)
            throw TransferBenchError("connect to 127.0.0.1:\(port): errno \(errno)")
        }
    }

    deinit { Glibc.close(fd) }

    /// The WebSocket handshake on /jsonrpc (blocking).
    func upgrade() throws {
        try sendAll(
            "GET /jsonrpc HTTP/1.1\r\nHost: 127.0.0.1\r\nUpgrade: websocket\r\nConnection: Upgrade\r\n"
                + "Sec-WebSocket-Key: dGhlIHNhbXBsZSBub25jZQ==\r\nSec-WebSocket-Version: 13\r\n\r\n")
        let head = try readHead()
        guard head.hasPrefix("HTTP/1.1 101") else {
            throw TransferBenchError("WebSocket upgrade refused: \(head.prefix(80))")
        }
    }

    /// One HTTP POST of `body` to /jsonrpc on this connection; the reply's body (blocking).
    func post(_ body: String) throws -> [UInt8] {
        try sendAll(
            "POST /jsonrpc HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\n"
                + "Content-Length: \(body.utf8.count)\r\n\r\n" + body)
        let head = try readHead().lowercased()
        guard
            let line = head.split(separator: "\r\n").first(where: { $0.hasPrefix("content-length:") }),
            let length = Int(line.dropFirst("content-length:".count).trimmingCharacters(in: .whitespaces))
        else { throw TransferBenchError("reply without a length: \(head.prefix(120))") }
        while input.count - inputStart < length {
            guard try fill() else { throw TransferBenchError("connection closed mid-reply") }
        }
        let reply = Array(input[inputStart..<(inputStart + length)])
        inputStart += length
        return reply
    }

    func setNonBlocking() {
        _ = fcntl(fd, F_SETFL, fcntl(fd, F_GETFL) | O_NONBLOCK)
    }

    /// Queues one masked text frame.
    func queueText(_ text: String) {
        let payload = Array(text.utf8)
        output.append(0x81)
        if payload.count < 126 {
            output.append(0x80 | UInt8(payload.count))
        } else {
            output += [0x80 | 126, UInt8(payload.count >> 8), UInt8(payload.count & 0xFF)]
        }
        let mask: [UInt8] = [0x5a, 0x13, 0xc7, 0x2e]
        output += mask
        for (i, byte) in payload.enumerated() { output.append(byte ^ mask[i & 3]) }
    }

    var hasOutput: Bool { outputStart < output.count }

    /// Writes what the socket takes now.
    func flush() {
        while outputStart < output.count {
            let n = output[outputStart...].withUnsafeBytes {
                send(fd, $0.baseAddress, $0.count, Int32(MSG_NOSIGNAL))
            }
            guard n > 0 else { break }
            outputStart += n
        }
        if outputStart == output.count {
            output.removeAll(keepingCapacity: true)
            outputStart = 0
        }
    }

    /// Reads what has arrived and hands over every whole text message.
    func read(_ message: (ArraySlice<UInt8>) -> Void) {
        while true {
            let n = scratch.withUnsafeMutableBytes { recv(fd, $0.baseAddress, $0.count, 0) }
            guard n > 0 else { break }
            input.append(contentsOf: scratch[0..<n])
            if n < scratch.count { break }
        }
        while let (opcode, final, payload) = nextFrame() {
            if opcode == 0x1 || opcode == 0x0 {
                if final && fragments.isEmpty {
                    message(payload)
                } else {
                    fragments += payload
                    if final {
                        message(fragments[...])
                        fragments = []
                    }
                }
            }
        }
        if inputStart > 0 && inputStart * 2 >= input.count {
            input.removeFirst(inputStart)
            inputStart = 0
        }
    }

    /// The next whole frame in the input, consumed; nil when it has not all arrived.
    private func nextFrame() -> (UInt8, Bool, ArraySlice<UInt8>)? {
        let available = input.count - inputStart
        guard available >= 2 else { return nil }
        let b0 = input[inputStart]
        var length = Int(input[inputStart + 1] & 0x7F)
        var header = 2
        if length == 126 {
            guard available >= 4 else { return nil }
            length = Int(input[inputStart + 2]) << 8 | Int(input[inputStart + 3])
            header = 4
        } else if length == 127 {
            guard available >= 10 else { return nil }
            length = input[(inputStart + 2)..<(inputStart + 10)].reduce(0) { $0 << 8 | Int($1) }
            header = 10
        }
        guard available >= header + length else { return nil }
        let start = inputStart + header
        inputStart = start + length
        return (b0 & 0x0F, b0 & 0x80 != 0, input[start..<(start + length)])
    }

    private func sendAll(_ text: String) throws {
        output += Array(text.utf8)
        while hasOutput {
            let before = outputStart
            flush()
            guard outputStart > before || !hasOutput else { throw TransferBenchError("send: errno \(errno)") }
        }
    }

    /// Reads up to the blank line that ends a response's head; returns the head.
    private func readHead() throws -> String {
        let end: [UInt8] = [13, 10, 13, 10]
        while true {
            if let range = input[inputStart...].firstRange(of: end) {
                let head = String(decoding: input[inputStart..<range.lowerBound], as: UTF8.self)
                inputStart = range.upperBound
                return head
            }
            guard try fill() else { throw TransferBenchError("connection closed before a reply") }
        }
    }

    private func fill() throws -> Bool {
        let n = scratch.withUnsafeMutableBytes { recv(fd, $0.baseAddress, $0.count, 0) }
        if n < 0 { throw TransferBenchError("recv: errno \(errno)") }
        guard n > 0 else { return false }
        input.append(contentsOf: scratch[0..<n])
        return true
    }

    /// Monotonic seconds.
    static func now() -> Double { TransferProcess.now() }
}
