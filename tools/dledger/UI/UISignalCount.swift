import Synchronization

/// How many quit signals `dledger ui` received, counted on the signal handlers' threads.
final class SignalCount: Sendable {
    private let count = Mutex(0)

    /// Counts one more signal; returns how many arrived so far.
    func next() -> Int {
        count.withLock { count in
            count += 1
            return count
        }
    }
}
