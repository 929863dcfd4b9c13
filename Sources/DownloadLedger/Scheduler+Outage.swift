import Foundation
import LedgerCore
import LedgerStore

/// A run whose ledger's database goes away (a PostgreSQL server that restarts or cannot be reached): the transfers
/// go on (their bytes are local), their facts wait in memory (``FactBacklog``), in order, and are appended first
/// once the store reconnects (its ``ReconnectBackoff``); the run lock, whose session died with the connection, is
/// taken again before. No new transfer starts meanwhile: the list the scheduler holds no longer says what the log
/// says (a transfer that ended is still downloading there).
extension Scheduler {
    /// How many facts may wait in memory while the database is out of reach (default 10,000). At the limit no
    /// transfer runs: those running are stopped (one more fact each, kept too) and start again after the outage.
    public var outageFactLimit: Int {
        get { backlog.limit }
        set { backlog.limit = newValue }
    }

    /// How long the end of a run keeps trying to append facts that still wait, before it gives up
    /// (``OutageError/factsNotRecorded(count:reason:)``).
    static let finalTries: Duration = .seconds(10)

    /// What a status line shows while the database is out of reach; nil while it answers.
    public var outageStatus: OutageStatus? {
        guard let status = backlog.status else { return nil }
        return OutageStatus(
            waitingFacts: status.waiting, reason: status.reason, since: status.since,
            nextTry: ledger.storeOutage?.nextTry)
    }

    /// Appends the facts that wait, then `new`, in one transaction, in order; while the database is out of reach
    /// they all wait. After the outage, facts an append whose answer was lost did commit are not appended twice.
    func recordFacts(_ new: [Event], folders: FolderMemo = FolderMemo()) {
        var facts = backlog.adding(new)
        guard !facts.isEmpty else { return }
        if backlog.isInOutage { guard resumeAfterOutage() else { return } }
        let head = ledger.list.head
        do {
            if let before = backlog.headBefore {
                let logged = try ledger.loggedPrefix(of: facts, after: before)
                if logged > 0 {
                    backlog.recorded(logged)
                    afterRecording(facts[..<logged], folders: folders)
                    facts.removeFirst(logged)
                }
            }
            if !facts.isEmpty {
                mailbox.appended(facts.count, endingAt: try ledger.record(facts))
                backlog.recorded(facts.count)
                afterRecording(facts[...], folders: folders)
            }
            // The list holds what happened meanwhile now: match it again.
            if backlog.endOutage() { mailbox.matchAgain() }
        } catch let error where StoreError.isConnectionLoss(error) {
            enterOutage(error, headBefore: head)
        } catch {
            mailbox.noteFailure(error)
        }
    }

    /// What follows the record of `facts`: their hooks, and the removal of the partials of completed transfers
    /// (second links to the placed files until then).
    private func afterRecording(_ facts: ArraySlice<Event>, folders: FolderMemo) {
        let list = ledger.list
        for fact in facts {
            startHook(after: fact)
            if case .transferCompleted(let id, _, _, _, _, _, _) = fact, let t = list.tasks[id] {
                folders.folder(t.directory)?.removePartial(id: t.id)
            }
        }
    }

    /// Notes that the database is out of reach (`error`), and asks the loop to try again in a tick (the store
    /// decides whether a try is due). At the backlog's limit, stops every running transfer.
    func enterOutage(_ error: any Error, headBefore: Int64?) {
        let reason = (error as? StoreError).map { Self.reason($0) } ?? "\(error)"
        backlog.failed(reason: reason, headBefore: headBefore)
        // No transfer starts on its own while the facts cannot be recorded.
        discardStandby()
        mailbox.armRetry.yield()
        if backlog.isFull {
            for id in mailbox.stopAllForShutdown() { engine.cancel(id: id) }
        }
    }

    /// libpq's reason in a store error, without the URI the status line does not need.
    private static func reason(_ error: StoreError) -> String {
        switch error {
        case .cannotConnect(_, let reason): reason
        case .server(_, _, let message): message
        default: error.description
        }
    }

    /// Whether the loop must not match the list now: the database was out of reach and has not answered since.
    /// With no fact waiting, tries it (facts that wait are tried by ``recordFacts(_:)``).
    func holdsBackForOutage() -> Bool {
        guard backlog.isInOutage else { return false }
        guard backlog.count == 0 else { return true }
        guard resumeAfterOutage() else { return true }
        backlog.endOutage()
        mailbox.reopenStandby()
        return false
    }

    /// Tries the database again: the store reconnects (when its backoff allows) and the list folds what others
    /// appended meanwhile; then the run lock is taken again. A lock another downloader took meanwhile ends the run
    /// (``OutageError/lockTaken(pid:lockPath:)``), after the facts that wait are appended: they are what happened.
    /// - Returns: whether the database answers.
    private func resumeAfterOutage() -> Bool {
        do {
            try ledger.refresh()
            if let lost = try runLockLost() {
                mailbox.noteFailure(lost)
            }
            return true
        } catch let error where StoreError.isConnectionLoss(error) {
            enterOutage(error, headBefore: nil)
            return false
        } catch {
            mailbox.noteFailure(error)
            return false
        }
    }

    /// Watches the run lock's session every `interval` until cancelled: a server that restarted ended it, even when
    /// no fact had to be written then; the run then treats it as an outage (no new transfer) until the store has
    /// reconnected and the lock is taken again (or found taken by another downloader).
    func watchRunLock(every interval: Duration) async {
        while !Task.isCancelled {
            try? await Task.sleep(for: interval)
            guard !backlog.isInOutage, runLock.withLock({ $0?.isSessionLost ?? false }) else { continue }
            enterOutage(
                StoreError.cannotConnect(
                    ledger.path, "the run lock's session was lost (a restart, or a silent network)"),
                headBefore: nil)
            mailbox.wakeUp.yield()
        }
    }

    /// The board this run publishes its activity on: the file beside a SQLite ledger; on a PostgreSQL ledger this
    /// host's row, naming the session that holds the run lock (a URI that does not parse has no board to share).
    func publishingBoard() -> any ActivityBoard {
        guard PostgresLocation.isPostgres(ledger.path),
            let board = try? PostgresActivityBoard(
                ledger: ledger, publishingAs: host,
                lockSession: { [self] in runLock.withLock { $0?.sessionPid } })
        else { return ledger.activityBoard }
        return board
    }

    /// Takes the run lock for `run`.
    /// - Throws: `LedgerOpenError.runnerActive` when another process holds it; `StoreError`.
    func takeRunLock() throws {
        let path = ledger.path
        try runLock.withLock { $0 = try RunLock(ledgerPath: path, host: host) }
    }

    /// Gives the run lock back.
    func releaseRunLock() {
        runLock.withLock { lock in
            lock?.release()
            lock = nil
        }
    }

    /// The error that ends the run when another downloader holds the lock now; nil while this run holds it (taken
    /// again when its session was lost).
    /// - Throws: `StoreError.cannotConnect` while the server cannot be reached.
    private func runLockLost() throws -> OutageError? {
        let name: String? = try runLock.withLock { lock in
            guard let lock, try !lock.ensureHeld() else { return nil }
            return lock.path
        }
        guard let name else { return nil }
        // The lock is this host name's: its holder is asked under that name, not the machine's.
        return .lockTaken(pid: RunLock.holder(ledgerPath: ledger.path, host: host), lockPath: name)
    }

    /// At the end of a run, facts that still wait are tried for a while (``finalTries``).
    /// - Throws: ``OutageError/factsNotRecorded(count:reason:)`` when some still wait then.
    func recordBacklogBeforeExit() async throws {
        let deadline = ContinuousClock.now + Self.finalTries
        while backlog.count > 0 && ContinuousClock.now < deadline && mailbox.failure == nil {
            recordFacts([])
            if backlog.count > 0 { try? await Task.sleep(for: .milliseconds(100)) }
        }
        if let status = backlog.status, status.waiting > 0, mailbox.failure == nil {
            throw OutageError.factsNotRecorded(count: status.waiting, reason: status.reason)
        }
    }
}
