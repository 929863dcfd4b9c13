import Foundation

/// A loopback TCP relay to a port on 127.0.0.1 that a test can cut: one host's path to a database server, which
/// fails while the others' stay up (a network partition). While cut, every relayed connection is shut down and new
/// ones are accepted and closed at once, so the client sees the server close the connection.
final class TCPRelay: @unchecked Sendable {
    /// The port clients connect to.
    let port: UInt16
    private let upstream: UInt16
    private let listener: Int32
    private let lock = NSLock()
    private var isCut = false
    private var stopped = false
    /// The relayed connections' two sockets each (closed by their pump thread).
    private var links: [Int: (Int32, Int32)] = [:]
    private var nextLink = 0

    /// Listens on a free port of 127.0.0.1 and relays each connection to `upstream` there. With `namespace` (a
    /// network namespace, `/proc/PID/ns/net`: ``NetworkNamespace/path``), it listens on 127.0.0.1 in that
    /// namespace instead, and still reaches `upstream` in this process's: clients that run in the namespace reach
    /// the server only through it.
    init(to upstream: UInt16, listeningIn namespace: String? = nil) throws {
        self.upstream = upstream
        let (fd, port) =
            try namespace.map { try NetworkNamespace.inside($0) { try Self.listening() } } ?? Self.listening()
        listener = fd
        self.port = port
        let thread = Thread { [self] in acceptLoop() }
        thread.start()
    }

    /// A socket listening on a free port of 127.0.0.1, and that port.
    private static func listening() throws -> (Int32, UInt16) {
        let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        guard fd >= 0 else { throw POSIXError(.EMFILE) }
        var address = Self.loopback(port: 0)
        var length = socklen_t(MemoryLayout<sockaddr_in>.size)
        let bound = withUnsafeMutablePointer(to: &address) { pointer in
            pointer.withMemoryRebound(to: sockaddr.self, capacity: 1) { generic in
                bind(fd, generic, length) == 0 && listen(fd, 16) == 0
                    && getsockname(fd, generic, &length) == 0
            }
        }
        guard bound else {
            close(fd)
            throw POSIXError(.EADDRINUSE)
        }
        return (fd, UInt16(bigEndian: address.sin_port))
    }

    /// Cuts the path (every relayed connection ends, new ones are closed at once) or mends it.
    func cut(_ cut: Bool) {
        let open = lock.withLock {
            isCut = cut
            return Array(links.values)
        }
        guard cut else { return }
        for (a, b) in open {
            shutdown(a, Int32(SHUT_RDWR))
            shutdown(b, Int32(SHUT_RDWR))
        }
    }

    /// Stops listening and ends every relayed connection.
    func stop() {
        lock.withLock { stopped = true }
        cut(true)
    }

    private static func loopback(port: UInt16) -> sockaddr_in {
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        address.sin_port = port.bigEndian
        return address
    }

    private func acceptLoop() {
        defer { close(listener) }
        while !lock.withLock({ stopped }) {
            var ready = pollfd(fd: listener, events: Int16(POLLIN), revents: 0)
            guard poll(&ready, 1, 100) > 0 else { continue }
            let client = accept(listener, nil, nil)
            guard client >= 0 else { continue }
            guard !lock.withLock({ isCut }), let server = connectUpstream() else {
                close(client)
                continue
            }
            let key = lock.withLock {
                nextLink += 1
                links[nextLink] = (client, server)
                return nextLink
            }
            let thread = Thread { [self] in
                pump(client, server)
                lock.withLock { _ = links.removeValue(forKey: key) }
                close(client)
                close(server)
            }
            thread.start()
        }
    }

    private func connectUpstream() -> Int32? {
        let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        guard fd >= 0 else { return nil }
        var address = Self.loopback(port: upstream)
        let connected = withUnsafePointer(to: &address) { pointer in
            pointer.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                connect(fd, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) == 0
            }
        }
        guard connected else {
            close(fd)
            return nil
        }
        return fd
    }

    /// Copies bytes both ways until either side ends (or the link is cut: its sockets shut down).
    private func pump(_ a: Int32, _ b: Int32) {
        var buffer = [UInt8](repeating: 0, count: 65_536)
        var fds = [
            pollfd(fd: a, events: Int16(POLLIN), revents: 0),
            pollfd(fd: b, events: Int16(POLLIN), revents: 0),
        ]
        while true {
            let n = poll(&fds, 2, 500)
            if n < 0 && errno != EINTR { return }
            if n <= 0 { continue }
            for (index, entry) in fds.enumerated() where entry.revents != 0 {
                let from = entry.fd
                let to = index == 0 ? b : a
                let got = read(from, &buffer, buffer.count)
                guard got > 0 else { return }
                var sent = 0
                while sent < got {
                    // Never SIGPIPE: a side that went away ends the link.
                    let w = buffer[sent..<got].withUnsafeBytes {
                        send(to, $0.baseAddress, $0.count, Int32(MSG_NOSIGNAL))
                    }
                    guard w > 0 else { return }
                    sent += w
                }
            }
        }
    }
}
