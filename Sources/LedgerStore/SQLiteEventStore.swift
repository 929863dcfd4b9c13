import CSQLite

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// The event store in one SQLite file (WAL mode while a writer has it open, rollback-journal mode once the last
/// writer leaves it quiet), readable with the sqlite3 shell alone.
///
/// ```swift
/// let store = try SQLiteEventStore(path: "/var/lib/dl/ledger.sqlite")
/// let head = try store.append([event], expectingHead: try store.head(), time: now)
/// let copy = try SQLiteEventStore(path: "/mnt/backup/ledger.sqlite", readOnly: true)  // never writes
/// ```
///
/// One instance is one connection: use it from one thread at a time, and open one per thread or process.
public final class SQLiteEventStore: EventStoreUpkeep {
    /// How hard each commit pushes to disk.
    public enum Synchronous: String, Sendable {
        /// fsync on every commit: an acknowledged append survives power loss (the default).
        case full = "FULL"
        /// fsync at checkpoints only: an append survives a process crash but maybe not power loss.
        case normal = "NORMAL"
        /// Nothing synced, and no log: the pages are written in place, their rollback journal kept in memory and
        /// the file's lock held until the store goes. Only for a file that no one sees until its writer has closed
        /// and synced it (a new ledger, or a backup, written under a temporary name), which is then left in
        /// rollback-journal mode (quiet).
        case off = "OFF"
    }

    /// The file this store was opened on.
    public let path: String
    /// Whether the store was opened with `readOnly: true`.
    public let isReadOnly: Bool
    let db: Database
    let hasSnapshotsTable: Bool
    /// The folder of a private copy read in place of `path` (see `openReadOnly`), removed with the store.
    let privateCopy: String?
    /// Whether snapshots carry their seal (schema 3 on): without it none is loaded.
    let hasSealedSnapshots: Bool
    /// Whether snapshots may carry a summary (schema 5 on).
    let hasSnapshotSummaries: Bool
    /// Whether the file has the vault (schema 4 on): without it no credential can be sealed or opened.
    let hasVault: Bool
    /// Whether the file has the add index (schema 6 on): without it every add is read whole.
    let hasAddIndex: Bool
    let hasher = ChainHasher()
    /// (task, seq) pairs of the append in progress, reused.
    var links: [Int64] = []
    /// Whether commits are synced at checkpoints only (`synchronous=NORMAL`): each then starts the writeback of
    /// the log (``startLogWriteback()``).
    var commitsSyncAtCheckpoint = false
    /// The `-wal` opened read-only for ``startLogWriteback()``, -1 until a commit asked for it.
    var logDescriptor: Int32 = -1
    /// The log's size when it was last handed to the kernel's writeback, and the commits since.
    var logHandedOver: (size: Int64, commitsSince: Int) = (0, 0)

    /// The DownloadLedger `PRAGMA application_id` ("DLGR").
    public static let applicationID: Int64 = 0x444C_4752

    /// Opens the ledger at `path`, creating and migrating it as needed.
    ///
    /// With `readOnly: true` the file is never written, nor created, nor migrated. A file in rollback-journal mode
    /// (a quiet ledger) is opened `mode=ro`: shared locks only, which work in a read-only folder, and a writer
    /// that starts meanwhile waits for each read to end. A WAL file with no `-wal` beside it (a copy of a live
    /// ledger) is opened `immutable=1` (no locks, no `-shm`; works on read-only media, but a writer that starts
    /// meanwhile is not seen); one with a `-wal` `mode=ro` (sees committed writes; needs to create `-shm`, and when
    /// it cannot — a read-only folder — the file and its `-wal` are read from a private copy).
    /// A file that was there before (even an empty one) is taken only if it is a DownloadLedger ledger: anything
    /// else is refused with `.notALedger` and left as it was.
    /// - Parameters:
    ///   - busyTimeout: milliseconds to wait for another writer before `StoreError.locked`.
    ///   - existing: the file must be there: it is never created (`.cannotOpen` when it is missing).
    /// - Throws: `StoreError` (`.notALedger`, `.corrupt`, `.locked`, `.newerSchema`, `.cannotOpen`…).
    public init(
        path: String, readOnly: Bool = false, busyTimeout: Int32 = 5000, synchronous: Synchronous = .full,
        existing: Bool = false
    ) throws {
        self.path = path
        self.isReadOnly = readOnly
        var existed = true
        do {
            if readOnly {
                (db, privateCopy) = try Self.openReadOnly(path, busyTimeout: busyTimeout)
            } else {
                privateCopy = nil
                existed = FileCheck.exists(path)
                db = try Database(
                    location: Database.uri(path: path), create: !existing, busyTimeout: busyTimeout)
            }
            try Self.checkIdentity(db, path: path, mayInitialize: !readOnly && !existed)
            if readOnly {
                let found = try Migration.currentVersion(of: db)
                if found > Migration.latestVersion {
                    throw StoreError.newerSchema(found: found, supported: Migration.latestVersion)
                }
            } else {
                // Only takes effect on a new file: 16 KiB pages halve the WAL frames a bulk append writes.
                try db.execute("PRAGMA page_size = 16384")
                if synchronous == .off {
                    // A file no one else opens: no `-wal` and `-shm` to create, fill, fold, truncate and delete (the
                    // truncation trims the freed blocks on a file system mounted with `discard`), no lock taken
                    // and given back around each statement.
                    try db.execute("PRAGMA locking_mode = EXCLUSIVE; PRAGMA journal_mode = MEMORY")
                } else {
                    // A quiet ledger is in rollback-journal mode (`leaveQuiet`): a writer works in WAL, so that
                    // readers and the downloader never wait for each other.
                    try Self.enterWAL(db, path: path, syncing: true)
                }
                // The migrations commit without waiting for the disk: each step is atomic (a crash leaves an older
                // schema, which the next open migrates), and the first append with `synchronous` FULL syncs the log
                // they were written to. A new ledger then costs one fsync for its schema instead of ten (none with
                // `.off`, whose caller syncs the file).
                // Deleted rows (a purged task's vault key) are overwritten with zeros, not left in free space.
                let early = synchronous == .off ? "OFF" : "NORMAL"
                try db.execute("PRAGMA synchronous = \(early)")
                try db.execute("PRAGMA secure_delete = ON")
                try Migration.migrate(db)
                try db.execute("PRAGMA synchronous = \(synchronous.rawValue)")
            }
            hasSnapshotsTable = try Self.hasTable("snapshots", in: db)
            hasSealedSnapshots =
                try db.int64("SELECT count(*) FROM pragma_table_info('snapshots') WHERE name = 'digest'") == 1
            hasSnapshotSummaries =
                try db.int64("SELECT count(*) FROM pragma_table_info('snapshots') WHERE name = 'summary'")
                == 1
            hasVault = try Self.hasTable("vault_keys", in: db)
            hasAddIndex = try Self.hasTable("add_index", in: db)
        } catch let error as DatabaseError where !readOnly && Self.cannotWrite(path, error) {
            // SQLite opened the file read-only by itself (no write permission on it, or on its folder for the
            // -wal): a command that writes cannot run, and says why.
            throw StoreError.cannotOpen(
                path,
                "this user cannot write it or its folder (ls, log, audit, verify and backup still read it)")
        } catch let error as DatabaseError {
            throw StoreError(error, path: path)
        }
    }

    deinit {
        closeLogDescriptor()
        if let privateCopy { Self.removePrivateCopy(privateCopy) }
    }

    /// Whether `error`, opening the existing file at `path` for writing, is this user's lack of write permission
    /// on it or its folder (SQLite says read-only, or cannot open the `-wal`/`-shm` it needs).
    private static func cannotWrite(_ path: String, _ error: DatabaseError) -> Bool {
        if error.code == .readOnly { return true }
        guard [.cantOpen, .permission].contains(error.code), FileCheck.exists(path) else { return false }
        let folder = path.lastIndex(of: "/").map { String(path[..<$0]) } ?? "."
        return access(path, W_OK) != 0 || access(folder.isEmpty ? "/" : folder, W_OK) != 0
    }

    /// Refuses files that are not SQLite, SQLite files without our application id, and files that were there
    /// before we opened them but hold nothing (an empty or 1-byte file is someone's, not a ledger to initialise).
    private static func checkIdentity(_ db: Database, path: String, mayInitialize: Bool) throws {
        let tables = try db.int64("SELECT count(*) FROM sqlite_schema") ?? 0
        let applicationID = try db.int64("PRAGMA application_id") ?? 0
        if applicationID == Self.applicationID { return }
        if tables == 0 && applicationID == 0 && mayInitialize { return }  // the file SQLite just created
        throw StoreError.notALedger(path)
    }

    static func hasTable(_ name: String, in db: Database) throws(DatabaseError) -> Bool {
        let statement = try db.cachedStatement(
            "SELECT count(*) FROM sqlite_schema WHERE type = 'table' AND name = ?")
        defer { statement.reset() }
        try statement.bind(name, at: 1)
        return try statement.step() && statement.int64(at: 0) > 0
    }

    /// Runs `body`, turning SQLite failures into `StoreError`s that name this ledger.
    func translatingErrors<T>(_ body: () throws -> T) throws -> T {
        do {
            return try body()
        } catch let error as DatabaseError {
            throw StoreError(error, path: path)
        }
    }

    public func head() throws -> Int64 {
        try translatingErrors { try db.int64("SELECT max(seq) FROM events") ?? 0 }
    }

    /// Changes how hard the following commits push to disk (between transactions only).
    public func setSynchronous(_ mode: Synchronous) throws {
        guard !isReadOnly else { return }
        try translatingErrors { try db.execute("PRAGMA synchronous = \(mode.rawValue)") }
        commitsSyncAtCheckpoint = mode == .normal
    }

    /// `.full` is `synchronous=FULL`, `.facts` `synchronous=NORMAL` (in WAL mode a commit then survives a crash of
    /// the process, and is synced at the next checkpoint).
    public func setDurability(_ durability: CommitDurability) throws {
        try setSynchronous(durability == .full ? .full : .normal)
    }

    public func changeToken() throws -> Int64 {
        try translatingErrors { try db.int64("PRAGMA data_version") ?? 0 }
    }

    public func append(_ events: [NewEvent], expectingHead: Int64, time: Int64) throws -> Int64 {
        try append(events, expectingHead: expectingHead, time: time, vault: .none)
    }

    public func append(_ events: [NewEvent], expectingHead: Int64, time: Int64, vault: VaultChange) throws
        -> Int64
    {
        guard !isReadOnly else { throw StoreError.readOnly }
        guard vault.isEmpty || hasVault else { throw StoreError.readOnly }
        defer { hasher.shrinkIfLarge() }
        let appended = try translatingErrors {
            try db.immediateTransaction {
                let last = try db.cachedStatement(
                    "SELECT seq, time, hash FROM events ORDER BY seq DESC LIMIT 1")
                var head: Int64 = 0
                var commitTime = time
                if try last.step() {
                    head = last.int64(at: 0)
                    commitTime = max(time, last.int64(at: 1))
                    let hash = last.rawBytes(at: 2)
                    guard hash.count == ChainHasher.digestLength else {
                        last.reset()
                        throw StoreError.corrupt(path, "the hash of seq \(head) is not 32 bytes")
                    }
                    hasher.restart(from: hash)
                } else {
                    hasher.restart(from: nil)
                }
                last.reset()
                guard head == expectingHead else { throw StoreError.conflict(head: head) }
                if !vault.isEmpty { try change(vault, time: commitTime) }
                guard !events.isEmpty else { return head }
                var seq = head
                var start = events.startIndex
                while start < events.endIndex {
                    let end = min(start + Self.rowsPerInsert, events.endIndex)
                    try insert(events[start..<end], after: seq, time: commitTime)
                    seq += Int64(end - start)
                    start = end
                }
                try linkTasks(of: events, after: head)
                return seq
            }
        }
        if !vault.added.isEmpty { Self.restrictToOwner(path) }
        if commitsSyncAtCheckpoint { startLogWriteback() }
        return appended
    }

    /// Chains `events` after the hasher's hash and inserts their rows with one multi-row INSERT.
    private func insert(_ events: ArraySlice<NewEvent>, after head: Int64, time: Int64) throws {
        hasher.clear()
        var seq = head
        for event in events {
            seq += 1
            var kind = event.kind
            kind.withUTF8 { kindBytes in
                event.payload.withUnsafeBytes { payload in
                    hasher.chain(
                        seq: seq, time: time, kind: UnsafeRawBufferPointer(kindBytes), version: event.version,
                        tasks: event.tasks, payload: payload)
                }
            }
        }
        // The bound bytes live in the hasher, untouched until the next chain() or clear() call.
        let statement = try db.cachedStatement(Self.insertSQL[events.count])
        var parameter: Int32 = 1
        seq = head
        for (entry, event) in zip(hasher.entries, events) {
            seq += 1
            try statement.bind(seq, at: parameter)
            try statement.bind(time, at: parameter + 1)
            try statement.bindTextNoCopy(hasher.bytes(entry.kind), at: parameter + 2)
            try statement.bind(Int64(event.version), at: parameter + 3)
            try statement.bindTextNoCopy(hasher.bytes(entry.tasks), at: parameter + 4)
            try statement.bindTextNoCopy(hasher.bytes(entry.payload), at: parameter + 5)
            try statement.bindBlobNoCopy(hasher.bytes(entry.hash), at: parameter + 6)
            parameter += 7
        }
        try statement.run()
    }

    /// Adds the audit rows (task, seq) of `events`, appended after `head`, many per INSERT.
    private func linkTasks(of events: [NewEvent], after head: Int64) throws {
        links.removeAll(keepingCapacity: true)
        for (offset, event) in events.enumerated() {
            for task in event.tasks {
                links.append(task)
                links.append(head + 1 + Int64(offset))
            }
        }
        var start = 0
        while start < links.count {
            let end = min(start + 2 * Self.linksPerInsert, links.count)
            let statement = try db.cachedStatement(Self.linkSQL[(end - start) / 2])
            for index in start..<end { try statement.bind(links[index], at: Int32(index - start + 1)) }
            try statement.run()
            start = end
        }
    }

    /// Rows per multi-row INSERT: enough to amortise the statement, few enough to stay under SQLite's
    /// parameter limit (7 per row).
    static let rowsPerInsert = 32
    static let linksPerInsert = 64

    /// `insertSQL[n]` inserts n event rows.
    static let insertSQL: [String] = (0...rowsPerInsert).map { rows in
        "INSERT INTO events(seq, time, kind, version, tasks, payload, hash) VALUES "
            + Array(repeating: "(?, ?, ?, ?, ?, ?, ?)", count: rows).joined(separator: ", ")
    }

    /// `linkSQL[n]` inserts n audit rows, ignoring a task listed twice in one event.
    static let linkSQL: [String] = (0...linksPerInsert).map { rows in
        "INSERT OR IGNORE INTO event_tasks(task, seq) VALUES "
            + Array(repeating: "(?, ?)", count: rows).joined(separator: ", ")
    }
}
