#if canImport(Glibc)
    import Glibc
#endif

/// Copies a whole log from one store into an empty one of any kind (SQLite to PostgreSQL and back): the same
/// seqs, commit times, rows and therefore the same hash chain, and the vault's keys with the first events.
/// Snapshots are a cache and are not copied (the destination's first writer saves one).
public enum EventStoreCopy {
    /// Copies every event of `source` up to its head when the copy starts into `destination`, which must be
    /// empty. Events that committed together at one time are appended together (an append stamps one time).
    /// - Returns: the destination's head.
    /// - Throws: `StoreError.cannotBackUp(destinationName, …)` when the destination already holds events, or when
    ///   its chain does not end on the source's hash; store errors of either side.
    public static func copy(
        from source: any EventStore, to destination: any EventStore, destinationName: String
    )
        throws -> Int64
    {
        guard try destination.head() == 0 else {
            throw StoreError.cannotBackUp(destinationName, "it already holds a ledger")
        }
        let last = try source.head()
        var keys: [VaultKey] = []
        for task in try source.vaultTasks() {
            if let key = try source.vaultKey(task: task) { keys.append(key) }
        }
        var head: Int64 = 0
        var group: [NewEvent] = []
        var groupTime: Int64 = 0
        func flush() throws {
            guard !group.isEmpty else { return }
            let vault = head == 0 ? VaultChange(added: keys) : .none
            head = try destination.append(group, expectingHead: head, time: groupTime, vault: vault)
            group.removeAll(keepingCapacity: true)
        }
        var after: Int64 = 0
        while after < last {
            let page = try source.events(after: after, through: last, limit: 10_000)
            guard !page.isEmpty else { break }
            for event in page {
                if event.time != groupTime || group.count >= 10_000 { try flush() }
                groupTime = event.time
                group.append(
                    NewEvent(
                        kind: event.kind, version: event.version, tasks: event.tasks, payload: event.payload))
            }
            after = page.last!.seq
        }
        try flush()
        let expected = try source.events(after: last - 1, through: last, limit: 1).last?.hash ?? []
        let copied = try destination.verifyChain()
        guard copied.isValid, copied.head == last, copied.headHash == expected || last == 0 else {
            throw StoreError.cannotBackUp(
                destinationName, "the copy's chain does not end on the ledger's (\(copied))")
        }
        return head
    }

    /// A backup of `source` at `destination`: a `postgresql://` URI whose ledger does not exist yet, or a new SQLite
    /// file, written under a temporary name, synced, and linked into place (never over anything that is there).
    /// - Returns: the copy's head.
    /// - Throws: `StoreError.cannotBackUp` (something is there, the folder is missing, the copy failed).
    public static func backup(from source: any EventStore, to destination: String) throws -> Int64 {
        let shown = EventStoreLocation.shown(destination)
        if PostgresLocation.isPostgres(destination) {
            guard !(try EventStoreLocation.postgresLedgerExists(destination)) else {
                throw StoreError.cannotBackUp(shown, "that database already has this ledger")
            }
            return try copy(from: source, to: PostgresEventStore(uri: destination), destinationName: shown)
        }
        // The reasons a SQLite ledger's backup gives (SQLiteEventStore.backup), in the same words.
        var info = stat()
        if lstat(destination, &info) == 0 {
            throw StoreError.cannotBackUp(destination, "it exists (a backup never overwrites a file)")
        }
        let slash = destination.lastIndex(of: "/")
        let folder = slash.map { String(destination[..<$0]) } ?? "."
        let absent = errno
        guard absent == ENOENT || absent == ENOTDIR else {
            throw StoreError.cannotBackUp(destination, String(cString: strerror(absent)))
        }
        guard absent == ENOENT, stat(folder.isEmpty ? "/" : folder, &info) == 0 else {
            throw StoreError.cannotBackUp(destination, "no such folder")
        }
        let temporary = destination + ".partial-\(getpid())-\(UInt32.random(in: 0...UInt32.max))"
        defer {
            for suffix in ["", "-wal", "-shm", "-journal"] { unlink(temporary + suffix) }
        }
        let head: Int64
        do {
            // Written in place without syncs and closed (in rollback-journal mode) before the sync below.
            head = try copy(
                from: source, to: try SQLiteEventStore(path: temporary, synchronous: .off),
                destinationName: destination)
        } catch StoreError.cannotOpen(_, let reason) {
            throw StoreError.cannotBackUp(destination, reason)
        } catch StoreError.io(temporary, let reason) {
            // A full disk: named by the backup's name, not the temporary file's.
            throw StoreError.cannotBackUp(destination, reason)
        }
        let fd = open(temporary, O_RDONLY | O_CLOEXEC | O_NOFOLLOW)
        guard fd >= 0, fsync(fd) == 0 else {
            if fd >= 0 { close(fd) }
            throw StoreError.cannotBackUp(destination, String(cString: strerror(errno)))
        }
        close(fd)
        guard link(temporary, destination) == 0 else {
            let reason =
                errno == EEXIST
                ? "it exists (a backup never overwrites a file)" : String(cString: strerror(errno))
            throw StoreError.cannotBackUp(destination, reason)
        }
        let folderFD = open(folder.isEmpty ? "/" : folder, O_RDONLY | O_DIRECTORY | O_CLOEXEC)
        if folderFD >= 0 {
            fsync(folderFD)
            close(folderFD)
        }
        return head
    }
}
