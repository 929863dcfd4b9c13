import CWebSockets
import Foundation
import LedgerRPC
import Synchronization

/// Why the server could not start.
public enum RPCServerError: Error, Sendable, CustomStringConvertible {
    case cannotListen(port: Int, address: String)
    case secretRequired

    public var description: String {
        switch self {
        case .cannotListen(let port, let address):
            return "cannot listen on \(address):\(port) (in use, or not allowed)"
        case .secretRequired:
            return "listening on all addresses needs a secret (--rpc-secret)"
        }
    }
}

/// The aria2 JSON-RPC endpoint at `/jsonrpc`: HTTP POST, HTTP GET (with JSONP) and WebSocket, served by
/// libwebsockets on one thread of its own; the answers come from an ``Aria2Service``.
///
/// ```swift
/// let server = try RPCServer(service: service, configuration: .init(port: 6800))
/// server.start()
/// server.broadcast(notification)   // to every WebSocket client
/// server.stop()
/// ```
public final class RPCServer: @unchecked Sendable {
    // @unchecked: the lws context and `connections` are touched only by the server thread (after init); the only
    // calls from other threads are lws_cancel_service, which lws documents as thread-safe, and `shared`, a Mutex.

    public struct Configuration: Sendable {
        /// 0 lets the system pick (tests); read the chosen one from ``RPCServer/port``.
        public var port: Int
        /// Listen on every address (needs a secret) instead of 127.0.0.1 only.
        public var listenAll: Bool
        /// Send `Access-Control-Allow-Origin: *` and answer preflights, as aria2's `--rpc-allow-origin-all`.
        public var allowOriginAll: Bool
        /// The largest request body or WebSocket message, in bytes (aria2's `--rpc-max-request-size`, 2 MiB).
        public var maxRequestSize: Int
        /// Seconds a keep-alive connection may sit idle between requests.
        public var idleTimeout: Int
        /// Seconds a client has to send a request's headers and body.
        public var requestTimeout: Int
        /// Bytes of replies and notifications a WebSocket client may fall behind by before it is dropped.
        public var maxQueuedBytes: Int

        public init(
            port: Int = 6800, listenAll: Bool = false, allowOriginAll: Bool = false,
            maxRequestSize: Int = 2 << 20, idleTimeout: Int = 60, requestTimeout: Int = 15,
            maxQueuedBytes: Int = 16 << 20
        ) {
            self.port = port
            self.listenAll = listenAll
            self.allowOriginAll = allowOriginAll
            self.maxRequestSize = maxRequestSize
            self.idleTimeout = idleTimeout
            self.requestTimeout = requestTimeout
            self.maxQueuedBytes = maxQueuedBytes
        }
    }

    struct Shared {
        var stopping = false
        var notifications: [[UInt8]] = []
    }

    public let service: Aria2Service
    public let configuration: Configuration
    /// The port listened on.
    public private(set) var port: Int = 0
    var context: OpaquePointer?
    private let protocols: UnsafeMutablePointer<lws_protocols>
    private let names: [UnsafeMutablePointer<CChar>]
    var connections: [OpaquePointer: RPCConnection] = [:]
    let shared = Mutex(Shared())
    private let finished = DispatchSemaphore(value: 0)
    private var started = false
    /// Where replies are copied before `lws_write` (which needs `LWS_PRE` bytes of headroom).
    let scratch: UnsafeMutablePointer<UInt8>
    static let chunk = 1 << 16
    let pre = cws_pre()

    /// Binds the listening socket.
    /// - Throws: ``RPCServerError``.
    public init(service: Aria2Service, configuration: Configuration = .init()) throws {
        if configuration.listenAll && !service.hasSecret { throw RPCServerError.secretRequired }
        self.service = service
        self.configuration = configuration
        scratch = .allocate(capacity: cws_pre() + Self.chunk + 4096)
        let name = strdup("aria2-jsonrpc")!
        let address = strdup("127.0.0.1")!
        names = [name, address]
        protocols = .allocate(capacity: 2)
        protocols.initialize(repeating: lws_protocols(), count: 2)
        protocols[0].name = UnsafePointer(name)
        protocols[0].callback = rpcCallback
        protocols[0].per_session_data_size = 0
        protocols[0].rx_buffer_size = 0
        cws_quiet_log()
        var info = lws_context_creation_info()
        info.port = Int32(configuration.port)
        info.iface = configuration.listenAll ? nil : UnsafePointer(address)
        info.protocols = UnsafePointer(protocols)
        info.options = cws_option_validate_utf8() | (configuration.listenAll ? 0 : cws_option_disable_ipv6())
        info.keepalive_timeout = Int32(configuration.idleTimeout)
        info.timeout_secs = UInt32(configuration.requestTimeout)
        // Each connection reading its headers holds one header buffer (allocated as needed): enough for every
        // connection a busy front end and its neighbours keep open, so none waits for another's timeout.
        info.max_http_header_data = 8 * 1024
        info.max_http_header_pool = 4096
        info.user = Unmanaged.passUnretained(self).toOpaque()
        guard let context = lws_create_context(&info) else {
            // Every stored property is set by now, so deinit runs and frees the buffers (freeing them here too
            // was a double free: a busy port crashed the process).
            throw RPCServerError.cannotListen(
                port: configuration.port, address: configuration.listenAll ? "*" : "127.0.0.1")
        }
        self.context = context
        port = Int(lws_get_vhost_listen_port(lws_get_vhost_by_name(context, "default")))
    }

    deinit {
        stop()
        protocols.deallocate()
        names.forEach { free($0) }
        scratch.deallocate()
    }

    /// Serves on a thread of its own until ``stop()``.
    public func start() {
        guard !started, let live = context else { return }
        started = true
        // Only this thread uses the context from now on (stop() waits for it to end before forgetting it).
        nonisolated(unsafe) let context = live
        let thread = Thread { [self] in
            while !shared.withLock({ $0.stopping }) {
                if lws_service(context, 0) < 0 { break }
            }
            lws_context_destroy(context)
            finished.signal()
        }
        thread.name = "dledger-rpc"
        thread.start()
    }

    /// Closes every connection and the listening socket; returns when the server thread has ended.
    public func stop() {
        guard let context else { return }
        let first = shared.withLock { s -> Bool in
            defer { s.stopping = true }
            return !s.stopping
        }
        guard first else { return }
        if started {
            lws_cancel_service(context)
            finished.wait()
        } else {
            lws_context_destroy(context)
        }
        self.context = nil
    }

    /// Sends a message (a notification) to every WebSocket client. Safe from any thread.
    public func broadcast(_ message: [UInt8]) {
        guard let context else { return }
        let live = shared.withLock { s -> Bool in
            if !s.stopping { s.notifications.append(message) }
            return !s.stopping
        }
        if live { lws_cancel_service(context) }
    }
}

/// The protocol callback lws calls on the server thread; it hands over to the server the context belongs to.
private func rpcCallback(
    _ wsi: OpaquePointer?, _ reason: lws_callback_reasons, _ user: UnsafeMutableRawPointer?,
    _ input: UnsafeMutableRawPointer?, _ length: Int
) -> Int32 {
    guard let wsi, let context = lws_get_context(wsi), let raw = lws_context_user(context) else {
        return lws_callback_http_dummy(wsi, reason, user, input, length)
    }
    let server = Unmanaged<RPCServer>.fromOpaque(raw).takeUnretainedValue()
    return server.callback(wsi, reason, user, input, length)
}
