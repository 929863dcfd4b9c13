import CWriteback
import Foundation
import Synchronization

/// A fixed number of threads that run jobs in the order given: the RPC calls run here rather than on libdispatch's
/// pool, which on Linux starts a thread for each job it sees waiting on a lock (a thousand clients' reads would
/// become hundreds of threads, each with its own stack and malloc arena). The threads end at ``stop()``.
final class RPCWorkers: Sendable {
    private struct State {
        var jobs: [@Sendable () -> Void] = []
        var head = 0
        var stopping = false
    }

    private let state = Mutex(State())
    /// One signal per job queued, and one per thread at the stop.
    private let ready = DispatchSemaphore(value: 0)
    private let count: Int
    private let ended = DispatchSemaphore(value: 0)

    /// Starts `count` threads named `name`.
    init(count: Int, name: String) {
        self.count = count
        for i in 0..<count {
            let threadName = count > 1 ? "\(name)-\(i)" : name
            let thread = Thread { [self] in
                _ = cwriteback_name_thread(threadName)
                Thread.current.threadDictionary[Self.key] = ObjectIdentifier(self).hashValue
                while let job = next() { job() }
                ended.signal()
            }
            // Calls recurse little (parsing is bounded in depth); the default 8 MiB is reserved per thread.
            thread.stackSize = 1 << 20
            thread.start()
        }
    }

    /// Queues a job; it runs after those queued before it, on the first free thread.
    func submit(_ job: @escaping @Sendable () -> Void) {
        let taken = state.withLock { s -> Bool in
            guard !s.stopping else { return false }
            s.jobs.append(job)
            return true
        }
        if taken { ready.signal() }
    }

    /// Runs the jobs already queued, then ends every thread; returns when they have ended (when called from one
    /// of them, as the server's deinit may be when a job held the last reference, when the others have).
    func stop() {
        let first = state.withLock { s -> Bool in
            defer { s.stopping = true }
            return !s.stopping
        }
        guard first else { return }
        for _ in 0..<count { ready.signal() }
        let mine = Thread.current.threadDictionary[Self.key] as? Int == ObjectIdentifier(self).hashValue
        for _ in 0..<(mine ? count - 1 : count) { ended.wait() }
    }

    /// Marks the threads of a set of workers (the thread dictionary's key).
    private static let key = "dledger.rpc-workers"

    private func next() -> (@Sendable () -> Void)? {
        while true {
            ready.wait()
            let job = state.withLock { s -> (@Sendable () -> Void)?? in
                if s.head < s.jobs.count {
                    let job = s.jobs[s.head]
                    s.head += 1
                    if s.head > 256 && s.head * 2 > s.jobs.count {
                        s.jobs.removeFirst(s.head)
                        s.head = 0
                    }
                    return .some(job)
                }
                return s.stopping ? .some(nil) : nil
            }
            // A signal with nothing queued is a stop's (the jobs queued before it ran first).
            if let job { return job }
        }
    }
}
