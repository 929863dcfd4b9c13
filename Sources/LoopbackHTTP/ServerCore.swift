import Foundation
import Glibc
import Synchronization

/// The state shared by the public server object and its threads.
///
/// Threads hold the core, never the ``LoopbackServer``, so dropping the server runs its `deinit`, which stops
/// everything. A pipe that becomes readable once at `stop()` wakes every thread waiting in `poll`.
final class ServerCore: Sendable {
    /// What the server knows about one served path.
    struct Route {
        var resource: Resource
        var requestsSeen = 0
        var dropsUsed = 0
        var stallsUsed = 0
    }

    /// Where a body response must be cut short.
    struct Cut: Equatable {
        var dropAfter: Int64?
        var stallAfter: Int64?
    }

    struct State {
        var stopped = false
        var routes: [String: Route] = [:]
        var log: [String: [RecordedRequest]] = [:]
        var open: [ObjectIdentifier: Socket] = [:]
        /// Parked here between `init` and the accept thread taking it (see `takeListener()`).
        var listener: Socket?
        /// Bodies being sent now, by path; and the most at once so far (see ``ServerCore/sending(_:_:)``).
        var sending: [String: Int] = [:]
        var peak = LoopbackServer.Concurrency()
    }

    let state = Mutex(State())
    private let wakeRead: Int32
    private let wakeWrite: Int32
    private let threads = DispatchGroup()

    init() throws(LoopbackError) {
        var fds: [Int32] = [-1, -1]
        guard pipe(&fds) == 0 else { throw .last("pipe") }
        for fd in fds { _ = fcntl(fd, F_SETFD, FD_CLOEXEC) }
        wakeRead = fds[0]
        wakeWrite = fds[1]
    }

    deinit {
        close(wakeRead)
        close(wakeWrite)
    }

    /// The key a path is served under: always with a leading slash.
    static func key(_ path: String) -> String {
        path.hasPrefix("/") ? path : "/" + path
    }

    // MARK: threads

    /// Runs `work` on a new thread that `stop()` waits for.
    func spawn(_ work: @escaping @Sendable () -> Void) {
        threads.enter()
        let thread = Thread { [threads] in
            defer { threads.leave() }
            work()
        }
        thread.start()
    }

    /// Hands the listener to the accept thread, which then holds the only reference: the descriptor closes
    /// as soon as the accept loop returns, before `stop()` stops waiting (a closure capturing it would keep
    /// it open until the `Thread` object happens to be freed).
    func takeListener() -> Socket? {
        state.withLock { state in
            defer { state.listener = nil }
            return state.listener
        }
    }

    /// Registers a connection so `stop()` can shut it down; false when the server is already stopped.
    func track(_ socket: Socket) -> Bool {
        state.withLock { state in
            guard !state.stopped else { return false }
            state.open[ObjectIdentifier(socket)] = socket
            return true
        }
    }

    func untrack(_ socket: Socket) {
        _ = state.withLock { $0.open.removeValue(forKey: ObjectIdentifier(socket)) }
    }

    /// Stops accepting, shuts every connection down and waits (a few seconds at most) for the threads to end.
    func stop() {
        let sockets: [Socket]? = state.withLock { state in
            guard !state.stopped else { return nil }
            state.stopped = true
            return Array(state.open.values)
        }
        guard let sockets else { return }
        var byte: UInt8 = 1
        _ = write(wakeWrite, &byte, 1)
        for socket in sockets { socket.shutdownBoth() }
        _ = threads.wait(timeout: .now() + .seconds(5))
    }

    /// Whether ``stop()`` was called.
    var isStopped: Bool { state.withLock { $0.stopped } }

    // MARK: waiting

    enum Wait {
        case ready
        case stopped
        case timedOut
    }

    /// Waits until `fd` is readable (or `timeout` milliseconds pass, -1 for never) unless the server stops.
    func waitReadable(_ fd: Int32, timeout: Int32 = -1) -> Wait {
        var fds = [
            pollfd(fd: wakeRead, events: Int16(POLLIN), revents: 0),
            pollfd(fd: fd, events: Int16(POLLIN), revents: 0),
        ]
        while true {
            let count = poll(&fds, nfds_t(fds.count), timeout)
            if count < 0 && errno == EINTR { continue }
            if count < 0 || fds[0].revents != 0 { return .stopped }
            return count == 0 ? .timedOut : .ready
        }
    }

    /// Sleeps `milliseconds`; false when the server stopped meanwhile.
    func pause(milliseconds: Int32) -> Bool {
        var fds = [pollfd(fd: wakeRead, events: Int16(POLLIN), revents: 0)]
        let count = poll(&fds, 1, max(0, milliseconds))
        return count == 0 || (count < 0 && errno == EINTR)
    }
}
