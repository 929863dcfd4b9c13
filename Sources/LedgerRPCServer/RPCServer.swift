import CWebSockets
import CWriteback
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
/// libwebsockets on one thread of its own; the answers come from an ``Aria2Service``, called on worker threads so
/// that a call that waits (a command's commit) holds up neither the socket thread nor other clients' reads.
///
/// ```swift
/// let server = try RPCServer(service: service, configuration: .init(port: 6800))
/// server.start()
/// server.broadcast(notification)   // to every WebSocket client
/// server.stop()
/// ```
public final class RPCServer: @unchecked Sendable {
    // @unchecked: the lws context and `connections` are touched only by the server thread (after init); the only
    // calls from other threads are lws_cancel_service, which lws documents as thread-safe, made with `shared` (a
    // Mutex) held and only while `destroyed` is false, and `shared` itself.

    public struct Configuration: Sendable {
        /// 0 lets the system pick (tests); read the chosen one from ``RPCServer/port``.
        public var port: Int
        /// Listen on every address (needs a secret) instead of 127.0.0.1 only.
        public var listenAll: Bool
        /// Take requests from every web page, answered with `Access-Control-Allow-Origin: *` (aria2's
        /// `--rpc-allow-origin-all`); otherwise only those of ``allowedOrigins`` (``RPCAdmission``).
        public var allowOriginAll: Bool
        /// The web pages (`--rpc-allow-origin URL`, their origins) that may call; browser extensions always may.
        public var allowedOrigins: [String]
        /// Names this server is reached by besides loopback ones (a `Host` naming anything else is refused).
        public var hostNames: [String]
        /// The largest request body or WebSocket message, in bytes (aria2's `--rpc-max-request-size`, 2 MiB).
        public var maxRequestSize: Int
        /// Seconds a keep-alive connection may sit idle between requests.
        public var idleTimeout: Int
        /// Seconds a client has to send a request's headers and body.
        public var requestTimeout: Int
        /// Bytes of replies and notifications a WebSocket client may fall behind by before it is dropped.
        public var maxQueuedBytes: Int
        /// Client connections held open at most; fewer when the descriptor limit is low
        /// (``RPCServer/connectionLimit``). At the limit a new connection takes the place of the one idle the
        /// longest (first those that never completed a request).
        public var maxConnections: Int

        public init(
            port: Int = 6800, listenAll: Bool = false, allowOriginAll: Bool = false,
            maxRequestSize: Int = 2 << 20, idleTimeout: Int = 60, requestTimeout: Int = 15,
            maxQueuedBytes: Int = 4 << 20, allowedOrigins: [String] = [], hostNames: [String] = [],
            maxConnections: Int = 1000
        ) {
            self.port = port
            self.allowedOrigins = allowedOrigins
            self.hostNames = hostNames
            self.listenAll = listenAll
            self.allowOriginAll = allowOriginAll
            self.maxRequestSize = maxRequestSize
            self.idleTimeout = idleTimeout
            self.requestTimeout = requestTimeout
            self.maxQueuedBytes = maxQueuedBytes
            self.maxConnections = maxConnections
        }
    }

    struct Shared {
        /// Close now.
        var stopping = false
        /// Answer what was asked, write it out, then close (``stop()``).
        var draining = false
        /// The context is gone: nobody may wake it.
        var destroyed = false
        var notifications: [[UInt8]] = []
        /// Replies the workers finished, for the server thread to send.
        var done: [Done] = []
    }

    /// A reply a worker finished, for the connection `serial`.
    struct Done {
        var serial: UInt64
        var reply: Aria2Service.Reply
        /// The JSONP callback of a GET that named one.
        var callback: String?
    }

    public let service: Aria2Service
    public let configuration: Configuration
    /// Which requests are taken, by their headers.
    let admission: RPCAdmission
    /// The port listened on.
    public private(set) var port: Int = 0
    /// Set once by init (nil when it failed), never changed after.
    private(set) var context: OpaquePointer?
    private let protocols: UnsafeMutablePointer<lws_protocols>
    private let names: [UnsafeMutablePointer<CChar>]
    var connections: [OpaquePointer: RPCConnection] = [:]
    /// The connection of each serial, for replies coming back from the workers. Server thread only.
    var bySerial: [UInt64: OpaquePointer] = [:]
    var nextSerial: UInt64 = 0
    /// Requests handed to the workers and not yet back. Server thread only.
    var inFlight = 0
    /// Whether a drain has begun, as the server thread last saw it.
    var drainingSeen = false
    /// Where requests are read (parsed) and reads answered, side by side (``dispatch(_:reads:callback:_:)``).
    let readers = RPCWorkers(count: RPCServer.readerCount, name: "dledger-read")
    /// Where large requests are read and answered, one at a time: a client sending them back to back holds
    /// this thread, never the readers other clients' small calls need.
    let bulk = RPCWorkers(count: 1, name: "dledger-bulk")
    /// Where the calls that change the list run, one at a time.
    let writer = RPCWorkers(count: 1, name: "dledger-write")
    /// Reader threads: enough that a slow read leaves others free, few enough that each costs little.
    static let readerCount = max(2, min(4, ProcessInfo.processInfo.activeProcessorCount))
    /// A body or message larger than this is read on ``bulk``.
    static let bulkSize = 64 << 10
    /// Client connections held open at most: the configured maximum, or less when the descriptor limit
    /// (`RLIMIT_NOFILE`) would not leave half of it, less 64, for the transfers, the ledger and the rest of the
    /// process (``descriptorShare(_:)``).
    public let connectionLimit: Int
    /// Connections open now that are not being closed. Server thread only.
    var liveConnections = 0
    /// Connections in the order they were accepted, by serial, from `freshHead` on: the first to make room while
    /// they have not completed a request (``evictionCandidate(_:lookingAtAll:)``). Server thread only.
    var fresh: [(OpaquePointer, UInt64)] = []
    var freshHead = 0
    /// The once-a-second timer that closes connections past their deadlines (``sweep()``).
    let timer: UnsafeMutablePointer<cws_timer>
    let shared = Mutex(Shared())
    /// How long ``stop()`` waits for replies to go out before it closes the connections anyway.
    static let drainLimit = 2.0
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
        connectionLimit = min(configuration.maxConnections, Self.descriptorShare(Self.descriptorLimit()))
        timer = .allocate(capacity: 1)
        timer.initialize(to: cws_timer())
        admission = RPCAdmission(
            allowOriginAll: configuration.allowOriginAll, origins: configuration.allowedOrigins,
            hostNames: configuration.hostNames, anyAddress: configuration.listenAll)
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
        // lws stops accepting (connections wait in the kernel's queue) when it holds this many descriptors: the
        // limit, the listening socket and its wake-up pipe, and room for those being closed to make way.
        info.fd_limit_per_thread = UInt32(connectionLimit + 16)
        info.user = Unmanaged.passUnretained(self).toOpaque()
        timer.pointee.owner = info.user
        guard let created = lws_create_context(&info) else {
            // Every stored property is set by now, so deinit runs and frees the buffers (freeing them here too
            // was a double free: a busy port crashed the process).
            throw RPCServerError.cannotListen(
                port: configuration.port, address: configuration.listenAll ? "*" : "127.0.0.1")
        }
        context = created
        port = Int(lws_get_vhost_listen_port(lws_get_vhost_by_name(created, "default")))
    }

    deinit {
        stop()
        readers.stop()
        bulk.stop()
        writer.stop()
        timer.deallocate()
        protocols.deallocate()
        names.forEach { free($0) }
        scratch.deallocate()
    }

    /// Serves on a thread of its own until ``stop()``.
    public func start() {
        guard !started, let live = context else { return }
        started = true
        // Only this thread uses the context from now on (stop() waits for it to end).
        nonisolated(unsafe) let context = live
        let thread = Thread { [self] in
            _ = cwriteback_name_thread("dledger-rpc")
            cws_schedule(context, timer, rpcTimer, Self.sweepInterval)
            var deadline = Double.infinity
            while true {
                let (stopping, draining) = shared.withLock { ($0.stopping, $0.draining) }
                if stopping { break }
                if draining {
                    if !drainingSeen {
                        drainingSeen = true
                        deadline = Self.now() + Self.drainLimit
                    }
                    if isDrained() || Self.now() > deadline { break }
                }
                if lws_service(context, 0) < 0 { break }
            }
            shared.withLock { $0.destroyed = true }
            lws_context_destroy(context)
            finished.signal()
        }
        thread.start()
    }

    /// Stops taking requests, lets the replies to those already taken go out (at most ``drainLimit`` seconds:
    /// the `aria2.shutdown` that asked for the stop gets its "OK"), then closes every connection and the
    /// listening socket; returns when the server thread has ended. Safe from any thread, more than once.
    public func stop() {
        guard let context else { return }
        let first = shared.withLock { s -> Bool in
            defer { s.draining = true }
            if !s.draining && !s.destroyed && started { lws_cancel_service(context) }
            return !s.draining
        }
        if started {
            // Every caller waits for the end (the semaphore is passed on to the next waiter), waking the server
            // thread now and then so that it looks at the drain's deadline even when no socket stirs.
            while finished.wait(timeout: .now() + .milliseconds(100)) == .timedOut {
                shared.withLock { s in
                    if !s.destroyed { lws_cancel_service(context) }
                }
            }
            finished.signal()
        } else if first {
            shared.withLock { $0.destroyed = true }
            lws_context_destroy(context)
        }
    }

    /// Sends a message (a notification) to every WebSocket client. Safe from any thread.
    public func broadcast(_ message: [UInt8]) {
        guard let context else { return }
        shared.withLock { s in
            guard !s.draining, !s.destroyed else { return }
            s.notifications.append(message)
            lws_cancel_service(context)
        }
    }

    /// Limits glibc's malloc to `arenas` arenas for the whole process; call it before threads start. Each thread
    /// that allocates may otherwise get an arena of its own (up to 8 per core), each keeping what was freed in
    /// it: under 200 polling clients, replies built on the workers and freed on the server thread grew serve's
    /// peak memory by tens of MiB (`ledger-bench rpc`); two arenas hold it near one client's.
    public static func limitMallocArenas(_ arenas: Int) {
        _ = cws_limit_malloc_arenas(Int32(arenas))
    }

    /// The descriptor limit of the process (the soft `RLIMIT_NOFILE`).
    static func descriptorLimit() -> Int {
        var limit = rlimit()
        guard getrlimit(Int32(RLIMIT_NOFILE.rawValue), &limit) == 0 else { return 1024 }
        return Int(min(limit.rlim_cur, 1 << 24))
    }

    /// The connections a process allowed `limit` descriptors may hold: half of what is left after 64, so that
    /// a flood of clients never takes the descriptors the transfers, the ledger (SQLite and its journal) and the
    /// runtime need (libdispatch traps when it cannot open /proc to watch its threads), and at least 8.
    static func descriptorShare(_ limit: Int) -> Int {
        max(8, (limit - 64) / 2)
    }

    static func now() -> Double {
        var time = timespec()
        clock_gettime(CLOCK_MONOTONIC, &time)
        return Double(time.tv_sec) + Double(time.tv_nsec) / 1e9
    }
}

/// The sweep timer lws calls on the server thread (``RPCServer/sweep()``), which schedules it again.
private func rpcTimer(_ sul: UnsafeMutablePointer<lws_sorted_usec_list_t>?) {
    guard let sul else { return }
    let timer = UnsafeMutableRawPointer(sul).assumingMemoryBound(to: cws_timer.self)
    guard let owner = timer.pointee.owner else { return }
    let server = Unmanaged<RPCServer>.fromOpaque(owner).takeUnretainedValue()
    server.sweep()
    if let context = server.context {
        cws_schedule(context, timer, rpcTimer, RPCServer.sweepInterval)
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
