import CWriteback
import Foundation

/// Runs the blocking end of transfers (fsync, waiting for the hash, linking, the directory fsync) on a few threads
/// of its own, so one file's fsync never stalls the transfers still receiving on the loop thread.
///
/// Items start in submission order, up to ``width`` at a time (concurrent fsyncs share journal commits);
/// each runs exactly once, also after ``close()`` was called.
final class CompletionQueue: @unchecked Sendable {
    // @unchecked: every `var` is guarded by `condition`, an NSCondition because idle threads wait on it.
    /// Threads started at most; they start on demand and stay until ``close()``.
    let width: Int
    private let condition = NSCondition()
    /// Guarded by `condition`.
    private var items: [@Sendable () -> Void] = []
    /// Guarded by `condition`.
    private var head = 0
    /// Guarded by `condition`.
    private var threads = 0
    /// Threads waiting for an item; guarded by `condition`.
    private var idle = 0
    /// Guarded by `condition`.
    private var closed = false
    private let exited = DispatchGroup()

    /// Eight: a file's end is mostly waiting for its journal commit, and the fsyncs that wait together share one.
    /// With four, 200 files of 1 MiB finishing 8 at a time queued up behind the commits (the last completion came
    /// 40–100 ms after the last request); with eight the queue stays short. Threads start only when items wait.
    static let defaultWidth = 8

    init(width: Int = CompletionQueue.defaultWidth) {
        self.width = max(width, 1)
    }

    /// Queues `item`, starting another thread when the idle ones cannot take all that waits and fewer than
    /// ``width`` run.
    func submit(_ item: @escaping @Sendable () -> Void) {
        condition.lock()
        defer { condition.unlock() }
        precondition(!closed, "completion submitted after close")
        items.append(item)
        condition.signal()
        if items.count - head > idle && threads < width {
            threads += 1
            exited.enter()
            let thread = Thread { [self] in
                _ = cwriteback_name_thread("dledger-finish")
                _ = cwriteback_background_thread()  // its wake-ups do not preempt the loop
                work()
                exited.leave()
            }
            thread.start()
        }
    }

    /// Runs `body` on a completion thread in the normal policy, then puts the thread back in SCHED_BATCH. A thread
    /// inherits its policy from the one that starts it, and delivering an event can start one (the consumer's task
    /// resumed on a dispatch pool with no idle thread): that thread must not stay in SCHED_BATCH.
    static func outsideBatch(_ body: () -> Void) {
        // Not a completion thread in SCHED_BATCH (the call failed): nothing to leave, nothing to restore.
        guard sched_getscheduler(0) != SCHED_OTHER else { return body() }
        _ = cwriteback_foreground_thread()
        body()
        _ = cwriteback_background_thread()
    }

    /// Runs what is queued, then ends the threads and waits for them.
    func close() {
        condition.lock()
        closed = true
        condition.broadcast()
        condition.unlock()
        exited.wait()
    }

    private func work() {
        while let item = next() {
            item()
        }
    }

    private func next() -> (@Sendable () -> Void)? {
        condition.lock()
        defer { condition.unlock() }
        while head == items.count {
            if closed { return nil }
            idle += 1
            condition.wait()
            idle -= 1
        }
        let item = items[head]
        head += 1
        if head == items.count {
            items.removeAll(keepingCapacity: true)
            head = 0
        }
        return item
    }
}
