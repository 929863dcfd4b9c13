import Foundation
import Glibc

/// A small HTTP/1.1 server on 127.0.0.1 that serves real bytes, with Range support and fault injection, for
/// tests, benchmarks and demos.
///
/// It binds an ephemeral port at `init` and answers on background threads (one per connection) until `stop()`
/// or `deinit`. Everything is thread-safe: resources can be added, replaced or removed while clients download.
///
/// ```swift
/// let server = try LoopbackServer()
/// server.serve("/big.bin", Resource(size: 1 << 30, seed: 1, etag: "\"v1\""))
/// download(server.url("big.bin"))                   // http://127.0.0.1:<port>/big.bin
/// #expect(server.requests("/big.bin").count == 1)
/// ```
public final class LoopbackServer: Sendable {
    /// The port the server listens on.
    public let port: UInt16
    private let core: ServerCore

    /// Binds 127.0.0.1 on an ephemeral port and starts accepting connections.
    /// - Throws: ``LoopbackError`` when a socket cannot be created or bound.
    public init() throws {
        core = try ServerCore()
        let listener = try LoopbackServer.listen()
        port = try LoopbackServer.boundPort(of: listener)
        let core = self.core
        core.state.withLock { $0.listener = listener }
        core.spawn { LoopbackServer.acceptLoop(core) }
    }

    deinit {
        core.stop()
    }

    /// The URL of `path` on this server: `http://127.0.0.1:<port>/<path without its leading slash>`.
    public func url(_ path: String) -> String {
        let relative = path.hasPrefix("/") ? String(path.dropFirst()) : path
        return "http://127.0.0.1:\(port)/\(relative)"
    }

    /// Serves `resource` at `path` (with or without a leading slash), replacing what was there and resetting
    /// its fault counters; requests already recorded stay.
    public func serve(_ path: String, _ resource: Resource) {
        core.serve(path, resource)
    }

    /// Stops serving `path`: later requests get 404.
    public func remove(_ path: String) {
        core.remove(path)
    }

    /// Every request seen for `path` (any method, query ignored), oldest first.
    public func requests(_ path: String) -> [RecordedRequest] {
        core.requests(path)
    }

    /// How many responses sent their bodies at the same time.
    public struct Concurrency: Sendable, Equatable {
        /// Bodies (so connections) at once.
        public var bodies = 0
        /// Distinct paths among them.
        public var paths = 0
    }

    /// The most bodies sent at once since the server started, and the most distinct paths they were of (each
    /// measured at its own peak): what a client's connection limits look like from the server.
    public var peakConcurrency: Concurrency {
        core.state.withLock { $0.peak }
    }

    /// Closes the listener and every connection, and waits for the server's threads (a few seconds at most).
    /// Idempotent; also done by `deinit`.
    public func stop() {
        core.stop()
    }

    private static func listen() throws(LoopbackError) -> Socket {
        let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue) | Int32(SOCK_CLOEXEC.rawValue), 0)
        guard fd >= 0 else { throw .last("socket") }
        let listener = Socket(fd: fd)
        listener.set(level: SOL_SOCKET, option: SO_REUSEADDR, to: 1)
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_port = 0
        address.sin_addr = in_addr(s_addr: UInt32(0x7F00_0001).bigEndian)
        let bound = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                bind(fd, $0, socklen_t(MemoryLayout<sockaddr_in>.size))
            }
        }
        guard bound == 0 else { throw .last("bind") }
        guard Glibc.listen(fd, SOMAXCONN) == 0 else { throw .last("listen") }
        guard fcntl(fd, F_SETFL, fcntl(fd, F_GETFL) | O_NONBLOCK) == 0 else { throw .last("fcntl") }
        return listener
    }

    private static func boundPort(of listener: Socket) throws(LoopbackError) -> UInt16 {
        var address = sockaddr_in()
        var length = socklen_t(MemoryLayout<sockaddr_in>.size)
        let result = withUnsafeMutablePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { getsockname(listener.fd, $0, &length) }
        }
        guard result == 0 else { throw .last("getsockname") }
        return UInt16(bigEndian: address.sin_port)
    }

    /// Accepts until the server stops; the listener closes when this returns.
    private static func acceptLoop(_ core: ServerCore) {
        guard let listener = core.takeListener() else { return }
        while core.waitReadable(listener.fd) == .ready {
            let fd = accept(listener.fd, nil, nil)
            guard fd >= 0 else {
                if errno == EMFILE || errno == ENFILE || errno == ENOBUFS || errno == ENOMEM {
                    _ = core.pause(milliseconds: 10)
                }
                continue
            }
            _ = fcntl(fd, F_SETFD, FD_CLOEXEC)
            let socket = Socket(fd: fd)
            socket.set(level: Int32(IPPROTO_TCP), option: TCP_NODELAY, to: 1)
            guard core.track(socket) else { return }
            core.spawn {
                defer { core.untrack(socket) }
                Connection(socket: socket, core: core).run()
            }
        }
    }
}
