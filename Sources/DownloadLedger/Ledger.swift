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
///
/// This is the write side: commands, downloader facts, credentials, the files a command renames or removes
/// (`Ledger+Commands.swift`, `Ledger+Credentials.swift`, `Ledger+Files.swift`). What reads the log — history,
/// audit, verify, summary — is ``LedgerLog``'s (`LedgerLog+*.swift`); the ledger's own read calls
/// (`Ledger+Reading.swift`) run it on the ledger's store. The store is reached only through ``EventStore`` and
/// ``EventStoreUpkeep``, made from a path in one place (`StoreFactory.swift`).
///
/// Thread-safe: every field a call reads or changes is in one `Mutex` (``State``), so calls are serialised.
public final class Ledger: Sendable {
    public let path: String
    public let isReadOnly: Bool
    /// Milliseconds since the Unix epoch. Injected so tests can move time.
    public let clock: @Sendable () -> Int64
    /// The store, the projection and their bookkeeping (`Ledger+State.swift`).
    let core: Mutex<State>
    /// The list as of the last completed change, kept once ``latestList`` was asked for (`Ledger+Latest.swift`).
    let published = Mutex<DownloadList?>(nil)
    /// How the lists this ledger hands out read back the events their undo steps hold by reference.
    let loggedEvents: LedgerEventSource
    /// Who follows the changes, and the one poller for other processes' changes.
    let followers = ChangeFollowers()

    /// A snapshot is cached once the events folded since the last one amount to this much replay work: the
    /// bytes of their payloads plus `eventWork` per event. An add of 100,000 URLs is snapshotted at once; about
    /// 4,000 single-task events, or 6 adds of 1,000 URLs, make one. What a later open replays stays under it.
    public var snapshotWork: Int {
        get { core.withLock { $0.snapshotWork } }
        set { core.withLock { $0.snapshotWork = newValue } }
    }
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
    ///   - keepingUndo: false for a read-only ledger whose undo history is never shown (`ls` in words): the events
    ///     after its snapshot are folded without working out their inverses, and ``list``'s undo and redo stacks
    ///     are the snapshot's. Ignored when not `readOnly`.
    /// - Throws: `StoreError` (not a ledger — also any existing file that is not one, empty or not, which is left
    ///   untouched —, corrupt, locked, newer schema), `LedgerOpenError`.
    /// - Complexity: loads the latest snapshot and folds the events after it: start-up does not grow with the log.
    public init(
        path: String, creatingWithDirectory directory: String? = nil, readOnly: Bool = false,
        keepingUndo: Bool = true, deferringCreation: Bool = false,
        clock: @escaping @Sendable () -> Int64 = Ledger.wallClock
    ) throws {
        self.path = path
        self.isReadOnly = readOnly
        self.clock = clock
        let source = LedgerEventSource()
        loggedEvents = source
        let found = try StoreFactory.openIfExists(path: path, readOnly: readOnly)
        if !readOnly && !PostgresLocation.isPostgres(path) { Self.removeStaleTemporaries(of: path) }
        var state: State
        if let found {
            state = try State.opening(
                found, path: path, readOnly: readOnly, keepingUndo: keepingUndo, reader: source.reader,
                clock: clock
            )
            if state.list.head == 0, let directory, !readOnly {
                try state.appendCreation(directory: try Self.acceptedDirectory(directory))
            }
            // A writer that finds a tail a tenth of the way to the next snapshot saves one: readers then start there.
            try state.saveSnapshotIfDue(force: state.workSinceSnapshot >= state.snapshotWork / 10)
        } else {
            guard let given = directory, !readOnly else {
                throw LedgerOpenError.noLedger(EventStoreLocation.shown(path))
            }
            state = try State.inMemory(
                creating: try Self.acceptedDirectory(given), path: path, reader: source.reader, clock: clock)
            if !deferringCreation {
                // False when another process created it meanwhile: that ledger stands.
                _ = try Self.createFile(at: path, events: [state.pendingCreation!], time: clock())
                try state.openCreatedFile()
            }
        }
        core = Mutex(state)
        source.attach(self)
    }

    /// The first event of a new ledger.
    static func creation(directory: String) -> NewEvent {
        newEvent(Entry(.ledgerCreated(directory: directory, maxDownloads: 3, autoRemoveEmptySections: true)))
    }

    static func newEvent(_ entry: Entry) -> NewEvent {
        NewEvent(
            kind: entry.event.kind, version: Event.payloadVersion, tasks: entry.event.taskIDs,
            payload: entry.encodedPayload())
    }

    /// The current projection.
    public var list: DownloadList { core.withLock { $0.list } }

    /// Folds in what other processes appended. Returns true when the list changed.
    /// - Complexity: one cheap check when nothing changed.
    @discardableResult
    public func refresh() throws -> Bool {
        try refresh(announced: false)
    }

    /// ``refresh()``; `announced`: a commit was announced (a NOTIFY heard on another connection), so the log is read
    /// even when the store's own change token has not moved yet.
    func refresh(announced: Bool) throws -> Bool {
        try core.withLock { state in
            guard try state.refresh(force: announced) else { return false }
            notify(state)
            return true
        }
    }

    /// The list after every change, starting with the current one. A change made through this ledger is seen at
    /// once. One made by another process: on PostgreSQL as soon as its NOTIFY arrives (a thread waits for it, with
    /// a look every 2 s besides); on SQLite when the file is next polled, every `pollInterval` (one waiter serves
    /// every follower, at the shortest interval asked for).
    public func changes(pollInterval: Duration = .milliseconds(250)) -> AsyncStream<DownloadList> {
        let (stream, continuation) = AsyncStream<DownloadList>.makeStream(
            bufferingPolicy: .bufferingNewest(1))
        let hooks = waiterHooks()
        let id = core.withLock { state in
            followers.follow(continuation, current: state.list, pollInterval: pollInterval, hooks: hooks)
        }
        continuation.onTermination = { [followers] _ in followers.unfollow(id, hooks: hooks) }
        return stream
    }

    /// The list's head after every change, starting with the current one: ``changes(pollInterval:)`` for a
    /// follower that needs to know only that the list changed (it holds no copy of the list while the ledger
    /// folds).
    public func headChanges(pollInterval: Duration = .milliseconds(250)) -> AsyncStream<Int64> {
        let (stream, continuation) = AsyncStream<Int64>.makeStream(bufferingPolicy: .bufferingNewest(1))
        let hooks = waiterHooks()
        let id = core.withLock { state in
            followers.follow(continuation, current: state.list.head, pollInterval: pollInterval, hooks: hooks)
        }
        continuation.onTermination = { [followers] _ in followers.unfollow(id, hooks: hooks) }
        return stream
    }

    /// What the waiter does, while the ledger lives: get the store's listener factory, and fold in other
    /// processes' changes (publishing them).
    private func waiterHooks() -> ChangeWaiter.Hooks {
        ChangeWaiter.Hooks(
            listener: { [weak self] in self?.core.withLock { $0.store.changeListener() } },
            refresh: { [weak self] announced in
                guard let self else { return false }
                _ = try? self.refresh(announced: announced)
                return true
            })
    }

    /// Hands the list a change left to ``latestList`` and to every follower. Called under the mutex, so that
    /// followers see the changes in their order.
    func notify(_ state: borrowing State) {
        if state.publishes { published.withLock { $0 = state.list } }
        followers.publish(state.list)
    }

    /// Milliseconds now, by the ledger's clock.
    public func now() -> Int64 { clock() }

    /// The followers' streams end with the ledger, and the thread that looked for other processes' changes stops.
    /// A ledger opened to write leaves its file quiet (``leaveQuiet()``) when no other connection has it open, so a
    /// program that uses the library and lets its ledger go leaves a file that any copy of opens in the plain
    /// `sqlite3` shell, as `dledger` does after each command. Never waits.
    deinit {
        followers.close()
        if !isReadOnly { _ = core.withLock { $0.store.leaveQuiet() } }
    }
}
