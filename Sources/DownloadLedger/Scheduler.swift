import Foundation
import LedgerCore
import LedgerTransfer
import Synchronization

/// The downloader: it follows the ledger's projection and moves the bytes.
///
/// Waiting tasks start in list order (sections top to bottom, then index) up to the maximum download count;
/// every change to the list is followed: paused, stopped, deleted and redownloaded tasks stop, lowered counts pause
/// the extra transfers (they wait again), raised counts start more. A change made through this process's
/// ``Ledger`` wakes the scheduler at once; one made by another process too on PostgreSQL (its NOTIFY), within about
/// `tick` on SQLite. What to do is decided by ``SchedulePlan``; the transfer facts are appended to the ledger, so the log alone explains every task.
///
/// ```swift
/// let scheduler = try Scheduler(ledger: ledger)
/// try await scheduler.run(untilIdle: true)
/// ```
public final class Scheduler: Sendable {
    public let ledger: Ledger
    let engine: TransferEngine
    /// Every field the loop, the callers and the engine's threads share, in one `Mutex`.
    let mailbox: SchedulerMailbox
    /// Wakes the loop: a transfer freed its slot or ended, the ledger changed, a retry or deferred facts are due.
    /// Coalesced.
    private let wake: AsyncStream<Void>
    /// Asks for one wake-up `factDelay` from now (the first deferred fact of a batch). Coalesced.
    private let deferredFlush: AsyncStream<Void>
    /// Asks for one matching pass `tick` from now (a task waits for free descriptors). Coalesced.
    private let retries: AsyncStream<Void>
    /// Overrides the ledger's maximum download count for this run (`-j N`); nil follows the ledger.
    public let maxDownloads: Int?
    /// When set, only these tasks are downloaded (`dledger get`).
    public let only: Set<TaskID>?
    /// Connections a transfer may use, for the descriptor budget (``DescriptorLimit``).
    private let connectionsPerTask: Int
    /// This downloader's host name (`--host-name`): it names the files it completes and, on a shared ledger, its
    /// claims and its run lock.
    public let host: String
    /// On a shared (PostgreSQL) ledger, the folder this host downloads into for every task (`run --dir`), which
    /// its completion facts record; nil: each task's own folder.
    public let folder: String?
    /// Whether the ledger is shared by downloaders on several hosts (PostgreSQL): transfers are claimed
    /// (``Ledger/claim(_:host:renewing:)``) and the run lock is per host.
    let shared: Bool
    let hookRunner: HookRunner
    /// Facts waiting while the ledger's database is out of reach (`Scheduler+Outage.swift`).
    let backlog = FactBacklog()
    /// The downloader's lock on the ledger while `run` runs.
    let runLock = Mutex<RunLock?>(nil)
    /// The last count of free descriptors, reused while it cannot change a plan (the loop's passes only).
    private let descriptors = Mutex(DescriptorBudget())

    /// The largest file a transfer of this run may become, over the ledger's `max-size` setting
    /// (`dledger get/run --max-size`); nil follows the ledger.
    public var maxSize: Int64? {
        get { mailbox.settings.maxSize }
        set { mailbox.settings.maxSize = newValue }
    }
    /// How often the ledger's file is checked for changes by other processes (changes through this process's
    /// ``Ledger`` wake the scheduler at once), and a wait for free descriptors is retried.
    public var tick: Duration {
        get { mailbox.settings.tick }
        set { mailbox.settings.tick = newValue }
    }
    /// How long `transferStarted` and `transferResolved` facts may wait to share a commit with later facts.
    /// Terminal facts are committed at once (with whatever waits before them, in order).
    public var factDelay: Duration {
        get { mailbox.settings.factDelay }
        set { mailbox.settings.factDelay = newValue }
    }
    /// How often, while `run` works, the write-ahead log is folded into the ledger's main file (a passive
    /// checkpoint on a thread and connection of its own, ``LogCheckpointer``), so that a copy of the main file
    /// alone is at most about this much behind the head. Nil leaves it to SQLite (at 16 MB of log) and to the end
    /// of the command.
    public var checkpointInterval: Duration? {
        get { mailbox.settings.checkpointInterval }
        set { mailbox.settings.checkpointInterval = newValue }
    }
    /// How many of the tasks that come next, once the maximum count runs, are prepared ahead (their requests
    /// made and partial files opened) to start the moment a transfer receives its last byte, within the engine's
    /// turn rather than after a pass: one per slot of the count, up to this many (8; 0: none; none on a shared
    /// ledger, whose starts are claimed first). Transfers of the same size end together: a prepared one for each
    /// slot lets a whole round of them hand over in the loop.
    public var standby: Int {
        get { mailbox.settings.standby }
        set { mailbox.settings.standby = max(newValue, 0) }
    }
    /// The programs run after outcomes (over the ledger's settings), their time limit and environment.
    public var hooks: HookSettings {
        get { mailbox.settings.hooks }
        set { mailbox.settings.hooks = newValue }
    }

    /// - Throws: `TransferEngineError` when libcurl cannot start.
    /// - Parameters:
    ///   - host: this downloader's host name (checked by the caller, ``Validation/hostName(_:)``); nil: the
    ///     machine's (``defaultHostName()``).
    ///   - folder: on a shared ledger, where this host downloads every task (ignored on a SQLite ledger).
    public init(
        ledger: Ledger, config: TransferConfig = .init(), maxDownloads: Int? = nil, only: Set<TaskID>? = nil,
        host: String? = nil, folder: String? = nil
    )
        throws
    {
        self.ledger = ledger
        self.host = host ?? Self.defaultHostName()
        // The commands this process gives (ui, serve) touch files as this host.
        ledger.hostName = self.host
        self.shared = PostgresLocation.isPostgres(ledger.path)
        self.folder = shared ? folder : nil
        var config = config
        // A completed partial stays (a second link to the placed file) until its fact is recorded: see flush().
        config.keepPlacedPartials = true
        // A ledger in PostgreSQL has no file names in the download folder to keep clear of.
        config.ledgerPath = PostgresLocation.isPostgres(ledger.path) ? nil : ledger.path
        let (wake, wakeUp) = AsyncStream<Void>.makeStream(bufferingPolicy: .bufferingNewest(1))
        let (deferredFlush, armDeferredFlush) = AsyncStream<Void>.makeStream(
            bufferingPolicy: .bufferingNewest(1))
        let (retries, armRetry) = AsyncStream<Void>.makeStream(bufferingPolicy: .bufferingNewest(1))
        let mailbox = SchedulerMailbox(wakeUp: wakeUp, armDeferredFlush: armDeferredFlush, armRetry: armRetry)
        // The engine hands its events straight to the mailbox on its own threads (no hop through a task: the next
        // transfer starts about a millisecond sooner), and the mailbox holds no reference back to the scheduler.
        let engine = try TransferEngine(config: config, onEvent: { mailbox.receive($0) })
        // Weak: the engine holds the mailbox (its event handler), which must not hold the engine back.
        mailbox.setLaunch { [weak engine] in engine?.start($0) }
        self.engine = engine
        self.mailbox = mailbox
        self.wake = wake
        self.deferredFlush = deferredFlush
        self.retries = retries
        self.maxDownloads = maxDownloads
        self.only = only
        self.connectionsPerTask = config.connectionsPerTask
        // A hook's fact joins the downloader's: recorded by the loop, in order, kept while the database is away.
        self.hookRunner = HookRunner(deliver: { mailbox.receive(fact: $0) })
    }

    deinit { engine.shutdown() }

    /// Progress of the running transfers, a few times per second. Not logged.
    public var activity: AsyncStream<[TransferActivity]> { engine.activityUpdates }

    /// The latest progress snapshot.
    public func currentActivity() -> [TransferActivity] { engine.activity() }

    /// Asks `run` to stop: running transfers stop cleanly (their tasks wait again, resumable) and `run` returns.
    public func requestStop() {
        mailbox.requestStop()
    }

    /// Downloads until stopped (or, with `untilIdle`, until nothing is waiting or downloading in scope).
    /// `whenLocked` runs once this process holds the ledger's downloader lock, before any transfer (`serve` starts
    /// answering then).
    /// - Throws: `LedgerOpenError.runnerActive` when another process runs transfers for this ledger; store errors.
    public func run(untilIdle: Bool = false, whenLocked: () -> Void = {}) async throws {
        try takeRunLock()
        defer { releaseRunLock() }
        // Whatever way the run ends, what was prepared ahead is closed (an empty partial file goes).
        mailbox.reopenStandby()
        defer { discardStandby() }
        whenLocked()
        let settings = mailbox.settings
        let publisher = ActivityPublisher(board: publishingBoard(), source: { [engine] in engine.activity() })
        defer { publisher.stop() }
        // A write-ahead log to fold into the main file is SQLite's; PostgreSQL has none of ours.
        let checkpointer = settings.checkpointInterval.flatMap {
            PostgresLocation.isPostgres(ledger.path) ? nil : LogCheckpointer(path: ledger.path, interval: $0)
        }
        defer { checkpointer?.stop() }
        removeRecordedPartials()
        try await withThrowingTaskGroup(of: Void.self) { group in
            group.addTask { [self] in
                // The ledger's change notification: at once for this process's commands and, on PostgreSQL, for
                // other processes' (NOTIFY); by a look at the file every tick on SQLite, which tells no one.
                for await head in ledger.headChanges(pollInterval: settings.tick) {
                    if mailbox.notice(head: head) { mailbox.wakeUp.yield() }
                }
            }
            group.addTask { [self] in
                for await _ in deferredFlush {
                    try? await Task.sleep(for: settings.factDelay)
                    mailbox.wakeUp.yield()
                }
            }
            group.addTask { [self] in
                for await _ in retries {
                    try? await Task.sleep(for: settings.tick)
                    mailbox.matchAgain()
                }
            }
            if shared {
                group.addTask { [self] in
                    // Claims are renewed at about a third of the lease, so that two renewals may be late.
                    while !Task.isCancelled {
                        try? await Task.sleep(for: .milliseconds(max(ledger.list.claimLeaseMs / 3, 100)))
                        renewClaims()
                    }
                }
            }
            group.addTask { [self] in
                await watchRunLock(every: settings.tick)
            }
            group.addTask { [self] in
                try await loop(untilIdle: untilIdle)
            }
            try await group.next()
            group.cancelAll()
        }
        if let failure = mailbox.failure { throw failure }
    }

    /// Records facts and matches transfers to the list whenever a transfer frees its slot or ends (so its
    /// successor starts at once), the ledger changes by more than this scheduler's facts, or a retry is due.
    private func loop(untilIdle: Bool) async throws {
        var wakes = wake.makeAsyncIterator()
        while true {
            // One opening of each download folder for the turn: the facts' placed files and partials, then the
            // resume checks of the transfers the pass starts (a file ending and its successor starting, mostly).
            let folders = FolderMemo()
            flush(force: false, folders: folders)
            if mailbox.shouldEnd { break }
            if mailbox.takeMatch() && !holdsBackForOutage() {
                let idle = try step(folders: folders)
                if untilIdle && idle { break }
            }
            _ = await wakes.next()
        }
        flush(force: true)
        try await drain(&wakes)
        try await recordBacklogBeforeExit()
        // Their facts are the run's too: each ends by its time limit; then theirs are recorded as the others were.
        await hookRunner.idle()
        flush(force: true)
        try await recordBacklogBeforeExit()
    }

    /// Stops every running transfer and waits until the engine confirmed each (facts recorded).
    private func drain(_ wakes: inout AsyncStream<Void>.Iterator) async throws {
        discardStandby()
        for id in mailbox.stopAllForShutdown() { engine.cancel(id: id) }
        while mailbox.hasRunning {
            _ = await wakes.next()
            flush(force: true)
        }
    }

    /// One pass: fold changes, then start and stop transfers to match the list (``SchedulePlan``). Returns true
    /// when idle.
    ///
    /// A pass whose inputs (the list's head, the running, stopping, held and finishing transfers) are those a
    /// pass that changed nothing ended with would change nothing again: it is skipped, so an idle downloader's
    /// pass costs a look at the log, not a walk over every task of a long history.
    func step(folders: FolderMemo = FolderMemo()) throws -> Bool {
        do {
            try ledger.refresh()
        } catch let error where StoreError.isConnectionLoss(error) {
            enterOutage(error, headBefore: nil)
            return false
        }
        let list = ledger.list
        // On a shared ledger, this host's own maximum when it has one (``DownloadList/maxDownloads(for:)``).
        let limit = maxDownloads ?? list.maxDownloads(for: shared ? host : nil)
        let pass = mailbox.startPass(head: list.head, limit: limit)
        guard let book = pass.book else { return pass.quietIdle ?? false }
        // The free descriptors are counted afresh (another part of the process may close some) unless the last
        // count, younger than a tick, left twice what this pass may use: a pass that left a task waiting for them
        // is retried after a tick.
        let settings = mailbox.settings
        let standby = shared ? 0 : settings.standby
        let needed = DescriptorBudget.needed(
            limit: limit, standby: min(standby, limit), connections: max(connectionsPerTask, list.connections)
        )
        let free = descriptors.withLock {
            $0.free(needing: needed, now: .now, maxAge: settings.tick, count: DescriptorLimit.free)
        }
        var plan = SchedulePlan.make(
            list: list, book: book, limit: limit, only: only, connections: connectionsPerTask,
            freeDescriptors: free,
            claims: shared ? SchedulePlan.Claims(host: host, now: ledger.now()) : nil,
            standby: standby)
        let claimed = shared ? try claimStarts(&plan) : nil
        let (actions, idle) = mailbox.adopt(plan, inputs: pass.inputs)
        carryOut(actions, in: claimed ?? list, folders: folders)
        // A task waits for descriptors, or for another host's lease to run out: look again after a tick.
        if plan.waitsForDescriptors || plan.heldElsewhere { mailbox.armRetry.yield() }
        return idle
    }

    /// Hands the plan's actions to the engine, in order.
    private func carryOut(_ actions: [TransferAction], in list: DownloadList, folders: FolderMemo) {
        for action in actions {
            switch action {
            case .limitAll(let limit): engine.setSpeedLimit(limit)
            case .holdLimit(let seconds): engine.setHoldLimit(seconds > 0 ? Double(seconds) : nil)
            case .limitTask(let id, let limit): engine.setSpeedLimit(limit, id: id)
            case .stop(let id, _): engine.cancel(id: id)
            case .hold(let id): engine.hold(id: id)
            case .release(let id): engine.release(id: id)
            case .start(let task):
                if let prepared = mailbox.takePrepared(task.id) {
                    engine.start(prepared)
                } else {
                    start(task, in: list, folders: folders)
                }
            case .standby(let task, _): prepare(task, in: list, folders: folders)
            case .withdraw(let id): mailbox.takePrepared(id)?.discard()
            }
        }
    }

    /// Stops preparing transfers ahead and closes those prepared (the run ends, or the database is out of reach).
    func discardStandby() {
        for prepared in mailbox.withdrawAll() { prepared.discard() }
    }

    /// Prepares the transfer of `task` (a standby entry) as ``start(_:in:)`` would start it, and keeps it for the
    /// next free slot; discarded when the entry went meanwhile.
    private func prepare(_ task: DownloadTask, in list: DownloadList, folders: FolderMemo) {
        guard let request = startingRequest(for: task, in: list, folders: folders) else { return }
        let prepared = engine.prepare(request)
        if !mailbox.offer(prepared) { prepared.discard() }
    }

    /// Starts the transfer of `task`, its credentials opened (outside the mailbox's lock: the vault is read under
    /// the ledger's).
    private func start(_ given: DownloadTask, in list: DownloadList, folders: FolderMemo) {
        guard let request = startingRequest(for: given, in: list, folders: folders) else { return }
        engine.start(request)
    }

    /// The request that starts `given` (its credentials opened, the validator to resume with, the run's maximum
    /// size), its folder created when missing; nil when a credential cannot be opened (the task failed).
    private func startingRequest(for given: DownloadTask, in list: DownloadList, folders: FolderMemo)
        -> TransferRequest?
    {
        var task = given
        if let folder { task.directory = folder }
        guard var request = request(for: task, in: list) else { return nil }
        request.validator = Self.resumeValidator(
            for: request, logged: list.tasks[request.id], folders: folders)
        if let maxSize { request.maxSize = maxSize }
        if FileNaming.isSafeDirectory(request.directory) && !Self.isDirectory(request.directory) {
            try? FileManager.default.createDirectory(
                atPath: request.directory, withIntermediateDirectories: true)
        }
        return request
    }
}
