import Foundation

/// The downloader: it follows the ledger's projection and moves the bytes.
///
/// Waiting tasks start in list order (sections top to bottom, then index) up to the maximum download count;
/// every change to the list, from this process or another, is followed within about `tick`: paused, stopped,
/// deleted and redownloaded tasks stop, lowered counts pause the extra transfers (they wait again), raised counts
/// start more. The transfer facts are appended to the ledger, so the log alone explains every task.
///
/// ```swift
/// let scheduler = try Scheduler(ledger: ledger)
/// try await scheduler.run(untilIdle: true)
/// ```
public final class Scheduler: @unchecked Sendable {
    /// Why the scheduler stopped a transfer: decides what it records when the engine confirms.
    enum StopReason {
        /// Paused, stopped or deleted by a user: record the bytes.
        case user
        /// Beyond the maximum count, or moved down the list: back to waiting.
        case queue
        /// Redownloaded or its file deleted: its bytes are void, record nothing.
        case reset
        /// The downloader is shutting down: back to waiting, resumable.
        case shutdown
    }

    public let ledger: Ledger
    let engine: TransferEngine
    /// What the engine's threads hand over; its lock also guards `running`, `stopping`, `stopRequested` and
    /// `failure`.
    private let intake: Intake
    private var lock: NSLock { intake.lock }
    /// Running transfers and the task's `resets` when each started.
    private var running: [TaskID: Int] = [:]
    private var stopping: [TaskID: StopReason] = [:]
    /// Running transfers a pause holds with their connection kept (``TransferEngine/hold(id:)``).
    private var held: Set<TaskID> = []
    private var speedLimit: Int64 = -1
    /// The ledger's pause hold the engine was last given (-1: none yet).
    private var pauseHold: Int64 = -1
    /// The task's own speed limit each running transfer was last given (a change reaches it while it runs).
    private var taskLimits: [TaskID: Int64?] = [:]
    /// What the last pass that changed nothing started from, and whether it found the scheduler idle.
    private var quiet: (inputs: StepInputs, idle: Bool)?
    private var stopRequested = false
    private var failure: Error?
    /// Wakes the loop: a transfer freed its slot or ended, a tick passed, or deferred facts are due. Coalesced.
    private let wake: AsyncStream<Void>
    /// Asks for one wake-up `factDelay` from now (the first deferred fact of a batch). Coalesced.
    private let deferredFlush: AsyncStream<Void>
    /// Overrides the ledger's maximum download count for this run (`-j N`); nil follows the ledger.
    public let maxDownloads: Int?
    /// When set, only these tasks are downloaded (`dledger get`).
    public let only: Set<TaskID>?
    /// The largest file a transfer of this run may become, over the ledger's `max-size` setting
    /// (`dledger get/run --max-size`); nil follows the ledger.
    public var maxSize: Int64?
    /// Connections a transfer may use, for the descriptor budget (``DescriptorLimit``).
    private let connectionsPerTask: Int
    /// How often the list is checked for changes by other processes.
    public var tick: Duration = .milliseconds(200)
    /// How long `transferStarted` and `transferResolved` facts may wait to share a commit with later facts.
    /// Terminal facts are committed at once (with whatever waits before them, in order).
    public var factDelay: Duration = .milliseconds(20)
    /// How often, while `run` works, the write-ahead log is folded into the ledger's main file (a passive
    /// checkpoint on a thread and connection of its own, ``LogCheckpointer``), so that a copy of the main file
    /// alone is at most about this much behind the head. Nil leaves it to SQLite (at 16 MB of log) and to the end
    /// of the command.
    public var checkpointInterval: Duration? = .seconds(1)
    /// The programs run after outcomes (over the ledger's settings), their time limit and environment.
    public var hooks = HookSettings()
    let hookRunner: HookRunner

    /// - Throws: `TransferEngineError` when libcurl cannot start.
    public init(
        ledger: Ledger, config: TransferConfig = .init(), maxDownloads: Int? = nil, only: Set<TaskID>? = nil
    )
        throws
    {
        self.ledger = ledger
        var config = config
        // A completed partial stays (a second link to the placed file) until its fact is recorded: see flush().
        config.keepPlacedPartials = true
        config.ledgerPath = ledger.path
        let (wake, wakeUp) = AsyncStream<Void>.makeStream(bufferingPolicy: .bufferingNewest(1))
        let (deferredFlush, armDeferredFlush) = AsyncStream<Void>.makeStream(
            bufferingPolicy: .bufferingNewest(1))
        let intake = Intake(wakeUp: wakeUp, armDeferredFlush: armDeferredFlush)
        // The engine hands its events straight to the intake on its own threads (no hop through a task: the next
        // transfer starts about a millisecond sooner), and the intake holds no reference back to the scheduler.
        self.engine = try TransferEngine(config: config, onEvent: { intake.receive($0) })
        self.intake = intake
        self.wake = wake
        self.deferredFlush = deferredFlush
        self.maxDownloads = maxDownloads
        self.only = only
        self.connectionsPerTask = config.connectionsPerTask
        self.hookRunner = HookRunner(ledger: ledger)
    }

    deinit { engine.shutdown() }

    /// Progress of the running transfers, a few times per second. Not logged.
    public var activity: AsyncStream<[TransferActivity]> { engine.activityUpdates }

    /// The latest progress snapshot.
    public func currentActivity() -> [TransferActivity] { engine.activity() }

    /// Asks `run` to stop: running transfers stop cleanly (their tasks wait again, resumable) and `run` returns.
    public func requestStop() {
        lock.withLock { stopRequested = true }
        intake.wakeUp.yield()
    }

    /// Downloads until stopped (or, with `untilIdle`, until nothing is waiting or downloading in scope).
    /// `whenLocked` runs once this process holds the ledger's downloader lock, before any transfer (`serve` starts
    /// answering then).
    /// - Throws: `LedgerOpenError.runnerActive` when another process runs transfers for this ledger; store errors.
    public func run(untilIdle: Bool = false, whenLocked: () -> Void = {}) async throws {
        let runLock = try RunLock(ledgerPath: ledger.path)
        defer { runLock.release() }
        whenLocked()
        let publisher = ActivityPublisher(
            board: ledger.activityBoard, source: { [engine] in engine.activity() })
        defer { publisher.stop() }
        let checkpointer = checkpointInterval.map { LogCheckpointer(path: ledger.path, interval: $0) }
        defer { checkpointer?.stop() }
        removeRecordedPartials()
        try await withThrowingTaskGroup(of: Void.self) { group in
            group.addTask { [self] in
                while !Task.isCancelled {
                    try? await Task.sleep(for: tick)
                    lock.withLock { intake.slotsChanged = true }
                    intake.wakeUp.yield()
                }
            }
            group.addTask { [self] in
                for await _ in deferredFlush {
                    try? await Task.sleep(for: factDelay)
                    intake.wakeUp.yield()
                }
            }
            group.addTask { [self] in
                try await loop(untilIdle: untilIdle)
            }
            try await group.next()
            group.cancelAll()
        }
        if let failure = lock.withLock({ failure }) { throw failure }
    }

    /// Records facts and matches transfers to the list whenever a transfer frees its slot or ends (so its
    /// successor starts at once) or a tick passes (to notice other processes).
    private func loop(untilIdle: Bool) async throws {
        var wakes = wake.makeAsyncIterator()
        while true {
            flush(force: false)
            if lock.withLock({ stopRequested || failure != nil }) { break }
            let match = lock.withLock {
                defer { intake.slotsChanged = false }
                return intake.slotsChanged
            }
            if match {
                let idle = try step()
                if untilIdle && idle { break }
            }
            _ = await wakes.next()
        }
        flush(force: true)
        try await drain(&wakes)
        // Their facts are the run's too: each ends by its time limit.
        await hookRunner.idle()
    }

    /// Stops every running transfer and waits until the engine confirmed each (facts recorded).
    private func drain(_ wakes: inout AsyncStream<Void>.Iterator) async throws {
        let ids = lock.withLock {
            for id in running.keys where stopping[id] == nil { stopping[id] = .shutdown }
            return Array(running.keys)
        }
        for id in ids { engine.cancel(id: id) }
        while lock.withLock({ !running.isEmpty }) {
            _ = await wakes.next()
            flush(force: true)
        }
    }

    /// One pass: fold changes, then start and stop transfers to match the list. Returns true when idle.
    ///
    /// A pass whose inputs (the list's head, the running, stopping, held and finishing transfers) are those a
    /// pass that changed nothing ended with would change nothing again: it is skipped, so an idle downloader's
    /// tick costs a look at the log, not a walk over every task of a long history.
    func step() throws -> Bool {
        try ledger.refresh()
        let list = ledger.list
        let limit = maxDownloads ?? list.maxDownloads
        let inputs = lock.withLock {
            StepInputs(
                head: list.head, limit: limit, running: Set(running.keys), stopping: Set(stopping.keys),
                held: held, finishing: intake.completing)
        }
        let (finishing, started) = (inputs.finishing, inputs.running)
        if let quiet, quiet.inputs == inputs { return quiet.idle }
        quiet = nil
        // However high the count (0: no limit), no more run than the free descriptors pay for: the rest wait
        // their turn rather than fail with EMFILE.
        let capacity = DescriptorLimit.transferCapacity(
            connections: max(connectionsPerTask, list.connections), running: started.count)
        var wanted: [DownloadTask] = []
        // The free descriptors are counted afresh each pass (another part of the process may close some): a pass
        // that left a task waiting for them is never taken as settled.
        var waitsForDescriptors = false
        scan: for section in list.sections {
            for id in section.tasks {
                // The state first, without copying the task: a long history is mostly finished tasks.
                guard list.tasks.state(of: id)?.isRunnable == true, only.map({ $0.contains(id) }) != false,
                    !finishing.contains(id), let t = list.tasks[id]
                else { continue }
                if limit > 0 && wanted.count >= limit { break scan }
                // Running ones first in list order, so a transfer is never stopped for the budget: only new ones
                // wait.
                if wanted.count + finishing.count >= capacity && !started.contains(id) {
                    waitsForDescriptors = true
                    continue
                }
                wanted.append(t)
            }
        }
        let wantedIDs = Set(wanted.map(\.id))
        var toCancel: [TaskID] = []
        var toHold: [TaskID] = []
        var toRelease: [TaskID] = []
        var toStart: [DownloadTask] = []
        var toLimit: [(TaskID, Int64?)] = []
        lock.withLock {
            for id in running.keys
            where stopping[id] == nil && !wantedIDs.contains(id) && !intake.completing.contains(id) {
                // A pause keeps the connection (a stop, a delete, the queue close it).
                if Self.holds(list.tasks[id], startedAt: running[id]!, in: list) {
                    if held.insert(id).inserted { toHold.append(id) }
                    continue
                }
                stopping[id] = reason(for: list.tasks[id], startedAt: running[id]!, in: list)
                toCancel.append(id)
            }
            for id in held where wantedIDs.contains(id) && stopping[id] == nil {
                held.remove(id)
                toRelease.append(id)
            }
            for id in taskLimits.keys where running[id] == nil { taskLimits[id] = nil }
            for (id, sent) in taskLimits {
                let now = list.tasks[id]?.options.maxSpeed
                if now != sent {
                    taskLimits[id] = now
                    toLimit.append((id, now))
                }
            }
            for t in wanted where running[t.id] == nil {
                running[t.id] = t.resets
                taskLimits[t.id] = t.options.maxSpeed
                toStart.append(t)
            }
            // A running task reset by a redownload elsewhere must restart from zero.
            for t in wanted where running[t.id].map({ $0 != t.resets }) == true && stopping[t.id] == nil {
                stopping[t.id] = .reset
                toCancel.append(t.id)
            }
        }
        if speedLimit != list.speedLimit {
            speedLimit = list.speedLimit
            engine.setSpeedLimit(list.speedLimit)
        }
        if pauseHold != list.pauseHold {
            pauseHold = list.pauseHold
            engine.setHoldLimit(list.pauseHold > 0 ? Double(list.pauseHold) : nil)
        }
        for (id, limit) in toLimit { engine.setSpeedLimit(limit, id: id) }
        for id in toCancel { engine.cancel(id: id) }
        for id in toHold { engine.hold(id: id) }
        for id in toRelease { engine.release(id: id) }
        for task in toStart {
            // Credentials are opened here, outside the scheduler's lock (the vault is read under the ledger's).
            guard var request = request(for: task, in: list) else { continue }
            request.validator = Self.resumeValidator(for: request, logged: list.tasks[request.id])
            if let maxSize { request.maxSize = maxSize }
            if FileNaming.isSafeDirectory(request.directory) && !Self.isDirectory(request.directory) {
                try? FileManager.default.createDirectory(
                    atPath: request.directory, withIntermediateDirectories: true)
            }
            engine.start(request)
        }
        // A held pause is not work to wait for: idle, the engine's shutdown releases its connection.
        let idle = wanted.isEmpty && lock.withLock { running.keys.allSatisfy(held.contains) }
        if toCancel.isEmpty && toHold.isEmpty && toRelease.isEmpty && toStart.isEmpty && toLimit.isEmpty
            && !waitsForDescriptors
        {
            quiet = (inputs, idle)
        }
        return idle
    }

    /// What the partial file left for `request` is worth, and the validator to resume it with. Always a validator
    /// when one is known: after a crash the log may hold no byte count while the file has bytes, and a Range
    /// without If-Range would splice changed content onto them (the engine sends it only when it resumes).
    ///
    /// The file's own mark (``PartialMark``) says which generation of the task wrote it: the current one's bytes
    /// resume even when the run that wrote them was killed before logging the transfer's start or the server's
    /// validator; an older generation's (a redownload's predecessor) are removed. Without a mark (a file system
    /// without extended attributes), a task the log never saw start has no partial worth keeping.
    static func resumeValidator(for request: TransferRequest, logged t: DownloadTask?) -> String? {
        // Only the real hidden folder is looked at: a link there is refused (the engine then fails the task).
        guard let folder = try? DownloadFolder(directory: request.directory), folder.hasPartials else {
            return t?.validator
        }
        if let mark = folder.partialMark(id: request.id) {
            guard mark.generation == request.generation else {
                folder.removePartial(id: request.id)
                return t?.validator
            }
            return t?.validator ?? mark.validator
        }
        // fstatat first: unlink of a missing name takes the folder's lock, which the engine wants too.
        if let t, t.attempts == 0, t.bytes == 0, folder.partialStatus(id: request.id) != nil {
            folder.removePartial(id: request.id)
        }
        return t?.validator
    }

    /// Whether `path` is a directory (or a symbolic link to one).
    private static func isDirectory(_ path: String) -> Bool {
        var info = stat()
        return stat(path, &info) == 0 && (info.st_mode & S_IFMT) == S_IFDIR
    }

    /// Partial files of finished tasks: second links to their placed files, left by a run stopped between a
    /// placement and the removal that follows its record.
    private func removeRecordedPartials() {
        let list = ledger.list
        var seen: Set<String> = []
        for t in list.tasks.values where seen.insert(t.directory).inserted {
            // The real `.dledger/partial` only: a link there (or at `.dledger`) is never followed.
            guard let folder = try? DownloadFolder(directory: t.directory), folder.hasPartials else {
                continue
            }
            for id in folder.partialIDs() {
                guard let task = list.tasks[id], task.state == .finished, task.directory == t.directory
                else { continue }
                folder.removePartial(id: id)
            }
        }
    }

    /// Whether a running transfer of `task` is held rather than stopped: the user paused it (not stopped,
    /// deleted or reset).
    private static func holds(_ task: DownloadTask?, startedAt resets: Int, in list: DownloadList) -> Bool {
        guard let task, task.resets == resets, !list.isTrashed(task.id) else { return false }
        return task.state == .paused
    }

    private func reason(for task: DownloadTask?, startedAt resets: Int, in list: DownloadList) -> StopReason {
        guard let task, task.resets == resets else { return .reset }
        if list.isTrashed(task.id) { return .user }
        switch task.state {
        case .paused, .stopped: return .user
        default: return .queue
        }
    }

    /// Turns the engine events received so far into ledger facts, appended in one transaction, then frees the
    /// ids of the transfers that ended. Unless `force`, waits while only `.started` / `.resolved` facts younger
    /// than `factDelay` are pending.
    private func flush(force: Bool) {
        let events = lock.withLock { () -> [TransferEvent] in
            let due =
                force || intake.deferredSince.map { $0.duration(to: .now) >= factDelay } ?? true
                || intake.pending.contains(where: \.isTerminal)
            guard due else { return [] }
            intake.deferredSince = nil
            defer { intake.pending.removeAll() }
            return intake.pending
        }
        guard !events.isEmpty else { return }
        var facts: [Event] = []
        var ended: [TaskID] = []
        for event in events {
            if let fact = fact(for: event) { facts.append(fact) }
            if event.isTerminal { ended.append(event.id) }
        }
        do {
            if !facts.isEmpty {
                try ledger.record(facts)
                for fact in facts { startHook(after: fact) }
            }
            // Recorded: the completed partials (second links to the placed files) can go.
            for case .completed(let id, _, _, _) in events {
                if let t = ledger.list.tasks[id] { FileOwnership.removePartial(of: t) }
            }
        } catch {
            lock.withLock { failure = failure ?? error }
        }
        for id in ended { finish(id) }
    }

    /// The fact an engine event stands for, if any.
    func fact(for event: TransferEvent) -> Event? {
        switch event {
        case .started(let id, let attempt, let offset):
            guard lock.withLock({ stopping[id] == nil }) else { return nil }
            return .transferStarted(id: id, attempt: attempt, offset: offset)
        case .resolved(
            let id, let size, let serverName, let etag, let lastModified, let acceptsRanges, let why):
            return .transferResolved(
                id: id, size: size, serverName: serverName, validator: etag ?? lastModified,
                acceptsRanges: acceptsRanges, restartedFromZero: why)
        case .completed(let id, let bytes, let sha256, let fileName):
            let name = placeUserName(id: id, fileName: fileName)
            return .transferCompleted(
                id: id, bytes: bytes, sha256: sha256, fileName: name,
                placed: placedIdentity(id: id, name: name))
        case .failed(let id, let reason, let retryable, let bytes):
            let failure = TaskFailure(code: reason.code, detail: reason.detail, retryable: retryable)
            return .transferFailed(id: id, failure: failure, bytes: bytes)
        case .stopped(let id, let bytes):
            return lock.withLock({ stopping[id] }) == .reset ? nil : .transferPaused(id: id, bytes: bytes)
        case .retrying(let id, let reason, let bytes, let delay):
            let failure = TaskFailure(code: reason.code, detail: reason.detail, retryable: true)
            return .transferRetrying(
                id: id, failure: failure, bytes: bytes, delayMs: Int64((delay * 1000).rounded()))
        case .held(let id, let bytes):
            return .transferHeld(id: id, bytes: bytes)
        case .continued(let id):
            return .transferContinued(id: id)
        case .connections(let id, let count, let detail):
            return .transferConnections(id: id, connections: max(count, 1), detail: detail)
        case .received:
            return nil
        }
    }

    /// Keeps the first error that stops the run (the ledger could not be written).
    func noteFailure(_ error: Error) {
        lock.withLock { failure = failure ?? error }
    }

    func finish(_ id: TaskID) {
        lock.withLock {
            running[id] = nil
            stopping[id] = nil
            held.remove(id)
            intake.completing.remove(id)
            if running.isEmpty { intake.slotsChanged = true }
        }
    }

    /// A user who renamed the task while it downloaded gets that name, if free; else the engine's name stands.
    private func placeUserName(id: TaskID, fileName: String) -> String {
        guard let t = ledger.list.tasks[id], t.nameIsUserChosen, t.displayName != fileName,
            let folder = try? FileOwnership.lockedFolder(t.directory)
        else {
            return fileName
        }
        defer { folder.unlock() }
        guard !folder.isLedgerName(t.displayName, ledgerPath: ledger.path) else { return fileName }
        do {
            try folder.rename(fileName, to: t.displayName)
            return t.displayName
        } catch {
            return fileName
        }
    }

    /// The device, inode and modification time of the file just placed at `name`: those of its partial, a second link to it until
    /// the fact is recorded (the placed name itself on a file system without hard links).
    private func placedIdentity(id: TaskID, name: String) -> FileIdentity? {
        guard let t = ledger.list.tasks[id], let folder = try? DownloadFolder(directory: t.directory),
            let info = folder.partialStatus(id: id) ?? folder.status(of: name)
        else { return nil }
        return FileOwnership.identity(info)
    }
}

/// What the engine's threads hand the scheduler: engine events not yet turned into facts, the transfers that have
/// received their last byte, and whether the next pass must match transfers to the list. Guarded by `lock`, which
/// the scheduler also takes for its own bookkeeping. Holds no reference to the scheduler (which owns the engine
/// that calls ``receive(_:)``).
private final class Intake: @unchecked Sendable {
    let lock = NSLock()
    /// Transfers whose bytes are all in and that are being verified and placed: they no longer take a
    /// download slot, and are neither restarted nor cancelled.
    var completing: Set<TaskID> = []
    /// Engine events not yet turned into facts.
    var pending: [TransferEvent] = []
    /// When the oldest `.started` / `.resolved` in `pending` arrived, if any is waiting for its commit.
    var deferredSince: ContinuousClock.Instant?
    /// Whether the next pass must match transfers to the list: a slot was freed, a transfer ended, or a tick
    /// passed. Facts alone (`.started`, `.resolved`, `.retrying`) change nothing the matching looks at.
    var slotsChanged = true
    /// Wakes the scheduler's loop.
    let wakeUp: AsyncStream<Void>.Continuation
    /// Asks for one wake-up `factDelay` from now.
    let armDeferredFlush: AsyncStream<Void>.Continuation

    init(wakeUp: AsyncStream<Void>.Continuation, armDeferredFlush: AsyncStream<Void>.Continuation) {
        self.wakeUp = wakeUp
        self.armDeferredFlush = armDeferredFlush
    }

    /// Files an engine event and wakes the loop as it needs; on the engine thread that emits it.
    func receive(_ event: TransferEvent) {
        switch lock.withLock({ take(event) }) {
        case .now: wakeUp.yield()
        case .armTimer: armDeferredFlush.yield()
        case .later: break
        }
    }

    /// When an engine event should wake the loop.
    private enum Urgency {
        case now
        /// A fact that may wait `factDelay`, the first of its batch: start the timer.
        case armTimer
        /// A fact that may wait, behind one that already started the timer.
        case later
    }

    /// Files `event` for the loop. Caller holds `lock`.
    ///
    /// `.received` frees a slot and a terminal event ends a transfer: the loop runs at once, so the successor
    /// starts at once. `.started`, `.resolved` and `.retrying` only add facts: they wait up to `factDelay` to share a commit
    /// with the facts that follow (one SQLite transaction per event cost more than the transfer of a small file).
    private func take(_ event: TransferEvent) -> Urgency {
        switch event {
        case .received(let id):
            completing.insert(id)
            slotsChanged = true
            return .now
        case .started, .resolved, .retrying, .held, .continued, .connections:
            pending.append(event)
            guard deferredSince == nil else { return .later }
            deferredSince = .now
            return .armTimer
        case .completed(let id, _, _, _):
            pending.append(event)
            // The slot of a transfer that reported `.received` is free already; the end of the last one is
            // noticed by `finish` (idle).
            if !completing.contains(id) { slotsChanged = true }
            return .now
        case .failed, .stopped:
            pending.append(event)
            slotsChanged = true
            return .now
        }
    }

}

/// What a scheduling pass decides from: equal inputs, equal decisions.
private struct StepInputs: Equatable {
    var head: Int64
    var limit: Int
    var running: Set<TaskID>
    var stopping: Set<TaskID>
    var held: Set<TaskID>
    var finishing: Set<TaskID>
}
