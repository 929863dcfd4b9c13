/// A store that lost its server and tries to reach it again (a PostgreSQL ledger whose server restarted or cannot
/// be reached): why, since when, and when the next try is due. What a downloader shows on its status line.
public struct StoreOutage: Sendable, Equatable {
    /// libpq's reason for the last failed try, on one line, passwords masked.
    public var reason: String
    /// When the connection was found lost.
    public var since: ContinuousClock.Instant
    /// When the next try to reconnect is due (a call to the store before it fails at once, without trying).
    public var nextTry: ContinuousClock.Instant?
    /// The failed tries to reconnect so far.
    public var failedTries: Int

    public init(
        reason: String, since: ContinuousClock.Instant, nextTry: ContinuousClock.Instant?, failedTries: Int
    ) {
        self.reason = reason
        self.since = since
        self.nextTry = nextTry
        self.failedTries = failedTries
    }
}
