import LedgerCore
import Synchronization

/// The downloader's facts that wait in memory while the ledger's database is out of reach (a PostgreSQL server
/// that restarted or cannot be reached): kept in the order they happened, never dropped, appended first, in that
/// order, once the database answers again.
///
/// ```swift
/// let backlog = FactBacklog(limit: 10_000)
/// let facts = backlog.adding(newFacts)          // everything that waits, oldest first
/// // append `facts`; on success:
/// backlog.recorded(facts.count)
/// // or, when the database is away:
/// backlog.failed(reason: "…", headBefore: head)
/// ```
///
/// ``limit`` bounds what new transfers may add: at it, the scheduler starts none and stops those running (their
/// stop facts are kept too, one per transfer), so the facts never grow beyond the limit and one fact per transfer.
/// Shared by the scheduler's loop and whoever shows its status: one `Mutex`.
final class FactBacklog: Sendable {
    private struct State {
        var facts: [Event] = []
        var limit: Int
        /// Why the last append (or the reconnect before it) failed; nil while the database answers.
        var outage: String?
        /// When the outage began.
        var since: ContinuousClock.Instant?
        /// The list's head before the first append that failed: an append whose connection was lost before its
        /// answer may have committed, somewhere after it (``Ledger/loggedPrefix(of:after:)``).
        var headBefore: Int64?
    }

    /// What waits, for a status line.
    struct Status: Sendable, Equatable {
        /// Facts waiting to be appended.
        var waiting: Int
        /// Why the database cannot be written now.
        var reason: String
        var since: ContinuousClock.Instant
    }

    private let state: Mutex<State>

    /// - Parameter limit: the facts that may wait before no transfer runs (at least 1).
    init(limit: Int = 10_000) {
        state = Mutex(State(limit: max(1, limit)))
    }

    /// The facts that may wait before the scheduler starts no transfer and stops those running.
    var limit: Int {
        get { state.withLock { $0.limit } }
        set { state.withLock { $0.limit = max(1, newValue) } }
    }

    /// How many facts wait.
    var count: Int { state.withLock { $0.facts.count } }

    /// Whether the limit is reached.
    var isFull: Bool { state.withLock { $0.facts.count >= $0.limit } }

    /// Whether the database was found out of reach and has not answered since.
    var isInOutage: Bool { state.withLock { $0.outage != nil } }

    /// The outage and what waits; nil while the database answers.
    var status: Status? {
        state.withLock { s in
            guard let reason = s.outage, let since = s.since else { return nil }
            return Status(waiting: s.facts.count, reason: reason, since: since)
        }
    }

    /// The list's head before the first append that failed, while facts wait.
    var headBefore: Int64? { state.withLock { $0.headBefore } }

    /// Files `new` after what waits; returns every waiting fact, oldest first: the next append.
    func adding(_ new: [Event]) -> [Event] {
        state.withLock { s in
            s.facts.append(contentsOf: new)
            return s.facts
        }
    }

    /// The first `count` waiting facts are in the log now: they go. When none is left the outage is over.
    func recorded(_ count: Int) {
        state.withLock { s in
            s.facts.removeFirst(min(count, s.facts.count))
            if s.facts.isEmpty { s.headBefore = nil }
        }
    }

    /// The database could not be reached or written (`reason`); `headBefore`, when an append was tried, is the
    /// list's head before it (kept from the first such try).
    func failed(reason: String, headBefore: Int64?) {
        state.withLock { s in
            if s.outage == nil { s.since = .now }
            s.outage = reason
            if s.headBefore == nil, !s.facts.isEmpty { s.headBefore = headBefore }
        }
    }

    /// The database answers again and nothing waits: the outage is over. Returns whether one was.
    @discardableResult
    func endOutage() -> Bool {
        state.withLock { s in
            guard s.outage != nil, s.facts.isEmpty else { return false }
            s.outage = nil
            s.since = nil
            return true
        }
    }
}
