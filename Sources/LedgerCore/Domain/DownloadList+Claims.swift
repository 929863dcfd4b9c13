/// Claims of a shared ledger's tasks (``Event/transferClaimed(id:host:leaseMs:expired:)``): which host may transfer
/// a task now. Decided on the list at the head the claims are appended after (`expectingHead`), so that of two
/// hosts claiming one task at once exactly one wins: the other's append conflicts, and deciding again on the new
/// list refuses its claim.
extension DownloadList {
    /// The claims `host` may append at `now` (ms since the Unix epoch) for `ids`, one per task it may take, with
    /// this list's lease (``claimLeaseMs``).
    ///
    /// A task another host holds with a live lease is refused. A new claim (`renewing` false) takes only a task
    /// that waits or is marked downloading, outside the to-delete list; a renewal only a task `host` holds, in
    /// any state but finished. A claim that takes a task from another host names it (`expired`) when that host's
    /// lease ran out unreleased or its partial data is left behind: the transfer starts from zero.
    /// - Complexity: O(`ids`).
    public func claims(of ids: [TaskID], by host: String, at now: Int64, renewing: Bool) -> [Event] {
        let lease = claimLeaseMs
        var events: [Event] = []
        for id in ids {
            guard let t = tasks[id], t.state != .finished else { continue }
            if let holder = t.liveHolder(at: now), holder != host { continue }
            if renewing {
                guard t.host == host else { continue }
            } else {
                guard t.state.isRunnable, !isTrashed(id) else { continue }
            }
            var expired: String?
            if let previous = t.host, previous != host,
                t.leaseUntil != nil || t.bytes > 0 || t.validator != nil
            {
                expired = previous
            }
            events.append(.transferClaimed(id: id, host: host, leaseMs: lease, expired: expired))
        }
        return events
    }

    /// The hosts that hold a live claim on some task at `now`, among the tasks that wait or download (claims are
    /// taken only on those, and outcomes release them).
    /// - Complexity: O(tasks in the list) for the states; only runnable tasks are built.
    public func liveHosts(at now: Int64) -> Set<String> {
        var hosts: Set<String> = []
        for section in sections {
            for id in section.tasks where tasks.state(of: id)?.isRunnable == true {
                if let holder = tasks[id]?.liveHolder(at: now) { hosts.insert(holder) }
            }
        }
        return hosts
    }

    /// Whether `host` must leave task `t` alone at `now`: another host holds it with a live lease, or another
    /// host that is alive (it holds a live claim on some task: `liveHosts`) has its partial data.
    public static func isHeld(
        _ t: DownloadTask, byOtherThan host: String, at now: Int64, liveHosts: Set<String>
    ) -> Bool {
        if let holder = t.liveHolder(at: now) { return holder != host }
        guard let previous = t.host, previous != host else { return false }
        return (t.bytes > 0 || t.validator != nil) && liveHosts.contains(previous)
    }
}
