import Foundation
import LedgerCore

/// A shared ledger's claims: a transfer starts only once this host's claim of its task is appended, and runs
/// only while the claim is renewed (docs/postgres.md, "Several hosts: claims and leases").
extension Scheduler {
    /// The machine's host name (`gethostname`) as a valid downloader name: characters other than letters, digits,
    /// `.`, `-`, `_` become `-`, cut to 64; `localhost` when none is left.
    public static func defaultHostName() -> String {
        var buffer = [CChar](repeating: 0, count: 256)
        guard gethostname(&buffer, buffer.count - 1) == 0 else { return "localhost" }
        let raw = String(decoding: buffer.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
        let kept = String(
            raw.unicodeScalars.map { s -> Character in
                Validation.isHostName(String(s)) ? Character(s) : "-"
            }
            .prefix(64))
        return Validation.isHostName(kept) ? kept : "localhost"
    }

    /// Claims the tasks `plan` starts, in one append; the starts of tasks another host claimed first are dropped
    /// (the next pass plans with them held), the others start from the list after the claims (a task taken over
    /// from another host starts from zero).
    /// - Returns: the list after the claims, or nil when the plan starts nothing.
    func claimStarts(_ plan: inout SchedulePlan) throws -> DownloadList? {
        let starts = plan.actions.compactMap { action -> TaskID? in
            if case .start(let t) = action { return t.id }
            return nil
        }
        guard !starts.isEmpty else { return nil }
        let claimed = try ledger.claim(starts, host: host)
        mailbox.appended(claimed.won.count, endingAt: claimed.last)
        let won = Set(claimed.won)
        let list = ledger.list
        plan.actions = plan.actions.compactMap { action in
            guard case .start(let t) = action else { return action }
            guard won.contains(t.id), let now = list.tasks[t.id] else { return nil }
            return .start(now)
        }
        if won.count < starts.count {
            plan.idle = false
            mailbox.matchAgain()
        }
        return list
    }

    /// Renews this host's claims of its running transfers. A claim lost meanwhile (another host took the task
    /// after this one's lease ran out) makes the next pass stop that transfer without a fact. A renewal the
    /// database refuses is tried again at the next turn; the transfers go on.
    func renewClaims() {
        let running = mailbox.runningIDs
        guard !running.isEmpty else { return }
        guard let renewed = try? ledger.claim(running, host: host, renewing: true) else { return }
        mailbox.appended(renewed.won.count, endingAt: renewed.last)
        if renewed.won.count < running.count { mailbox.matchAgain() }
    }
}
