import Foundation
import LedgerCore
import Synchronization

/// Who follows a ``Ledger``'s changes, and the one poller that looks for other processes' changes for them all.
///
/// A change made through the ledger is published to every follower at once (``publish(_:)``). SQLite tells no
/// other process of a commit, so while anyone follows, one task polls the file (``Ledger/refresh()``: a look at its
/// change counter) at the shortest interval any follower asked for; the poll publishes what it folds in. A
/// process that runs the downloader and notifies RPC clients thus has one follower of the file, not one each.
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
        var poller: Task<Void, Never>?
        var pollInterval: Duration?
    }

    private let state = Mutex(State())

    /// Adds a follower of lists and hands it `current` (the caller holds the ledger's lock, so no change is
    /// missed between the two). `poll` refreshes the ledger.
    func follow(
        _ continuation: AsyncStream<DownloadList>.Continuation, current: DownloadList, pollInterval: Duration,
        poll: @escaping @Sendable () -> Void
    ) -> UUID {
        continuation.yield(current)
        return add(Follower(sink: .lists(continuation), pollInterval: pollInterval), poll: poll)
    }

    /// Adds a follower of heads and hands it `current`.
    func follow(
        _ continuation: AsyncStream<Int64>.Continuation, current: Int64, pollInterval: Duration,
        poll: @escaping @Sendable () -> Void
    ) -> UUID {
        continuation.yield(current)
        return add(Follower(sink: .heads(continuation), pollInterval: pollInterval), poll: poll)
    }

    private func add(_ follower: Follower, poll: @escaping @Sendable () -> Void) -> UUID {
        let id = UUID()
        state.withLock { state in
            state.followers[id] = follower
            Self.adjustPoller(&state, poll: poll)
        }
        return id
    }

    /// Removes a follower (its stream ended); the poller stops with the last one.
    func unfollow(_ id: UUID, poll: @escaping @Sendable () -> Void) {
        state.withLock { state in
            state.followers[id] = nil
            Self.adjustPoller(&state, poll: poll)
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

    /// Runs one poller at the shortest interval asked for, none without followers.
    private static func adjustPoller(_ state: inout State, poll: @escaping @Sendable () -> Void) {
        let wanted = state.followers.values.map(\.pollInterval).min()
        guard wanted != state.pollInterval else { return }
        state.poller?.cancel()
        state.pollInterval = wanted
        state.poller = wanted.map { interval in
            Task {
                while !Task.isCancelled {
                    try? await Task.sleep(for: interval)
                    if !Task.isCancelled { poll() }
                }
            }
        }
    }
}
