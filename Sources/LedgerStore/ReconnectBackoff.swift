/// When a lost connection to a database server is tried again: at once the first time, then after a delay that
/// starts at ``initial`` and doubles after each failed try, up to ``maximum``; a success starts over.
///
/// ```swift
/// var backoff = ReconnectBackoff()
/// if backoff.mayTry(at: .now) {
///     if reconnected { backoff.succeeded() } else { backoff.failed(at: .now) }
/// }
/// backoff.nextTry   // when the next try is due, while failing
/// ```
///
/// A value: one per connection, changed by the thread that uses the connection.
public struct ReconnectBackoff: Sendable, Equatable {
    /// The wait after the first failed try.
    public var initial: Duration = .milliseconds(250)
    /// The longest wait between two tries.
    public var maximum: Duration = .seconds(5)
    /// The wait after the next failed try.
    public private(set) var delay: Duration
    /// When the next try is due; nil while the connection is not failing (a try may start at once).
    public private(set) var nextTry: ContinuousClock.Instant?
    /// The failed tries since the last success.
    public private(set) var failures = 0

    public init(initial: Duration = .milliseconds(250), maximum: Duration = .seconds(5)) {
        self.initial = initial
        self.maximum = max(maximum, initial)
        delay = initial
    }

    /// Whether a try may start at `now`.
    public func mayTry(at now: ContinuousClock.Instant) -> Bool {
        nextTry.map { now >= $0 } ?? true
    }

    /// A try failed at `now`: the next is due after the current delay, which doubles (up to ``maximum``).
    public mutating func failed(at now: ContinuousClock.Instant) {
        nextTry = now + delay
        failures += 1
        delay = min(delay * 2, maximum)
    }

    /// A try succeeded: the next failure is tried again at once, then after ``initial``.
    public mutating func succeeded() {
        nextTry = nil
        failures = 0
        delay = initial
    }
}
