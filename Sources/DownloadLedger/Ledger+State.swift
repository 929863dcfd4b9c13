import Foundation

extension Ledger {
    /// Everything a ledger's calls read or change, held in its one `Mutex` (``Ledger/core``). Its methods run with
    /// the mutex held; none takes it again, so it is not recursive: the undo steps a command needs from the log
    /// are read through ``store`` before the decision (``DownloadList/readLoggedEvents(for:_:)``), and the reader
    /// that lists handed out use (``LedgerEventSource``) is never called from here.
    ///
    /// Store calls under the mutex: appends and the folds after them (a writer must see the head it appends
    /// after), snapshots, and the reads of `verify`, `audit` and replay, which read the connection the writes go
    /// through (a new ledger's events are only in this store until its first command). A long `verify` of the
    /// ledger therefore holds writers back; `LedgerLog.verify(path:)` (what `dledger verify` runs) holds nothing.
    struct State {
        let path: String
        let isReadOnly: Bool
        let clock: @Sendable () -> Int64
        /// The log. Swapped only once: from memory to the file, when a new ledger is first written.
        var store: any EventStoreUpkeep
        /// Set while a new ledger exists only in memory (its creation event in an in-memory store): nothing is on
        /// disk until the first command succeeds, which writes the file whole (`Ledger+Creation.swift`).
        var pendingCreation: NewEvent?
        var list: DownloadList
        /// How undo steps loaded from a snapshot read their logged actions back (outside the mutex).
        let reader: LoggedEventReader
        var lastSnapshotSeq: Int64 = 0
        /// Replay work folded in since the latest snapshot (see ``Ledger/snapshotWork``).
        var workSinceSnapshot = 0
        var snapshotWork = 512 * 1024
        var lastToken: Int64 = 0
        /// Whether the store commits with ``CommitDurability/facts`` (downloader facts) rather than `.full`
        /// (everything else, and how the store opens). Switched only when the next write needs the other.
        var factDurability = false
        /// Whether changes are published (set by the first ``Ledger/latestList``).
        var publishes = false
        /// This process's host name on a shared ledger (``Ledger/hostName``); nil: the machine's.
        var hostName: String?
        /// Whether folds keep the undo history up: false only for a read-only ledger whose history is never shown.
        var keepsUndo = true

        init(
            path: String, isReadOnly: Bool, clock: @escaping @Sendable () -> Int64,
            store: any EventStoreUpkeep,
            reader: LoggedEventReader, list: DownloadList = DownloadList()
        ) {
            self.path = path
            self.isReadOnly = isReadOnly
            self.clock = clock
            self.store = store
            self.reader = reader
            self.list = list
        }

        /// A new ledger in memory: its creation event appended to an in-memory store, nothing on disk yet.
        static func inMemory(
            creating directory: String, path: String, reader: LoggedEventReader,
            clock: @escaping @Sendable () -> Int64
        ) throws -> State {
            var state = State(
                path: path, isReadOnly: false, clock: clock, store: InMemoryEventStore(), reader: reader)
            let creation = Ledger.creation(directory: directory)
            _ = try state.store.append([creation], expectingHead: 0, time: clock())
            state.pendingCreation = creation
            try state.fold()
            return state
        }

        /// The ledger at `path`, whose `store` was opened (``StoreFactory/openIfExists(path:readOnly:)``): its latest
        /// snapshot and the events after it.
        /// Without `keepingUndo` (read-only only), the events after the snapshot are folded without their inverses.
        static func opening(
            _ store: any EventStoreUpkeep, path: String, readOnly: Bool, keepingUndo: Bool = true,
            reader: LoggedEventReader, clock: @escaping @Sendable () -> Int64
        ) throws -> State {
            let (list, tail) = try LedgerLog.startingPointReadingAhead(
                store, atOrBefore: nil, through: nil, reader: reader)
            var state = State(
                path: path, isReadOnly: readOnly, clock: clock, store: store, reader: reader, list: list)
            state.keepsUndo = keepingUndo || !readOnly
            state.lastSnapshotSeq = list.head
            state.lastToken = try store.changeToken()
            try state.fold(tail: tail)
            return state
        }

        /// Sets the store's commit durability for the next writes: `.facts` for downloader facts, `.full`
        /// otherwise.
        mutating func useFactDurability(_ facts: Bool) throws {
            guard facts != factDurability else { return }
            try store.setDurability(facts ? .facts : .full)
            factDurability = facts
        }

        mutating func appendCreation(directory: String) throws {
            try useFactDurability(false)
            do {
                _ = try store.append([Ledger.creation(directory: directory)], expectingHead: 0, time: clock())
            } catch StoreError.conflict {
                // Another process created it first: its creation stands.
            }
            try fold()
        }

        /// Folds events appended after the projection's head (by us or another process).
        /// `tail`: the events after the snapshot the list was read from, read ahead with it.
        @discardableResult
        mutating func fold(tail: TailDecoding? = nil) throws -> Bool {
            let before = list.head
            workSinceSnapshot += try LedgerLog.fold(
                store, into: &list, through: nil, keepingUndo: keepsUndo, tail: tail)
            return list.head != before
        }

        /// Folds in what other processes appended (or follows the file another process created meanwhile).
        /// - Parameter force: read the log even when the change token did not move (a commit was announced
        ///   elsewhere first).
        /// - Returns: whether the list changed.
        mutating func refresh(force: Bool = false) throws -> Bool {
            if pendingCreation != nil {
                guard try Ledger.checkExisting(path) else { return false }
                try openCreatedFile()
                return true
            }
            let token = try store.changeToken()
            guard force || token != lastToken else { return false }
            lastToken = token
            guard try fold() else { return false }
            try saveSnapshotIfDue()
            return true
        }

        /// Saves a snapshot, with its summary, once enough work was folded since the last (or `force`).
        mutating func saveSnapshotIfDue(force: Bool = false) throws {
            guard !isReadOnly, pendingCreation == nil, list.head > lastSnapshotSeq,
                force || workSinceSnapshot >= snapshotWork
            else { return }
            try useFactDurability(false)
            try store.saveSnapshot(
                seq: list.head, reducerVersion: DownloadList.reducerVersion, bytes: list.snapshotBytes(),
                summary: ListSummary(list).encoded())
            lastSnapshotSeq = list.head
            workSinceSnapshot = 0
        }

        /// Reads back the logged events deciding `command` needs (redo's action, held by reference when the list
        /// came from a snapshot), through the store held here: the decision then reads nothing itself.
        func readLoggedEvents(for command: Command, in list: DownloadList) {
            let store = self.store
            list.readLoggedEvents(for: command) { seq in
                guard let event = try? store.linkedEvent(at: seq) else { return nil }
                return (Array(event.kind.utf8), event.payload)
            }
        }
    }
}
