import CWriteback
import Foundation
import LedgerStore
import Synchronization

/// The thread that looks for other processes' changes on behalf of a ledger's followers (``ChangeFollowers``).
///
/// When the store has a ``ChangeListener`` (PostgreSQL: LISTEN on a connection of its own), the thread sleeps in
/// `poll(2)` on its descriptor and refreshes the ledger as soon as a commit is announced, with a slow fallback look
/// (``fallback``) in case an announcement is ever lost; while it has none (SQLite, or a listener whose connection
/// dropped), it looks every `interval`. A lost listener is made again at most every `fallback`, and the log is read
/// once it is back (commits made meanwhile were not announced).
final class ChangeWaiter: Sendable {
    /// What the waiter calls: both take the ledger's lock, neither is called with it held.
    struct Hooks: Sendable {
        /// The store's listener factory (``EventStore/changeListener()``), asked again while there is none: the
        /// store can change (a new ledger's first write).
        var listener: @Sendable () -> (@Sendable () throws -> any ChangeListener)?
        /// Folds in other processes' changes; `announced` when a commit was announced (read the log even if the
        /// store's own change token has not moved yet). False when the ledger is gone: the thread ends.
        var refresh: @Sendable (_ announced: Bool) -> Bool
    }

    /// The shortest wait between two looks while a listener is heard (the interval asked for, when longer).
    static let fallback = Duration.seconds(2)

    /// How the thread is told to end: a flag, and a pipe whose closing wakes its `poll`.
    private final class StopSignal: Sendable {
        let requested = Atomic<Bool>(false)
        let read: Int32
        let write: Int32

        init() {
            var ends: [Int32] = [-1, -1]
            if pipe(&ends) == 0 {
                // Not handed to the programs a download's hooks run.
                for end in ends { _ = fcntl(end, F_SETFD, FD_CLOEXEC) }
            } else {
                ends = [-1, -1]
            }
            read = ends[0]
            write = ends[1]
        }

        deinit { if read >= 0 { close(read) } }
    }

    private let signal = StopSignal()

    /// Starts the thread.
    init(interval: Duration, hooks: Hooks) {
        let signal = self.signal
        let thread = Thread {
            _ = cwriteback_name_thread("dledger-changes")
            Self.wait(interval: interval, hooks: hooks, signal: signal)
        }
        thread.start()
    }

    /// Ends the thread, at once (without a pipe, at its next look).
    func stop() {
        guard !signal.requested.exchange(true, ordering: .sequentiallyConsistent), signal.write >= 0 else {
            return
        }
        close(signal.write)
    }

    deinit { stop() }

    private static func wait(interval: Duration, hooks: Hooks, signal: StopSignal) {
        var listener: (any ChangeListener)?
        var nextAttempt = ContinuousClock.now
        while !signal.requested.load(ordering: .sequentiallyConsistent) {
            if listener == nil, ContinuousClock.now >= nextAttempt {
                nextAttempt = .now + fallback
                if let make = hooks.listener(), let made = try? make() {
                    listener = made
                    // Commits before it listened were announced to nobody.
                    guard hooks.refresh(true) else { return }
                }
            }
            var descriptors = [
                pollfd(fd: signal.read, events: Int16(POLLIN), revents: 0),
                pollfd(fd: listener?.descriptor ?? -1, events: Int16(POLLIN), revents: 0),
            ]
            let ready = poll(
                &descriptors, 2, milliseconds(listener == nil ? interval : max(interval, fallback)))
            if ready < 0 && errno != EINTR { Thread.sleep(forTimeInterval: 0.05) }
            if descriptors[0].revents != 0 || signal.requested.load(ordering: .sequentiallyConsistent) {
                return
            }
            var announced = false
            if let heard = listener, descriptors[1].revents != 0 {
                announced = heard.drain()
                if heard.isLost {
                    listener = nil
                    announced = true
                }
            }
            guard hooks.refresh(announced) else { return }
        }
    }

    /// `duration` in whole milliseconds for `poll`, at least 1.
    private static func milliseconds(_ duration: Duration) -> Int32 {
        let (seconds, attoseconds) = duration.components
        return Int32(clamping: max(1, seconds * 1000 + attoseconds / 1_000_000_000_000_000))
    }
}
