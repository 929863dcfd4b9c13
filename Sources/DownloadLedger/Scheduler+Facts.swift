import Foundation
import LedgerCore
import LedgerTransfer

/// Engine events become ledger facts: gathered, then appended in one transaction.
extension Scheduler {
    /// Turns the engine events received so far into ledger facts, appended in one transaction, then frees the
    /// ids of the transfers that ended. Unless `force`, waits while only `.started` / `.resolved` facts younger
    /// than `factDelay` are pending.
    func flush(force: Bool, folders: FolderMemo = FolderMemo()) {
        let events = mailbox.takeDueEvents(force: force)
        // Hooks' facts, which no engine event stands for, are recorded at once.
        let handed = mailbox.takeFacts()
        // Facts that wait for the database are tried again on every pass.
        guard !events.isEmpty || !handed.isEmpty || backlog.count > 0 else { return }
        var facts: [Event] = []
        var ended: [TaskID] = []
        // Each download folder is opened once for the whole batch (`folders`): the placed files' identities, then
        // the removal of their partials, mostly in one folder (instead of its three folders opened twice per file).
        for event in events {
            if let fact = fact(for: event, folders: folders) { facts.append(fact) }
            if event.isTerminal { ended.append(event.id) }
        }
        facts += handed
        // Recorded, or kept in order while the database is out of reach (`Scheduler+Outage.swift`); once recorded,
        // their hooks start and the completed partials (second links to the placed files) go.
        recordFacts(facts, folders: folders)
        for id in ended { finish(id) }
    }

    /// The fact an engine event stands for, if any; `folders` opens the download folders it looks into.
    func fact(for event: TransferEvent, folders: FolderMemo) -> Event? {
        switch event {
        case .started(let id, let attempt, let offset):
            guard mailbox.stopReason(id) == nil else { return nil }
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
                placed: placedIdentity(id: id, name: name, folders: folders),
                // A SQLite ledger has one downloader: its facts name no host, and its views stay as they were.
                host: shared ? host : nil, directory: folder)
        case .failed(let id, let reason, let retryable, let bytes):
            let failure = TaskFailure(code: reason.code, detail: reason.detail, retryable: retryable)
            return .transferFailed(id: id, failure: failure, bytes: bytes)
        case .stopped(let id, let bytes):
            return mailbox.stopReason(id) == .reset ? nil : .transferPaused(id: id, bytes: bytes)
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
        mailbox.noteFailure(error)
    }

    /// Forgets the transfer of `id`: it ended.
    func finish(_ id: TaskID) {
        mailbox.end(id)?.discard()
    }

    /// A user who renamed the task while it downloaded gets that name, if free; else the engine's name stands.
    private func placeUserName(id: TaskID, fileName: String) -> String {
        guard let t = ledger.list.tasks[id], t.nameIsUserChosen, t.displayName != fileName,
            let folder = try? FileOwnership.lockedFolder(self.folder ?? t.directory)
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
    private func placedIdentity(id: TaskID, name: String, folders: FolderMemo) -> FileIdentity? {
        guard let t = ledger.list.tasks[id],
            let folder = folders.folder(self.folder ?? t.directory),
            let info = folder.partialStatus(id: id) ?? folder.status(of: name)
        else { return nil }
        return FileOwnership.identity(info)
    }
}
