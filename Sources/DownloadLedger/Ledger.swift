import Foundation
import Synchronization

/// What a command did, for the caller to report.
public struct Outcome: Sendable {
    /// The seq the command's event was logged at.
    public var seq: Int64
    /// Its commit time, ms since the Unix epoch.
    public var time: Int64
    public var entry: Entry
    public var decision: Decision
}

/// A batch of commands (``Ledger/execute(all:)``) refused as a whole: the first `done` could be done, the next
/// could not, for `error`. Nothing was appended.
public struct BatchRefused: Error, Sendable, CustomStringConvertible {
    public var done: Int
    public var of: Int
    public var error: any Error

    public var description: String { "\(error)" }
}

/// A download ledger: the append-only event log in one SQLite file and the list it projects.
///
/// ```swift
/// let ledger = try Ledger(path: "downloads.sqlite", creatingWithDirectory: "/home/me/Downloads")
/// let added = try ledger.execute(.add(urls: ["https://example.com/a.iso"], placement: .end,
///                                     name: nil, sha256: nil, directory: nil))
/// print(ledger.list.orderedTasks.map(\.displayName))
/// try ledger.execute(.undo)
/// ```
/// Commands are validated against the current projection and become one event each; a failed command appends
/// nothing. Another process appending to the same file is seen on `refresh()` (and by `changes()`).
/// Thread-safe: calls are serialised.
public final class Ledger: @unchecked Sendable {
    public let path: String
    public let isReadOnly: Bool
    /// The log. Swapped (under the lock) only once: from memory to the file, when a new ledger is first written.
    var store: EventStore
    /// Set while a new ledger exists only in memory (its creation event in an in-memory store): nothing is on disk
    /// until the first command succeeds, which writes the file whole (`Ledger+Creation.swift`).
    var pendingCreation: NewEvent?
    let lock: NSRecursiveLock
    var state: DownloadList
    var lastSnapshotSeq: Int64 = 0
    /// Replay work folded in since the latest snapshot (see `snapshotWork`).
    var workSinceSnapshot = 0
    var lastToken: Int64 = 0
    /// Whether the store commits with `synchronous=NORMAL` (downloader facts) rather than `FULL` (everything
    /// else, and how the store opens). Switched only when the next write needs the other mode.
    var factDurability = false
    private var observers: [UUID: AsyncStream<DownloadList>.Continuation] = [:]
    /// The list as of the last completed change, kept once ``latestList`` was asked for (`Ledger+Latest.swift`).
    let published = Mutex<DownloadList?>(nil)
    /// Whether changes are published (set under the lock, by the first ``latestList``).
    var publishes = false
    /// Milliseconds since the Unix epoch. Injected so tests can move time.
    public let clock: @Sendable () -> Int64
    /// A snapshot is cached once the events folded since the last one amount to this much replay work: the
    /// bytes of their payloads plus `eventWork` per event. An add of 100,000 URLs is snapshotted at once; about
    /// 4,000 single-task events, or 6 adds of 1,000 URLs, make one. What a later open replays stays under it.
    public var snapshotWork = 512 * 1024
    /// The work counted for one event besides its payload (decoding and applying it).
    public static let eventWork = 64

    /// The replay work of one event folded onto a list of `liveCount` tasks: its payload and ``eventWork``, and
    /// for an event that reorders the list (``Event/reordersList``: a move, a delete) a byte for every 16 tasks,
    /// since its fold passes over the list's ids. After a big list, a few hundred moves then make a snapshot,
    /// where their payloads alone would need thousands, and every reader after them folds them all.
    static func work(of event: Event, payload: Int, liveCount: Int) -> Int {
        payload + eventWork + (event.reordersList ? liveCount / 16 : 0)
    }

    /// Wall-clock milliseconds since the Unix epoch.
    public static let wallClock: @Sendable () -> Int64 = {
        Int64((Date().timeIntervalSince1970 * 1000).rounded())
    }

    /// Opens the ledger at `path`.
    /// - Parameters:
    ///   - creatingWithDirectory: when the file does not exist, start a new ledger whose default download directory
    ///     is this absolute path, normalised (``FileNaming/normalizedDirectory(_:)``: `/tmp/x//y/` is `/tmp/x/y`; one
    ///     with a `..` part is refused); when nil, a missing file is an error. The file appears at `path` whole (never
    ///     half-written, never over another file).
    ///   - deferringCreation: keep a new ledger in memory until the first command succeeds: then its file appears
    ///     holding the creation and that command; a failed command, or none, leaves nothing on disk (the CLI).
    ///   - readOnly: never write to the file (offline inspection); commands then fail.
    /// - Throws: `StoreError` (not a ledger — also any existing file that is not one, empty or not, which is left
    ///   untouched —, corrupt, locked, newer schema), `LedgerOpenError`.
    /// - Complexity: loads the latest snapshot and folds the events after it: start-up does not grow with the log.
    public init(
        path: String, creatingWithDirectory directory: String? = nil, readOnly: Bool = false,
        deferringCreation: Bool = false, clock: @escaping @Sendable () -> Int64 = Ledger.wallClock
    ) throws {
        self.path = path
        self.isReadOnly = readOnly
        self.clock = clock
        let lock = NSRecursiveLock()
        self.lock = lock
        let exists = try Self.checkExisting(path)
        if !exists && (readOnly || directory == nil) {
            throw LedgerOpenError.noLedger(EventStoreLocation.shown(path))
        }
        if !readOnly && !PostgresLocation.isPostgres(path) { Self.removeStaleTemporaries(of: path) }
        if !exists, let given = directory {
            let directory = try Self.acceptedDirectory(given)
            store = InMemoryEventStore()
            state = DownloadList()
            let creation = Self.creation(directory: directory)
            _ = try store.append([creation], expectingHead: 0, time: clock())
            pendingCreation = creation
            try fold()
            if !deferringCreation {
                // False when another process created it meanwhile: that ledger stands.
                _ = try Self.createFile(at: path, events: [creation], time: clock())
                try openCreatedFile()
            }
            return
        }
        store = try EventStoreLocation.open(path, readOnly: readOnly, existing: true)
        state = try Self.startingPoint(store, atOrBefore: nil, reader: Self.loggedEvents(store, lock: lock))
        lastSnapshotSeq = state.head
        lastToken = try store.changeToken()
        try fold()
        if state.head == 0, let directory, !readOnly {
            try appendCreation(directory: try Self.acceptedDirectory(directory))
        }
        // A writer that finds a tail a tenth of the way to the next snapshot saves one: readers then start there.
        try saveSnapshotIfDue(force: workSinceSnapshot >= snapshotWork / 10)
    }

    /// Opens an existing store (tests: the in-memory store).
    init(store: EventStore, clock: @escaping @Sendable () -> Int64 = Ledger.wallClock) throws {
        self.path = ":store:"
        self.isReadOnly = false
        self.lock = NSRecursiveLock()
        self.store = store
        self.clock = clock
        state = DownloadList()
        try fold()
    }

    /// Sets the store's commit durability for the next writes: NORMAL for downloader facts, FULL otherwise.
    /// Caller holds the lock.
    func useFactDurability(_ facts: Bool) throws {
        guard facts != factDurability else { return }
        try (store as? SQLiteEventStore)?.setSynchronous(facts ? .normal : .full)
        try (store as? PostgresEventStore)?.setDurable(!facts)
        factDurability = facts
    }

    /// The first event of a new ledger.
    static func creation(directory: String) -> NewEvent {
        newEvent(Entry(.ledgerCreated(directory: directory, maxDownloads: 3, autoRemoveEmptySections: true)))
    }

    private func appendCreation(directory: String) throws {
        try useFactDurability(false)
        do {
            _ = try store.append([Self.creation(directory: directory)], expectingHead: 0, time: clock())
        } catch StoreError.conflict {
            // Another process created it first: its creation stands.
        }
        try fold()
    }

    /// The current projection.
    public var list: DownloadList {
        lock.lock()
        defer { lock.unlock() }
        return state
    }

    static func newEvent(_ entry: Entry) -> NewEvent {
        NewEvent(
            kind: entry.event.kind, version: Event.payloadVersion, tasks: entry.event.taskIDs,
            payload: entry.encodedPayload())
    }

    /// Folds events appended after the projection's head (by us or another process). Caller holds the lock.
    @discardableResult
    func fold() throws -> Bool {
        let before = state.head
        workSinceSnapshot += try Self.fold(store, into: &state, through: nil)
        return state.head != before
    }

    /// Saves a snapshot, with its summary, once enough work was folded since the last (or `force`). Caller holds
    /// the lock.
    func saveSnapshotIfDue(force: Bool = false) throws {
        guard !isReadOnly, pendingCreation == nil, state.head > lastSnapshotSeq,
            force || workSinceSnapshot >= snapshotWork
        else { return }
        try useFactDurability(false)
        try store.saveSnapshot(
            seq: state.head, reducerVersion: DownloadList.reducerVersion, bytes: state.snapshotBytes(),
            summary: ListSummary(state).encoded())
        lastSnapshotSeq = state.head
        workSinceSnapshot = 0
    }

    /// Folds in what other processes appended. Returns true when the list changed.
    /// - Complexity: one cheap check when nothing changed.
    @discardableResult
    public func refresh() throws -> Bool {
        lock.lock()
        defer { lock.unlock() }
        if pendingCreation != nil {
            // Another process may have created the file meanwhile: follow it.
            guard try Self.checkExisting(path) else { return false }
            try openCreatedFile()
            notify()
            return true
        }
        let token = try store.changeToken()
        guard token != lastToken else { return false }
        lastToken = token
        let changed = try fold()
        if changed {
            try saveSnapshotIfDue()
            notify()
        }
        return changed
    }

    /// Validates `command` against the current list and appends its event.
    ///
    /// When another process appended meanwhile, the command is validated again on the new list and retried, so
    /// concurrent writers lose nothing and never produce an invalid list. `origin` names the front end the user
    /// acted through (`"rpc"`), logged with the event.
    /// - Throws: `LedgerError` or `NothingAdded` for an invalid command (nothing appended); `StoreError`.
    @discardableResult
    public func execute(_ given: Command, origin: String? = nil) throws -> Outcome {
        let command = try Self.acceptingDirectory(of: given)
        lock.lock()
        defer { lock.unlock() }
        guard !isReadOnly else { throw StoreError.readOnly }
        // Renames of finished files take turns per directory (a lock on its `.dledger`), so that processes
        // renaming one task at once never leave a second name behind: each sees the name the last one logged.
        let renameLock = try lockForRename(command)
        defer { renameLock?.unlock() }
        while true {
            try fold()
            var decision = try state.decide(command)
            decision.entry.origin = origin
            let decided = decision.entry
            var sealed = [decided]
            let vault = try sealCredentials(in: &sealed) {
                var after = state
                after.apply(LoggedEntry(seq: state.head + 1, time: clock(), entry: decided))
                return after
            }
            decision.entry = sealed[0]
            let undoRename = try prepareFiles(for: &decision.entry, in: state)
            // The list before the event, kept only when its files are cleaned up after it (a copy of a list of a
            // million tasks is not made for nothing).
            let before = Self.cleansFiles(decision.entry.event) ? state : nil
            let appended: (last: Int64, time: Int64)
            do {
                appended = try appendCommand([decision.entry], vault: vault, time: clock())
            } catch StoreError.conflict {
                undoRename?()
                continue
            } catch {
                undoRename?()
                throw error
            }
            try fold()
            lastToken = (try? store.changeToken()) ?? lastToken
            if !vault.removed.isEmpty { forgetDeletedKeys() }
            if let before { cleanUpFiles(after: decision.entry.event, before: before) }
            try saveSnapshotIfDue()
            notify()
            return Outcome(seq: appended.last, time: appended.time, entry: decision.entry, decision: decision)
        }
    }

    /// Validates `commands` one after the other, each against the list the ones before it leave, and appends all
    /// their events in one transaction, or none (`undo 3` undoes three actions or nothing).
    /// - Throws: ``BatchRefused`` naming how many could be done and why the next could not; `StoreError`.
    @discardableResult
    public func execute(all given: [Command]) throws -> [Outcome] {
        let commands = try given.map(Self.acceptingDirectory)
        lock.lock()
        defer { lock.unlock() }
        guard !isReadOnly else { throw StoreError.readOnly }
        while true {
            try fold()
            var trial = state
            var decisions: [Decision] = []
            var undoRenames: [() -> Void] = []
            let takeBack = { for undo in undoRenames.reversed() { undo() } }
            let now = clock()
            for (n, command) in commands.enumerated() {
                do {
                    var decision = try trial.decide(command)
                    if let undo = try prepareFiles(for: &decision.entry, in: trial) {
                        undoRenames.append(undo)
                    }
                    decisions.append(decision)
                    trial.apply(LoggedEntry(seq: trial.head + 1, time: now, entry: decision.entry))
                } catch {
                    takeBack()
                    throw BatchRefused(done: n, of: commands.count, error: error)
                }
            }
            var entries = decisions.map(\.entry)
            let vault: VaultChange
            do {
                vault = try sealCredentials(in: &entries) { trial }
            } catch {
                takeBack()
                throw error
            }
            for n in decisions.indices { decisions[n].entry = entries[n] }
            let before = state
            let appended: (last: Int64, time: Int64)
            do {
                appended = try appendCommand(decisions.map(\.entry), vault: vault, time: now)
            } catch StoreError.conflict {
                takeBack()
                continue
            } catch {
                takeBack()
                throw error
            }
            var list = before
            try fold()
            lastToken = (try? store.changeToken()) ?? lastToken
            if !vault.removed.isEmpty { forgetDeletedKeys() }
            let first = appended.last - Int64(decisions.count) + 1
            for (n, decision) in decisions.enumerated() {
                cleanUpFiles(after: decision.entry.event, before: list)
                list.apply(LoggedEntry(seq: first + Int64(n), time: appended.time, entry: decision.entry))
            }
            try saveSnapshotIfDue()
            notify()
            return decisions.enumerated().map { n, decision in
                Outcome(seq: first + Int64(n), time: appended.time, entry: decision.entry, decision: decision)
            }
        }
    }

    /// The locked folder of the task a rename names, when that task has a file on disk. Caller holds the lock.
    private func lockForRename(_ command: Command) throws -> DownloadFolder? {
        guard case .rename(let id, _) = command else { return nil }
        try fold()
        guard let task = state.tasks[id], task.fileName != nil else { return nil }
        return try FileOwnership.lockedFolder(task.directory)
    }

    /// Appends a downloader fact. Facts about tasks that are gone are dropped (a purge won the race).
    /// - Returns: the seq, or nil when the fact was dropped.
    @discardableResult
    public func record(_ fact: Event) throws -> Int64? {
        try record([fact])
    }

    /// Appends several downloader facts in one transaction, in order. Facts about tasks that are gone are
    /// dropped.
    ///
    /// Facts are committed with `synchronous=NORMAL`: in WAL mode they survive a crash or `kill -9` of the
    /// process but may be lost with the last moments before a power cut — the partial files, not the facts,
    /// are the truth for resuming. User commands stay fully durable (`synchronous=FULL`).
    /// - Returns: the seq of the last fact appended, or nil when all were dropped.
    @discardableResult
    public func record(_ facts: [Event]) throws -> Int64? {
        precondition(facts.allSatisfy(\.isTransferFact), "only downloader facts are recorded")
        lock.lock()
        defer { lock.unlock() }
        guard !isReadOnly else { throw StoreError.readOnly }
        while true {
            try fold()
            let known = facts.filter { $0.taskIDs.allSatisfy { state.tasks[$0] != nil } }
            guard !known.isEmpty else { return nil }
            // Stays NORMAL until a write that needs FULL switches back: two PRAGMAs less per batch of facts.
            try useFactDurability(true)
            do {
                let seq = try store.append(
                    known.map { Self.newEvent(Entry($0)) }, expectingHead: state.head, time: clock())
                try fold()
                lastToken = (try? store.changeToken()) ?? lastToken
                try saveSnapshotIfDue()
                notify()
                return seq
            } catch StoreError.conflict {
                continue
            }
        }
    }

    /// The list after every change, starting with the current one. Changes by other processes are noticed by
    /// polling the file every `pollInterval`.
    public func changes(pollInterval: Duration = .milliseconds(250)) -> AsyncStream<DownloadList> {
        let id = UUID()
        let (stream, continuation) = AsyncStream<DownloadList>.makeStream(
            bufferingPolicy: .bufferingNewest(1))
        lock.lock()
        observers[id] = continuation
        continuation.yield(state)
        lock.unlock()
        let poller = Task { [weak self] in
            while !Task.isCancelled {
                try? await Task.sleep(for: pollInterval)
                _ = try? self?.refresh()
            }
        }
        continuation.onTermination = { [weak self] _ in
            poller.cancel()
            self?.lock.lock()
            self?.observers[id] = nil
            self?.lock.unlock()
        }
        return stream
    }

    private func notify() {
        if publishes { published.withLock { $0 = state } }
        for c in observers.values { c.yield(state) }
    }

    /// Runs `body` with the lock held (for the scheduler's read-decide-act steps).
    func withLock<T>(_ body: () throws -> T) rethrows -> T {
        lock.lock()
        defer { lock.unlock() }
        return try body()
    }

    /// Milliseconds now, by the ledger's clock.
    public func now() -> Int64 { clock() }
}
