import LedgerCore
import LedgerTransfer
import Synchronization

/// Everything the ``Scheduler``'s loop, its callers and the engine's threads share, in one `Mutex`: the transfers'
/// book, the engine events not yet turned into facts, why the loop must match the list again, the run's settings
/// and how it ends. Holds no reference to the scheduler (which owns the engine that calls ``receive(_:)``), so the
/// scheduler is never released on an engine thread.
final class SchedulerMailbox: Sendable {
    /// What a run may change before it starts (``Scheduler``'s public settings).
    struct Settings: Sendable {
        var maxSize: Int64?
        var tick: Duration = .milliseconds(200)
        var factDelay: Duration = .milliseconds(20)
        var checkpointInterval: Duration? = .seconds(1)
        var hooks = HookSettings()
        /// Transfers prepared ahead to start the moment a slot frees (``TransferAction/standby(_:_:)``), at most
        /// one per slot.
        var standby = 8
    }

    private struct State {
        var settings = Settings()
        var book = TransferBook()
        /// Engine events not yet turned into facts.
        var pending: [TransferEvent] = []
        /// Facts handed over ready-made (a hook's `hookFinished`), not yet recorded.
        var facts: [Event] = []
        /// When the oldest fact that may wait in `pending` arrived, if any is waiting for its commit.
        var deferredSince: ContinuousClock.Instant?
        /// Whether `pending` holds a fact to commit at once (a failure, a stop, the run's last completion).
        var urgent = false
        /// Whether the next pass must match transfers to the list: a slot was freed, a transfer ended, or a wait
        /// for descriptors is retried. Facts alone (`.started`, `.resolved`, `.retrying`) change nothing the
        /// matching looks at.
        var slotsChanged = true
        /// The list's head as the last pass saw it, moved past the facts this scheduler appended since.
        var accountedHead: Int64 = -1
        /// The highest head the ledger's change notification announced.
        var noticedHead: Int64 = -1
        /// The last pass that changed nothing, and whether it found the scheduler idle.
        var quiet: (inputs: QuietInputs, idle: Bool)?
        var stopRequested = false
        var failure: (any Error)?
        /// The prepared transfers of the book's standby entries, once prepared (``offer(_:)``).
        var prepared: [TaskID: PreparedTransfer] = [:]
        /// Starts a prepared transfer on the engine (set once the engine exists); nil: none is started on its own.
        var launch: (@Sendable (PreparedTransfer) -> Void)?
        /// Set by ``withdrawAll()``: no transfer is prepared or started on its own any more (the run ends, or the
        /// database is out of reach).
        var standbyClosed = false
    }

    /// What a scheduling pass decides from: equal inputs, equal decisions.
    struct QuietInputs: Equatable {
        var head: Int64
        var limit: Int
        var running: Set<TaskID>
        var stopping: Set<TaskID>
        var held: Set<TaskID>
        var finishing: Set<TaskID>
        var standby: [TaskID]
    }

    /// When an engine event should wake the loop.
    private enum Urgency {
        case now
        /// A fact that may wait `factDelay`, the first of its batch: start the timer.
        case armTimer
        /// A fact that may wait, behind one that already started the timer.
        case later
    }

    private let state = Mutex(State())
    /// Wakes the scheduler's loop. Coalesced.
    let wakeUp: AsyncStream<Void>.Continuation
    /// Asks for one wake-up `factDelay` from now. Coalesced.
    let armDeferredFlush: AsyncStream<Void>.Continuation
    /// Asks for one matching pass `tick` from now (a task waits for free descriptors). Coalesced.
    let armRetry: AsyncStream<Void>.Continuation

    init(
        wakeUp: AsyncStream<Void>.Continuation, armDeferredFlush: AsyncStream<Void>.Continuation,
        armRetry: AsyncStream<Void>.Continuation
    ) {
        self.wakeUp = wakeUp
        self.armDeferredFlush = armDeferredFlush
        self.armRetry = armRetry
    }

    var settings: Settings {
        get { state.withLock { $0.settings } }
        set { state.withLock { $0.settings = newValue } }
    }

    /// Files an engine event and wakes the loop as it needs; on the engine thread that emits it. A transfer that
    /// received its last byte gives its slot to the first prepared transfer at once, on this thread (the loop's):
    /// the next request leaves within the engine's turn, not after a pass.
    func receive(_ event: TransferEvent) {
        let (urgency, successor) = state.withLock { state in
            (Self.take(event, into: &state), Self.promote(after: event, in: &state))
        }
        if let successor { successor.launch(successor.prepared) }
        switch urgency {
        case .now: wakeUp.yield()
        case .armTimer: armDeferredFlush.yield()
        case .later: break
        }
    }

    /// The prepared transfer that takes the slot `event` frees, noted as running: after `.received`, the first
    /// standby entry already prepared, unless the run ends or waits for the database.
    private static func promote(after event: TransferEvent, in state: inout State) -> (
        prepared: PreparedTransfer, launch: @Sendable (PreparedTransfer) -> Void
    )? {
        guard case .received = event, !state.standbyClosed, !state.stopRequested, state.failure == nil,
            let launch = state.launch,
            let entry = state.book.standby.first(where: { state.prepared[$0.id] != nil }),
            let prepared = state.prepared.removeValue(forKey: entry.id)
        else { return nil }
        state.book.promote(entry)
        return (prepared, launch)
    }

    /// Sets how a prepared transfer is started on the engine.
    func setLaunch(_ launch: @escaping @Sendable (PreparedTransfer) -> Void) {
        state.withLock { $0.launch = launch }
    }

    /// Keeps `prepared` for its standby entry; false when the entry is gone meanwhile (withdrawn, ended, or the
    /// standby closed): the caller discards it.
    func offer(_ prepared: PreparedTransfer) -> Bool {
        state.withLock { state in
            let id = prepared.request.id
            guard !state.standbyClosed, state.prepared[id] == nil,
                state.book.standby.contains(where: { $0.id == id })
            else { return false }
            state.prepared[id] = prepared
            return true
        }
    }

    /// The prepared transfer of `id`, taken out (to start or discard), if one is kept.
    func takePrepared(_ id: TaskID) -> PreparedTransfer? {
        state.withLock { $0.prepared.removeValue(forKey: id) }
    }

    /// Empties the standby for good (the run ends, or the database is out of reach) and returns the prepared
    /// transfers to discard. Until ``reopenStandby()``, none is prepared or started on its own.
    func withdrawAll() -> [PreparedTransfer] {
        state.withLock { state in
            state.standbyClosed = true
            state.book.standby.removeAll()
            defer { state.prepared.removeAll() }
            return Array(state.prepared.values)
        }
    }

    /// Lets the passes prepare transfers again (the database answers again).
    func reopenStandby() {
        state.withLock { $0.standbyClosed = false }
    }

    /// Files a ready-made fact (a hook's `hookFinished`) for the loop, which records it at once; on the thread that
    /// hands it over.
    func receive(fact: Event) {
        state.withLock { $0.facts.append(fact) }
        wakeUp.yield()
    }

    /// The ready-made facts handed over since the last call, in order.
    func takeFacts() -> [Event] {
        state.withLock { state in
            defer { state.facts.removeAll() }
            return state.facts
        }
    }

    /// Files `event` for the loop.
    ///
    /// `.received` frees a slot and a failure or a stop ends a transfer: the loop runs at once, so the successor
    /// starts at once. `.started`, `.resolved` and `.retrying` only add facts: they wait up to `factDelay` to share
    /// a commit with the facts that follow (one SQLite transaction per event cost more than the transfer of a
    /// small file). So does the `.completed` of a transfer whose slot its `.received` freed while others still
    /// run: its successor has started already, and a list of small files commits a batch of completions every
    /// `factDelay` instead of one transaction per file. The run's last completion commits at once, with all
    /// that waits before it.
    private static func take(_ event: TransferEvent, into state: inout State) -> Urgency {
        switch event {
        case .received(let id):
            state.book.finishing.insert(id)
            state.slotsChanged = true
            return .now
        case .started, .resolved, .retrying, .held, .continued, .connections:
            return wait(event, in: &state)
        case .completed(let id, _, _, _):
            // The transfers whose `.completed` waits in `pending` have ended, though the book runs them until
            // their facts are recorded: a completion waits only while some other transfer has yet to end.
            let ended = Set(
                state.pending.compactMap { pending -> TaskID? in
                    if case .completed(let other, _, _, _) = pending { return other }
                    return nil
                })
            if state.book.finishing.contains(id),
                state.book.running.keys.contains(where: { $0 != id && !ended.contains($0) })
            {
                return wait(event, in: &state)
            }
            state.pending.append(event)
            state.urgent = true
            // The slot of a transfer that reported `.received` is free already; the end of the last one is
            // noticed by `end` (idle).
            if !state.book.finishing.contains(id) { state.slotsChanged = true }
            return .now
        case .failed, .stopped:
            state.pending.append(event)
            state.urgent = true
            state.slotsChanged = true
            return .now
        }
    }

    /// Files a fact that may wait up to `factDelay` for its commit; the first of a batch starts the timer.
    private static func wait(_ event: TransferEvent, in state: inout State) -> Urgency {
        state.pending.append(event)
        guard state.deferredSince == nil else { return .later }
        state.deferredSince = .now
        return .armTimer
    }

    /// The engine events to turn into facts now: all of them when `force`, one among them must be committed at
    /// once or the oldest deferred one waited `factDelay`; else none.
    func takeDueEvents(force: Bool) -> [TransferEvent] {
        state.withLock { state in
            let delay = state.settings.factDelay
            let due =
                force || state.urgent || state.deferredSince.map { $0.duration(to: .now) >= delay } ?? true
            guard due else { return [] }
            state.deferredSince = nil
            state.urgent = false
            defer { state.pending.removeAll() }
            return state.pending
        }
    }

    /// Whether the loop should match the list now (and forgets that it should): a slot changed, or the ledger
    /// changed by more than this scheduler's own facts.
    func takeMatch() -> Bool {
        state.withLock { state in
            defer { state.slotsChanged = false }
            return state.slotsChanged || state.noticedHead > state.accountedHead
        }
    }

    /// Notes a head the ledger's change notification announced; true when it may be another's change (wake the
    /// loop).
    func notice(head: Int64) -> Bool {
        state.withLock { state in
            state.noticedHead = max(state.noticedHead, head)
            return head > state.accountedHead
        }
    }

    /// Notes that this scheduler appended `count` facts ending at `last`: when nothing else was appended since the
    /// last pass, the list changed only by them and needs no new pass.
    func appended(_ count: Int, endingAt last: Int64?) {
        guard let last else { return }
        state.withLock { state in
            if last - Int64(count) == state.accountedHead { state.accountedHead = last }
        }
    }

    /// A pass starts from the list at `head`: the book as it is, unless the inputs are those of the last pass that
    /// changed nothing (then its idleness, and no book).
    func startPass(head: Int64, limit: Int) -> (book: TransferBook?, inputs: QuietInputs, quietIdle: Bool?) {
        state.withLock { state in
            state.accountedHead = max(state.accountedHead, head)
            let b = state.book
            let inputs = QuietInputs(
                head: head, limit: limit, running: Set(b.running.keys), stopping: Set(b.stopping.keys),
                held: b.held, finishing: b.finishing, standby: b.standby.map(\.id))
            if let quiet = state.quiet, quiet.inputs == inputs { return (nil, inputs, quiet.idle) }
            state.quiet = nil
            return (b, inputs, nil)
        }
    }

    /// Notes the plan's actions in the book and returns those to carry out, and whether the scheduler is idle: a
    /// stop or hold of a transfer that received its last byte since the plan was made is dropped (it is
    /// finishing). A held pause is not work to wait for: idle, the engine's shutdown releases its connection.
    func adopt(_ plan: SchedulePlan, inputs: QuietInputs) -> (actions: [TransferAction], idle: Bool) {
        state.withLock { state in
            var adopted: [TransferAction] = []
            for action in plan.actions {
                switch action {
                case .stop(let id, _), .hold(let id):
                    if state.book.finishing.contains(id) { continue }
                // A prepared transfer may have started on its own since the plan was made: it runs, and the next
                // pass sees it so.
                case .start(let task):
                    if state.book.running[task.id] != nil { continue }
                case .standby(let task, _):
                    let taken =
                        state.book.running[task.id] != nil || state.book.standby.contains { $0.id == task.id }
                    if state.standbyClosed || taken { continue }
                case .withdraw(let id):
                    if !state.book.standby.contains(where: { $0.id == id }) { continue }
                default: break
                }
                state.book.note(action)
                adopted.append(action)
            }
            let idle = plan.idle && state.book.onlyHeld
            // A plan that waits for descriptors or another host's lease may change with time alone: not quiet.
            if adopted.isEmpty && !plan.waitsForDescriptors && !plan.heldElsewhere {
                state.quiet = (inputs, idle)
            }
            return (adopted, idle)
        }
    }

    /// Why the transfer of `id` is being stopped, if it is.
    func stopReason(_ id: TaskID) -> TransferAction.StopReason? {
        state.withLock { $0.book.stopping[id] }
    }

    /// Forgets the transfer of `id`: it ended. The end of the last one makes the next pass match (idle). Returns
    /// what was prepared for it, if it was a standby entry, to discard.
    @discardableResult
    func end(_ id: TaskID) -> PreparedTransfer? {
        state.withLock { state in
            state.book.end(id)
            if state.book.running.isEmpty { state.slotsChanged = true }
            return state.prepared.removeValue(forKey: id)
        }
    }

    /// Marks every running transfer as stopping for the shutdown; returns them all.
    func stopAllForShutdown() -> [TaskID] {
        state.withLock { state in
            for id in state.book.running.keys where state.book.stopping[id] == nil {
                state.book.stopping[id] = .shutdown
            }
            return Array(state.book.running.keys)
        }
    }

    var hasRunning: Bool { state.withLock { !$0.book.running.isEmpty } }

    /// The tasks of the running transfers, in id order.
    var runningIDs: [TaskID] { state.withLock { $0.book.running.keys.sorted() } }

    /// Whether every running transfer is a held pause.
    var onlyHeld: Bool { state.withLock { $0.book.onlyHeld } }

    /// Makes the next pass match the list (a retry of a wait for descriptors).
    func matchAgain() {
        state.withLock { $0.slotsChanged = true }
        wakeUp.yield()
    }

    func requestStop() {
        state.withLock { $0.stopRequested = true }
        wakeUp.yield()
    }

    /// Whether the loop should end: a stop was asked for, or the ledger could not be written.
    var shouldEnd: Bool { state.withLock { $0.stopRequested || $0.failure != nil } }

    /// Keeps the first error that stops the run.
    func noteFailure(_ error: any Error) {
        state.withLock { $0.failure = $0.failure ?? error }
    }

    var failure: (any Error)? { state.withLock { $0.failure } }
}
