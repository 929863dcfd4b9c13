import LedgerCore
import LedgerStore

/// Credentials (an `Authorization`, `Proxy-Authorization` or `Cookie` header, the `user:password` of a proxy, of
/// a referer or of the task's URL) are sealed here, between the pure decision and the append: the event that
/// reaches the log holds only the sealed form (``SealedSecret``, under the task's key in the vault), and the key
/// goes in with it in one transaction. A purge deletes the keys of the tasks it forgets, in the purge's own
/// transaction. Only the downloader opens them (``openCredential(_:task:context:)`` is internal: no front end
/// can).
extension Ledger {
    /// Where a credential is used, bound into its seal: a value copied to another header does not open.
    enum CredentialPlace {
        static func header(_ name: String) -> String { "header:" + name.lowercased() }
        static let proxy = "proxy"
        /// The user information of the referer URL.
        static let referer = "referer"
        /// The login of the task's own URL.
        static let url = "url"
    }

    /// Replaces every credential given in clear in `event` with its sealed form under `key(task)`.
    static func seal(_ event: inout Event, key: (TaskID) throws -> VaultKey) throws {
        switch event {
        case .tasksAdded(var tasks, let section, let index, let title):
            guard tasks.contains(where: { $0.options.hasPlainCredentials }) else { return }
            for n in tasks.indices {
                tasks[n].options = try Self.seal(tasks[n].options, key: try key(tasks[n].id))
            }
            event = .tasksAdded(tasks: tasks, section: section, index: index, newSectionTitle: title)
        case .groupsAdded(var groups):
            guard groups.contains(where: { $0.tasks.contains { $0.options.hasPlainCredentials } }) else {
                return
            }
            for g in groups.indices {
                for n in groups[g].tasks.indices {
                    let task = groups[g].tasks[n]
                    groups[g].tasks[n].options = try Self.seal(task.options, key: try key(task.id))
                }
            }
            event = .groupsAdded(groups)
        case .taskOptionsChanged(let id, let options) where options.hasPlainCredentials:
            event = .taskOptionsChanged(id: id, options: try Self.seal(options, key: try key(id)))
        default:
            return
        }
    }

    private static func seal(_ options: TaskOptions, key: @autoclosure () throws -> VaultKey) throws
        -> TaskOptions
    {
        guard options.hasPlainCredentials else { return options }
        let key = try key()
        var sealed = options
        for n in sealed.headers.indices where sealed.headers[n].isCredential {
            guard case .plain(let text) = sealed.headers[n].value else { continue }
            let secret = try key.seal(
                Array(text.utf8), context: CredentialPlace.header(sealed.headers[n].name))
            sealed.headers[n].value = .sealed(SealedValue(secret))
        }
        if case .plain(let text)? = sealed.proxyUserinfo {
            sealed.proxyUserinfo = .sealed(
                SealedValue(try key.seal(Array(text.utf8), context: CredentialPlace.proxy)))
        }
        if case .plain(let text)? = sealed.refererUserinfo {
            sealed.refererUserinfo = .sealed(
                SealedValue(try key.seal(Array(text.utf8), context: CredentialPlace.referer)))
        }
        if case .plain(let text)? = sealed.userinfo {
            sealed.userinfo = .sealed(
                SealedValue(try key.seal(Array(text.utf8), context: CredentialPlace.url)))
        }
        return sealed
    }

    /// Opens a credential of task `task` for the downloader's request. Never for an output.
    /// - Throws: `VaultError.purged` when its key is gone, `.failedToOpen` when it was altered, `.malformed`
    ///   when it is not the vault's text or was sealed for another task.
    func openCredential(_ value: SealedValue, task: TaskID, context: String) throws -> String {
        guard let sealed = SealedSecret(value) else {
            throw VaultError.malformed("task #\(task)'s credential is not a sealed value the vault wrote")
        }
        guard sealed.keyTask == task else {
            throw VaultError.malformed("task #\(task)'s credential was sealed for task #\(sealed.keyTask)")
        }
        let bytes = try core.withLock { try $0.store.openSecret(sealed, context: context) }
        guard let text = String(validating: bytes, as: UTF8.self) else {
            throw VaultError.malformed("task #\(task)'s credential is not UTF-8")
        }
        return text
    }
}

extension Ledger.State {
    /// Seals the credentials of `entries` in place and says what the append does to the vault: the new keys, and
    /// the keys a purge or an erase leaves without a task (`after` is the list once the entries are applied, nil
    /// when they purge nothing).
    func sealCredentials(in entries: inout [Entry], after: () -> DownloadList) throws -> VaultChange {
        var pending: [TaskID: VaultKey] = [:]
        var change = VaultChange()
        var purges = false
        for index in entries.indices {
            switch entries[index].event {
            case .trashPurged, .tasksErased: purges = true
            default: break
            }
            try Ledger.seal(&entries[index].event) { task in
                if let key = pending[task] { return key }
                let key =
                    try store.vaultKey(task: task)
                    ?? {
                        let fresh = try VaultKey.random(task: task)
                        change.added.append(fresh)
                        return fresh
                    }()
                pending[task] = key
                return key
            }
        }
        if purges { change.removed = try keysLeftBehind(in: after(), adding: change.added) }
        return change
    }

    /// The tasks whose vault keys nothing in `list` can use again: the task is gone and no undo or redo step
    /// names it (an add undone keeps its key while redo can bring the task back).
    private func keysLeftBehind(in list: DownloadList, adding added: [VaultKey]) throws -> [TaskID] {
        let stored = try store.vaultTasks()
        guard !stored.isEmpty else { return [] }
        var reachable: Set<TaskID> = []
        // A blocker (the purge's own step) can never be taken: it brings nothing back.
        for step in list.undoStack + list.redoStack where step.blocker == nil {
            reachable.formUnion(step.tasksNamed)
        }
        let fresh = Set(added.map(\.task))
        return stored.filter { !list.tasks.contains($0) && !reachable.contains($0) && !fresh.contains($0) }
    }

    /// After a purge deleted keys: folds the write-ahead log into the file and empties it, when no other
    /// connection still reads it, so the pages that held the keys (zeroed in the file by `secure_delete`) are not
    /// kept in older log frames either. Best effort: otherwise the next checkpoint does it.
    func forgetDeletedKeys() {
        store.checkpoint()
    }
}

extension SealedValue {
    /// The vault's text form of `secret`.
    public init(_ secret: SealedSecret) { self.init(ciphertext: secret.text) }
}

extension SealedSecret {
    /// The sealed value a payload holds, parsed; nil when it is not the vault's text form.
    public init?(_ value: SealedValue) { self.init(text: value.ciphertext) }
}
