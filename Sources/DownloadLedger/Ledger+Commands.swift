import Foundation

/// The write side's entries: a user command, a batch of them, downloader facts. Each runs under the mutex, folds
/// what other processes appended, decides on the list it then has, and appends; a conflict (another process got
/// there first) decides again on the new list.
extension Ledger {
    /// Validates `command` against the current list and appends its event.
    ///
    /// When another process appended meanwhile, the command is validated again on the new list and retried, so
    /// concurrent writers lose nothing and never produce an invalid list. `origin` names the front end the user
    /// acted through (`"rpc"`), logged with the event.
    /// - Throws: `LedgerError` or `NothingAdded` for an invalid command (nothing appended); `StoreError`.
    @discardableResult
    public func execute(_ given: Command, origin: String? = nil) throws -> Outcome {
        let command = try Self.acceptingDirectory(of: given)
        return try core.withLock { state in
            guard !state.isReadOnly else { throw StoreError.readOnly }
            // Renames of finished files take turns per directory (a lock on its `.dledger`), so that processes
            // renaming one task at once never leave a second name behind: each sees the name the last one logged.
            let renameLock = try state.lockForRename(command)
            defer { renameLock?.unlock() }
            let outcome = try state.execute(command, origin: origin)
            notify(state)
            return outcome
        }
    }

    /// Validates `commands` one after the other, each against the list the ones before it leave, and appends all
    /// their events in one transaction, or none (`undo 3` undoes three actions or nothing). `origin` as for
    /// ``execute(_:origin:)``, logged with each event.
    /// - Throws: ``BatchRefused`` naming how many could be done and why the next could not; `StoreError`.
    @discardableResult
    public func execute(all given: [Command], origin: String? = nil) throws -> [Outcome] {
        let commands = try given.map(Self.acceptingDirectory)
        return try core.withLock { state in
            guard !state.isReadOnly else { throw StoreError.readOnly }
            let outcomes = try state.execute(all: commands, origin: origin)
            notify(state)
            return outcomes
        }
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
    /// Facts are committed with ``CommitDurability/facts`` (SQLite's `synchronous=NORMAL`): in WAL mode they
    /// survive a crash or `kill -9` of the process but may be lost with the last moments before a power cut — the
    /// partial files, not the facts, are the truth for resuming. User commands stay fully durable.
    /// - Returns: the seq of the last fact appended, or nil when all were dropped.
    @discardableResult
    public func record(_ facts: [Event]) throws -> Int64? {
        precondition(facts.allSatisfy(\.isTransferFact), "only downloader facts are recorded")
        return try core.withLock { state in
            guard !state.isReadOnly else { throw StoreError.readOnly }
            guard let seq = try state.record(facts) else { return nil }
            notify(state)
            return seq
        }
    }

    /// Saves a snapshot when the events folded since the last one are a tenth of the way to the next: what a
    /// writer does on opening, done by the command that made the tail, so that readers after it (`stats`, `ls`)
    /// start from a snapshot at the head. A no-op for a read-only ledger or a short tail.
    public func saveSnapshotIfTailIsLong() throws {
        try core.withLock { state in
            try state.saveSnapshotIfDue(force: state.workSinceSnapshot >= state.snapshotWork / 10)
        }
    }
}

extension Ledger.State {
    /// ``Ledger/execute(_:origin:)`` with the mutex held.
    mutating func execute(_ command: Command, origin: String?) throws -> Outcome {
        while true {
            try fold()
            readLoggedEvents(for: command, in: list)
            var decision = try list.decide(command)
            try refuseFilesElsewhere(decision.entry.event, in: list)
            decision.entry.origin = origin
            let decided = decision.entry
            var sealed = [decided]
            let now = clock()
            let vault = try sealCredentials(in: &sealed) { [list] in
                var after = list
                after.apply(LoggedEntry(seq: list.head + 1, time: now, entry: decided))
                return after
            }
            decision.entry = sealed[0]
            let undoRename = try prepareFiles(for: &decision.entry, in: list)
            // The list before the event, kept only when its files are cleaned up after it (a copy of a list of a
            // million tasks is not made for nothing).
            let before = Ledger.cleansFiles(decision.entry.event) ? list : nil
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
            // The token before the fold: a commit after it moves the token again, so a refresh folds it in.
            lastToken = (try? store.changeToken()) ?? lastToken
            try fold()
            if !vault.removed.isEmpty { forgetDeletedKeys() }
            if let before { cleanUpFiles(after: decision.entry.event, before: before) }
            try saveSnapshotIfDue()
            return Outcome(seq: appended.last, time: appended.time, entry: decision.entry, decision: decision)
        }
    }

    /// ``Ledger/execute(all:origin:)`` with the mutex held.
    mutating func execute(all commands: [Command], origin: String?) throws -> [Outcome] {
        while true {
            try fold()
            let now = clock()
            let decided = try decide(commands, origin: origin, now: now)
            var decisions = decided.decisions
            let undoRenames = decided.undoRenames
            let takeBack = { for undo in undoRenames.reversed() { undo() } }
            var entries = decisions.map(\.entry)
            let vault: VaultChange
            do {
                vault = try sealCredentials(in: &entries) { decided.trial }
            } catch {
                takeBack()
                throw error
            }
            for n in decisions.indices { decisions[n].entry = entries[n] }
            let before = list
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
            // The token before the fold: a commit after it moves the token again, so a refresh folds it in.
            lastToken = (try? store.changeToken()) ?? lastToken
            try fold()
            if !vault.removed.isEmpty { forgetDeletedKeys() }
            let first = appended.last - Int64(decisions.count) + 1
            var cleaning = before
            for (n, decision) in decisions.enumerated() {
                cleanUpFiles(after: decision.entry.event, before: cleaning)
                cleaning.apply(LoggedEntry(seq: first + Int64(n), time: appended.time, entry: decision.entry))
            }
            try saveSnapshotIfDue()
            return decisions.enumerated().map { n, decision in
                Outcome(seq: first + Int64(n), time: appended.time, entry: decision.entry, decision: decision)
            }
        }
    }

    /// Decides `commands` one after the other on a trial copy of the list, preparing their files.
    /// - Returns: the decisions, how to take back their renames, and the trial list after all of them.
    /// - Throws: ``BatchRefused`` (every rename taken back).
    private func decide(_ commands: [Command], origin: String?, now: Int64) throws -> (
        decisions: [Decision], undoRenames: [() -> Void], trial: DownloadList
    ) {
        var trial = list
        var decisions: [Decision] = []
        var undoRenames: [() -> Void] = []
        for (n, command) in commands.enumerated() {
            do {
                readLoggedEvents(for: command, in: trial)
                var decision = try trial.decide(command)
                try refuseFilesElsewhere(decision.entry.event, in: trial)
                decision.entry.origin = origin
                if let undo = try prepareFiles(for: &decision.entry, in: trial) {
                    undoRenames.append(undo)
                }
                decisions.append(decision)
                trial.apply(LoggedEntry(seq: trial.head + 1, time: now, entry: decision.entry))
            } catch {
                for undo in undoRenames.reversed() { undo() }
                throw BatchRefused(done: n, of: commands.count, error: error)
            }
        }
        return (decisions, undoRenames, trial)
    }

    /// ``Ledger/record(_:)`` with the mutex held.
    mutating func record(_ facts: [Event]) throws -> Int64? {
        while true {
            try fold()
            let known = facts.filter { $0.taskIDs.allSatisfy { list.tasks[$0] != nil } }
            guard !known.isEmpty else { return nil }
            // Stays `.facts` until a write that needs `.full` switches back: two PRAGMAs less per batch of facts.
            try useFactDurability(true)
            do {
                let seq = try store.append(
                    known.map { Ledger.newEvent(Entry($0)) }, expectingHead: list.head, time: clock())
                lastToken = (try? store.changeToken()) ?? lastToken
                try fold()
                try saveSnapshotIfDue()
                return seq
            } catch StoreError.conflict {
                continue
            }
        }
    }

    /// The locked folder of the task a rename names, when that task has a file on disk.
    mutating func lockForRename(_ command: Command) throws -> DownloadFolder? {
        guard case .rename(let id, _) = command else { return nil }
        try fold()
        guard let task = list.tasks[id], task.fileName != nil else { return nil }
        return try FileOwnership.lockedFolder(task.directory)
    }
}
