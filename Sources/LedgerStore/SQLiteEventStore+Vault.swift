import LedgerCore

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// The vault: one AES-256 key per task with credentials, in `vault_keys`, outside the append-only log
/// (docs/store.md). Keys are written and deleted only inside an append's transaction (``VaultChange``).
extension SQLiteEventStore {
    public func vaultKey(task: Int64) throws -> VaultKey? {
        guard hasVault else { return nil }
        return try translatingErrors {
            let statement = try db.cachedStatement("SELECT key FROM vault_keys WHERE task = ?")
            defer { statement.reset() }
            try statement.bind(task, at: 1)
            guard try statement.step() else { return nil }
            guard let key = VaultKey(task: task, stored: statement.bytes(at: 0)) else {
                throw VaultError.malformed("the vault key of task #\(task) is not 32 bytes")
            }
            return key
        }
    }

    public func vaultTasks() throws -> [Int64] {
        guard hasVault else { return [] }
        return try translatingErrors {
            let statement = try db.cachedStatement("SELECT task FROM vault_keys ORDER BY task")
            defer { statement.reset() }
            var tasks: [Int64] = []
            while try statement.step() { tasks.append(statement.int64(at: 0)) }
            return tasks
        }
    }

    /// Stores and deletes keys as `vault` says. Caller is inside the append's transaction.
    func change(_ vault: VaultChange, time: Int64) throws {
        if !vault.removed.isEmpty {
            let delete = try db.cachedStatement("DELETE FROM vault_keys WHERE task = ?")
            for task in vault.removed {
                try delete.bind(task, at: 1)
                try delete.run()
            }
        }
        guard !vault.added.isEmpty else { return }
        // A task has one key: a second one would make the first task's values unopenable. The head check before
        // this makes a clash a bug (keys are only written with their task's events), so it fails the append.
        let insert = try db.cachedStatement(
            "INSERT INTO vault_keys(task, key, created_at) VALUES (?, ?, ?)")
        for key in vault.added {
            try insert.bind(key.task, at: 1)
            try key.bytes.withUnsafeBytes { try insert.bindBlob($0, at: 2) }
            try insert.bind(time, at: 3)
            try insert.run()
        }
    }

    /// Takes group and other permissions off a ledger (and its `-wal` and `-shm`) that holds vault keys: whoever
    /// reads the file can open its credentials. Best effort: a file this user does not own keeps its mode.
    static func restrictToOwner(_ path: String) {
        for file in [path, path + "-wal", path + "-shm"] {
            var info = stat()
            guard stat(file, &info) == 0, info.st_mode & 0o077 != 0 else { continue }
            chmod(file, info.st_mode & 0o7700)
        }
    }
}
