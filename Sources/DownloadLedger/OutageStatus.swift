/// What a downloader whose database is out of reach shows on its status line (``Scheduler/outageStatus``).
public struct OutageStatus: Sendable, Equatable {
    /// Facts waiting in memory to be appended.
    public var waitingFacts: Int
    /// Why the database cannot be reached (libpq's words, one line, passwords masked).
    public var reason: String
    /// When the run found it out of reach.
    public var since: ContinuousClock.Instant
    /// When the store tries to reconnect next; nil when a try may start now.
    public var nextTry: ContinuousClock.Instant?

    public init(
        waitingFacts: Int, reason: String, since: ContinuousClock.Instant, nextTry: ContinuousClock.Instant?
    ) {
        self.waitingFacts = waitingFacts
        self.reason = reason
        self.since = since
        self.nextTry = nextTry
    }

    /// "database unreachable, retrying in 2 s (14 facts waiting)": whole seconds, rounded up.
    public func line(now: ContinuousClock.Instant = .now) -> String {
        let facts = "\(waitingFacts) fact\(waitingFacts == 1 ? "" : "s") waiting"
        guard let nextTry, nextTry > now else { return "database unreachable, retrying now (\(facts))" }
        let left = (now.duration(to: nextTry) / .milliseconds(1)).rounded(.up) / 1000
        return "database unreachable, retrying in \(Int(left.rounded(.up))) s (\(facts))"
    }
}
