import LedgerCore
import LedgerTransfer

/// What one scheduling pass decides: which transfers start, stop, are held, released or limited so that the
/// running transfers match the list. A pure function of the list and the scheduler's book; the ``Scheduler``
/// carries the actions out.
///
/// Waiting and downloading tasks run in list order (sections top to bottom, then index), up to `limit` (0: no
/// limit) and to the transfers the free descriptors pay for. A running transfer the list no longer wants stops
/// (a pause holds its connection instead); one whose task was redownloaded restarts.
///
/// ```swift
/// let plan = SchedulePlan.make(
///     list: list, book: book, limit: 3, only: nil, connections: 1, freeDescriptors: DescriptorLimit.free())
/// for action in plan.actions { carryOut(action) }
/// ```
struct SchedulePlan: Sendable, Equatable {
    /// In the order to carry them out: limits, stops, holds, releases, then starts in list order.
    var actions: [TransferAction]
    /// Nothing to start and nothing running but held pauses: a run `untilIdle` may end.
    var idle: Bool
    /// Some task waits only for free descriptors: a later pass may start it without any change to the list.
    var waitsForDescriptors: Bool
    /// Some task would run but another host holds it (``Claims``): not idle, and a later pass may take it over
    /// when that host's lease runs out, without any change to the list.
    var heldElsewhere: Bool = false

    /// Who this downloader is on a shared ledger, and when the pass is planned: a task another live host holds
    /// (``DownloadList/isHeld(_:byOtherThan:at:liveHosts:)``) is neither started nor kept running here.
    struct Claims: Sendable, Equatable {
        var host: String
        /// Milliseconds since the Unix epoch.
        var now: Int64
    }

    /// The plan for `list` given what runs (`book`).
    /// - Parameters:
    ///   - limit: the most transfers that run at once; 0 for no limit.
    ///   - only: when set, the tasks outside it are left alone (never started).
    ///   - connections: the connections a transfer of this run may use (the ledger's setting may ask for more).
    ///   - freeDescriptors: the descriptors free beyond the margin (``DescriptorLimit/free()``): however high the
    ///     limit, no more run than they pay for, and the rest wait their turn rather than fail with EMFILE.
    ///   - claims: on a shared ledger, this host and the time: tasks other live hosts hold are left to them (a
    ///     running one is stopped without a fact: its claim was lost). Nil on a ledger of one downloader.
    ///   - standby: how many of the tasks that come next in list order, once `limit` transfers run, are prepared
    ///     to start the moment a slot frees (``TransferAction/standby(_:_:)``), at most one per slot; 0: none.
    ///     Only with a limit.
    /// - Complexity: O(tasks in the list) for the states, but only the runnable tasks are copied.
    static func make(
        list: DownloadList, book: TransferBook, limit: Int, only: Set<TaskID>?, connections: Int,
        freeDescriptors: Int, claims: Claims? = nil, standby: Int = 0
    ) -> SchedulePlan {
        // A prepared transfer holds its descriptors already, and will take a slot's: counted as running.
        let capacity = DescriptorLimit.transferCapacity(
            connections: max(connections, list.connections), running: book.running.count + book.standby.count,
            free: freeDescriptors)
        let elsewhere = claims.map { HeldElsewhere($0, list: list) }
        let (wanted, next, waits, held) = wantedTasks(
            list, book: book, limit: limit, only: only, capacity: capacity, elsewhere: elsewhere,
            standby: limit > 0 ? min(standby, limit) : 0)
        let wantedIDs = Set(wanted.map(\.id))
        var actions: [TransferAction] = []
        // On a shared ledger, this host's own speed limit when it has one (``DownloadList/speedLimit(for:)``).
        let speedLimit = list.speedLimit(for: claims?.host)
        if book.speedLimit != speedLimit { actions.append(.limitAll(speedLimit)) }
        if book.pauseHold != list.pauseHold { actions.append(.holdLimit(list.pauseHold)) }
        actions += limitChanges(list, book: book)
        let (stops, holds) = unwanted(list, book: book, wanted: wantedIDs, elsewhere: elsewhere)
        actions += stops
        // A running task reset by a redownload elsewhere must restart from zero.
        for t in wanted where book.running[t.id].map({ $0 != t.resets }) == true && book.stopping[t.id] == nil
        {
            actions.append(.stop(t.id, .reset))
        }
        actions += holds
        for id in book.held.sorted() where wantedIDs.contains(id) && book.stopping[id] == nil {
            actions.append(.release(id))
        }
        // A prepared transfer whose task changed since (a redownload, a move down the list, a pause) is withdrawn
        // before anything starts, and prepared again if it still comes next.
        let defaults = TransferBook.RequestDefaults(list)
        let comingIDs = wantedIDs.union(next.map(\.id))
        var kept: Set<TaskID> = []
        for entry in book.standby {
            let same = entry.defaults == defaults && list.tasks[entry.id] == entry.task
            if comingIDs.contains(entry.id) && same {
                kept.insert(entry.id)
            } else {
                actions.append(.withdraw(entry.id))
            }
        }
        for t in wanted where book.running[t.id] == nil { actions.append(.start(t)) }
        for t in next where !kept.contains(t.id) { actions.append(.standby(t, defaults)) }
        var after = book
        for action in actions { after.note(action) }
        return SchedulePlan(
            actions: actions, idle: wanted.isEmpty && after.onlyHeld && !held, waitsForDescriptors: waits,
            heldElsewhere: held)
    }

    /// Which tasks other hosts hold, as one pass sees them.
    private struct HeldElsewhere {
        var claims: Claims
        /// The hosts with a live claim (``DownloadList/liveHosts(at:)``).
        var live: Set<String>

        init(_ claims: Claims, list: DownloadList) {
            self.claims = claims
            live = list.liveHosts(at: claims.now)
        }

        func holds(_ t: DownloadTask) -> Bool {
            DownloadList.isHeld(t, byOtherThan: claims.host, at: claims.now, liveHosts: live)
        }
    }

    /// The tasks that should be running, in list order, up to `standby` that come next (not running, within the
    /// descriptors), whether one more waits only for descriptors, and whether one is held by another host.
    private static func wantedTasks(
        _ list: DownloadList, book: TransferBook, limit: Int, only: Set<TaskID>?, capacity: Int,
        elsewhere: HeldElsewhere?, standby: Int
    ) -> (tasks: [DownloadTask], next: [DownloadTask], waitsForDescriptors: Bool, heldElsewhere: Bool) {
        var wanted: [DownloadTask] = []
        var next: [DownloadTask] = []
        var waits = false
        var held = false
        for section in list.sections {
            for id in section.tasks {
                // The state first, without copying the task: a long history is mostly finished tasks.
                guard list.tasks.state(of: id)?.isRunnable == true, only.map({ $0.contains(id) }) != false,
                    !book.finishing.contains(id), let t = list.tasks[id]
                else { continue }
                if let elsewhere, elsewhere.holds(t) {
                    held = true
                    continue
                }
                if limit > 0 && wanted.count >= limit {
                    guard next.count < standby else { return (wanted, next, waits, held) }
                    // A running transfer past the limit is stopped, not prepared; the budget is never exceeded.
                    if book.running[id] != nil { continue }
                    guard wanted.count + next.count + book.finishing.count < capacity else {
                        return (wanted, next, waits, held)
                    }
                    next.append(t)
                    continue
                }
                // Running ones first in list order, so a transfer is never stopped for the budget: only new ones
                // wait.
                if wanted.count + book.finishing.count >= capacity && book.running[id] == nil {
                    waits = true
                    continue
                }
                wanted.append(t)
            }
        }
        return (wanted, next, waits, held)
    }

    /// New own speed limits of running tasks.
    private static func limitChanges(_ list: DownloadList, book: TransferBook) -> [TransferAction] {
        book.taskLimits.keys.sorted().compactMap { id in
            guard book.running[id] != nil else { return nil }
            let now = list.tasks[id]?.options.maxSpeed
            return now != book.taskLimits[id] ? .limitTask(id, now) : nil
        }
    }

    /// Running transfers the list no longer wants: stopped, or held when the user paused them (a stop, a delete,
    /// the queue close the connection; a pause keeps it). Finishing ones are left to finish.
    private static func unwanted(
        _ list: DownloadList, book: TransferBook, wanted: Set<TaskID>, elsewhere: HeldElsewhere?
    )
        -> (stops: [TransferAction], holds: [TransferAction])
    {
        var stops: [TransferAction] = []
        var kept: [TransferAction] = []
        for (id, resets) in book.running.sorted(by: { $0.key < $1.key })
        where book.stopping[id] == nil && !wanted.contains(id) && !book.finishing.contains(id) {
            let task = list.tasks[id]
            // Another host took it (this one's lease ran out): its facts are that host's now.
            if let elsewhere, let task,
                task.liveHolder(at: elsewhere.claims.now).map({ $0 != elsewhere.claims.host }) == true
            {
                stops.append(.stop(id, .reset))
                continue
            }
            if holds(task, startedAt: resets, in: list) {
                if !book.held.contains(id) { kept.append(.hold(id)) }
                continue
            }
            stops.append(.stop(id, reason(for: task, startedAt: resets, in: list)))
        }
        return (stops, kept)
    }

    /// Whether a running transfer of `task` is held rather than stopped: the user paused it (not stopped,
    /// deleted or reset).
    private static func holds(_ task: DownloadTask?, startedAt resets: Int, in list: DownloadList) -> Bool {
        guard let task, task.resets == resets, !list.isTrashed(task.id) else { return false }
        return task.state == .paused
    }

    private static func reason(for task: DownloadTask?, startedAt resets: Int, in list: DownloadList)
        -> TransferAction.StopReason
    {
        guard let task, task.resets == resets else { return .reset }
        if list.isTrashed(task.id) { return .user }
        switch task.state {
        case .paused, .stopped: return .user
        default: return .queue
        }
    }
}
