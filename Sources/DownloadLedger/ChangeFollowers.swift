import Foundation
import LedgerCore
import Synchronization

/// Who follows a ``Ledger``'s changes, and the one waiter that looks for other processes' changes for them all.
///
/// A change made through the ledger is published to every follower at once (``publish(_:)``). While anyone follows,
/// one ``ChangeWaiter`` thread looks for other processes' commits: on PostgreSQL it sleeps until a NOTIFY announces
/// one (then refreshes at once), with a slow fallback look; SQLite tells no other process of a commit, so there it
/// polls the file (``Ledger/refresh()``: a look at its change counter) at the shortest interval any follower asked
/// for. What a refresh folds in is published. A process that runs the downloader and notifies RPC clients thus has
/// one follower of the log, not one each.
final class ChangeFollowers: Sendable {
    private enum Sink {
        case lists(AsyncStream<DownloadList>.Continuation)
        case heads(AsyncStream<Int64>.Continuation)
    }

    private struct Follower {
        var sink: Sink
        var pollInterval: Duration
    }

    private struct State {
        var followers: [UUID: Follower] = [:]
        var poller: ChangeWaiter?
        var pollInterval: Duration?
        /// The ledger is gone (``close()``): no waiter is started again.
        var closed = false
    }

    private let state = Mutex(State())

    /// Adds a follower of lists and hands it `current` (the caller holds the ledger's lock, so no change is
    /// missed between the two). `hooks` are how the waiter refreshes the ledger.
    func follow(
        _ continuation: AsyncStream<DownloadList>.Continuation, current: DownloadList, pollInterval: Duration,
        hooks: ChangeWaiter.Hooks
    ) -> UUID {
        continuation.yield(current)
        return add(Follower(sink: .lists(continuation), pollInterval: pollInterval), hooks: hooks)
    }

    /// Adds a follower of heads and hands it `current`.
    func follow(
        _ continuation: AsyncStream<Int64>.Continuation, current: Int64, pollInterval: Duration,
        hooks: ChangeWaiter.Hooks
    ) -> UUID {
        continuation.yield(current)
        return add(Follower(sink: .heads(continuation), pollInterval: pollInterval), hooks: hooks)
    }

    private func add(_ follower: Follower, hooks: ChangeWaiter.Hooks) -> UUID {
        let id = UUID()
        state.withLock { state in
            state.followers[id] = follower
            Self.adjustPoller(&state, hooks: hooks)
        }
        return id
    }

    /// Removes a follower (its stream ended); the poller stops with the last one.
    func unfollow(_ id: UUID, hooks: ChangeWaiter.Hooks) {
        state.withLock { state in
            state.followers[id] = nil
            Self.adjustPoller(&state, hooks: hooks)
        }
    }

    /// Hands `list` to every follower. The caller holds the ledger's lock: followers see changes in order.
    func publish(_ list: DownloadList) {
        let sinks = state.withLock { $0.followers.values.map(\.sink) }
        for sink in sinks {
            switch sink {
            case .lists(let c): c.yield(list)
            case .heads(let c): c.yield(list.head)
            }
        }
    }

    /// The ledger is gone: its waiter stops (and with it the waiter's thread, pipe and listener connection), and
    /// every follower's stream ends.
    func close() {
        let sinks = state.withLock { state in
            state.closed = true
            state.poller?.stop()
            state.poller = nil
            state.pollInterval = nil
            defer { state.followers = [:] }
            return state.followers.values.map(\.sink)
        }
        for sink in sinks {
            switch sink {
            case .lists(let c): c.finish()
            case .heads(let c): c.finish()
            }
        }
    }

    /// Runs one waiter at the shortest interval asked for, none without followers.
    private static func adjustPoller(_ state: inout State, hooks: ChangeWaiter.Hooks) {
        guard !state.closed else { return }
        let wanted = state.followers.values.map(\.pollInterval).min()
        guard wanted != state.pollInterval else { return }
        state.poller?.stop()
        state.pollInterval = wanted
        state.poller = wanted.map { ChangeWaiter(interval: $0, hooks: hooks) }
    }
}
