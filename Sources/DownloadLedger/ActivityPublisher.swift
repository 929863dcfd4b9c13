import CWriteback
import Foundation
import LedgerTransfer
import Synchronization

/// Copies the engine's activity to an ``ActivityBoard`` on a thread of its own, every ``interval`` while it
/// changes (and at least every second while transfers run, so a reader can tell a live snapshot by its age), so
/// the board is never more than about half a second behind the engine and the transfer loop never waits for the
/// file.
final class ActivityPublisher: Sendable {
    /// How often the engine's snapshot is looked at.
    static let interval = 0.25

    private struct State {
        var stopped = false
    }

    private let state = Mutex(State())
    private let wake = DispatchSemaphore(value: 0)
    private let done = DispatchSemaphore(value: 0)
    private let board: any ActivityBoard

    /// Publishes an empty snapshot at once (a dead writer's file is replaced), then follows `source`.
    init(board: any ActivityBoard, source: @escaping @Sendable () -> [TransferActivity]) {
        self.board = board
        let thread = Thread { [self] in
            _ = cwriteback_name_thread("dledger-board")
            run(source)
        }
        thread.start()
    }

    private func run(_ source: () -> [TransferActivity]) {
        var last: [TransferActivity]? = nil
        var lastWrite = 0.0
        while !state.withLock({ $0.stopped }) {
            let now = RetryWait.wallClock()
            let activity = source()
            if activity != last || (!activity.isEmpty && now - lastWrite >= 1) {
                // A board that cannot be written (a full disk) is tried again next time; transfers go on.
                if (try? board.publish(activity)) != nil {
                    last = activity
                    lastWrite = now
                }
            }
            _ = wake.wait(timeout: .now() + Self.interval)
        }
        board.withdraw()
        done.signal()
    }

    /// Stops publishing and withdraws the snapshot; returns once the file is gone. Idempotent.
    func stop() {
        let first = state.withLock { state in
            defer { state.stopped = true }
            return !state.stopped
        }
        guard first else { return }
        wake.signal()
        done.wait()
    }
}
