import Foundation

#if canImport(Glibc)
    import Glibc
#endif

/// One hostile client of `ledger-bench rpc-abuse` (issue 26), run on a thread of its own until its deadline:
/// a flood of idle connections, deeply nested or huge bodies, bodies sent a byte a second, or batches of 10,000
/// calls, each repeated as fast as the server takes them.
enum RPCAbuser: String, CaseIterable {
    case none
    case flood
    case nested
    case huge
    case slow
    case batch

    /// What it does, for the report.
    var summary: String {
        switch self {
        case .none: return "no abuse"
        case .flood: return "2,000 idle connections, reopened when closed"
        case .nested: return "POSTs of 40 objects nested 450 deep (108 KB), back to back"
        case .huge: return "POSTs of a 2 MB body (200,000 numbers), back to back"
        case .slow: return "200 POSTs sending their body a byte a second, reopened when closed"
        case .batch: return "POSTs of a 10,000-call tellActive batch, back to back"
        }
    }

    /// Runs until `deadline`; returns how many requests (or connections) it made.
    func run(port: Int, until deadline: Double) -> Int {
        switch self {
        case .none: return 0
        case .flood: return Self.flood(port: port, count: 2000, until: deadline)
        case .nested: return Self.repeatPost(port: port, body: Self.nestedBody, until: deadline)
        case .huge: return Self.repeatPost(port: port, body: Self.hugeBody, until: deadline)
        case .batch: return Self.repeatPost(port: port, body: Self.batchBody, until: deadline)
        case .slow: return Self.slow(port: port, count: 200, until: deadline)
        }
    }

    static let nestedBody: String = {
        let one = String(repeating: #"{"a":"#, count: 450) + "1" + String(repeating: "}", count: 450)
        return #"{"jsonrpc":"2.0","id":1,"method":"aria2.addUri","params":["#
            + Array(repeating: one, count: 40).joined(separator: ",") + "]}"
    }()

    static let hugeBody: String =
        #"{"jsonrpc":"2.0","id":1,"method":"aria2.tellActive","params":[["#
        + Array(repeating: "1234567", count: 200_000).joined(separator: ",") + "]]}"

    static let batchBody: String =
        "["
        + Array(repeating: #"{"jsonrpc":"2.0","id":1,"method":"aria2.tellActive"}"#, count: 10_000)
        .joined(separator: ",") + "]"

    /// The same POST again and again on a keep-alive connection (a new one when the server closes it).
    static func repeatPost(port: Int, body: String, until deadline: Double) -> Int {
        var sent = 0
        var socket: RPCSocket?
        while RPCSocket.now() < deadline {
            do {
                if socket == nil { socket = try RPCSocket(port: port, timeout: 5) }
                _ = try socket?.post(body)
                sent += 1
            } catch {
                socket = nil
                usleep(10_000)
            }
        }
        return sent
    }

    /// A plain non-blocking connection (no buffers: thousands are held).
    static func connect(port: Int) -> Int32 {
        let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue) | Int32(SOCK_NONBLOCK.rawValue), 0)
        guard fd >= 0 else { return -1 }
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_port = UInt16(port).bigEndian
        address.sin_addr = in_addr(s_addr: UInt32(0x7F00_0001).bigEndian)
        _ = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                Glibc.connect(fd, $0, socklen_t(MemoryLayout<sockaddr_in>.size))
            }
        }
        return fd
    }

    /// Raises this process's descriptor limit to its hard limit (the flood holds thousands).
    static func raiseDescriptorLimit() {
        var limit = rlimit()
        getrlimit(Int32(RLIMIT_NOFILE.rawValue), &limit)
        limit.rlim_cur = limit.rlim_max
        setrlimit(Int32(RLIMIT_NOFILE.rawValue), &limit)
    }

    /// `count` connections that say nothing; each one the server closes is opened again.
    static func flood(port: Int, count: Int, until deadline: Double) -> Int {
        raiseDescriptorLimit()
        var fds = (0..<count).map { _ in connect(port: port) }
        var opened = count
        while RPCSocket.now() < deadline {
            var polls = fds.map { pollfd(fd: $0, events: Int16(POLLIN), revents: 0) }
            _ = poll(&polls, nfds_t(polls.count), 100)
            for i in polls.indices where polls[i].revents & Int16(POLLIN | POLLHUP | POLLERR) != 0 {
                close(fds[i])
                fds[i] = connect(port: port)
                opened += 1
            }
        }
        fds.forEach { close($0) }
        return opened
    }

    /// `count` POSTs announcing a 1,000-byte body and sending it a byte a second; reopened when closed.
    static func slow(port: Int, count: Int, until deadline: Double) -> Int {
        let head = Array(
            "POST /jsonrpc HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\nContent-Length: 1000\r\n\r\n"
                .utf8)
        func open() -> Int32 {
            let fd = connect(port: port)
            var writable = pollfd(fd: fd, events: Int16(POLLOUT), revents: 0)
            _ = poll(&writable, 1, 1000)
            _ = head.withUnsafeBytes { send(fd, $0.baseAddress, $0.count, Int32(MSG_NOSIGNAL)) }
            return fd
        }
        var fds = (0..<count).map { _ in open() }
        var opened = count
        var byte: UInt8 = UInt8(ascii: " ")
        while RPCSocket.now() < deadline {
            for i in fds.indices {
                var probe = pollfd(fd: fds[i], events: Int16(POLLIN), revents: 0)
                let closed = poll(&probe, 1, 0) > 0 || send(fds[i], &byte, 1, Int32(MSG_NOSIGNAL)) < 0
                if closed {
                    close(fds[i])
                    fds[i] = open()
                    opened += 1
                }
            }
            usleep(1_000_000)
        }
        fds.forEach { close($0) }
        return opened
    }
}
