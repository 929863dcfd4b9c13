import CSQLite

/// The event store in one SQLite file (WAL mode), readable with the sqlite3 shell alone.
///
/// ```swift
/// let store = try SQLiteEventStore(path: "/var/lib/dl/ledger.sqlite")
/// let head = try store.append([event], expectingHead: try store.head(), time: now)
/// let copy = try SQLiteEventStore(path: "/mnt/backup/ledger.sqlite", readOnly: true)  // never writes
/// ```
///
/// One instance is one connection: use it from one thread at a time, and open one per thread or process.
public final class SQLiteEventStore: EventStore {
    /// How hard each commit pushes to disk.
    public enum Synchronous: String, Sendable {
        /// fsync on every commit: an acknowledged append survives power loss (the default).
        case full = "FULL"
        /// fsync at checkpoints only: an append survives a process crash but maybe not power loss.
        case normal = "NORMAL"
    }

    /// The file this store was opened on.
    public let path: String
    /// Whether the store was opened with `readOnly: true`.
    public let isReadOnly: Bool
    let db: Database
    let hasSnapshotsTable: Bool
    let hasher = ChainHasher()
    /// The chain hash of the row being appended; reused so appends allocate nothing per event.
    var previousHash = ChainHasher.zeroHash

    /// The DownloadLedger `PRAGMA application_id` ("DLGR").
    public static let applicationID: Int64 = 0x444C_4752

    /// Opens the ledger at `path`, creating and migrating it as needed.
    ///
    /// With `readOnly: true` the file is never written, nor created, nor migrated: when no `-wal` file lies next
    /// to it the file is opened `immutable=1` (no locks, no `-shm`; works on read-only media, but a writer that
    /// starts meanwhile is not seen), otherwise `mode=ro` (sees committed writes; needs to create `-shm`).
    /// - Parameter busyTimeout: milliseconds to wait for another writer before `StoreError.locked`.
    /// - Throws: `StoreError` (`.notALedger`, `.corrupt`, `.locked`, `.newerSchema`, `.cannotOpen`…).
    public init(
        path: String, readOnly: Bool = false, busyTimeout: Int32 = 5000, synchronous: Synchronous = .full
    ) throws {
        self.path = path
        self.isReadOnly = readOnly
        do {
            if readOnly {
                guard FileCheck.exists(path) else { throw StoreError.cannotOpen(path, "no such file") }
                let walInUse = FileCheck.exists(path + "-wal")
                let parameters = walInUse ? ["mode=ro"] : ["mode=ro", "immutable=1"]
                db = try Database(
                    location: Database.uri(path: path, parameters: parameters), readOnly: true,
                    busyTimeout: busyTimeout)
            } else {
                db = try Database(location: Database.uri(path: path), busyTimeout: busyTimeout)
            }
            try Self.checkIdentity(db, path: path, readOnly: readOnly)
            if readOnly {
                let found = try Migration.currentVersion(of: db)
                if found > Migration.latestVersion {
                    throw StoreError.newerSchema(found: found, supported: Migration.latestVersion)
                }
            } else {
                try db.execute("PRAGMA journal_mode = WAL; PRAGMA synchronous = \(synchronous.rawValue)")
                try Migration.migrate(db)
            }
            hasSnapshotsTable = try Self.hasTable("snapshots", in: db)
        } catch let error as DatabaseError {
            throw StoreError(error, path: path)
        }
    }

    /// Refuses files that are not SQLite, and SQLite files that hold tables but not our application id.
    private static func checkIdentity(_ db: Database, path: String, readOnly: Bool) throws {
        let tables = try db.int64("SELECT count(*) FROM sqlite_schema") ?? 0
        let applicationID = try db.int64("PRAGMA application_id") ?? 0
        if applicationID == Self.applicationID { return }
        if tables == 0 && applicationID == 0 && !readOnly { return }  // a new, empty file: ours to create
        throw StoreError.notALedger(path)
    }

    private static func hasTable(_ name: String, in db: Database) throws(DatabaseError) -> Bool {
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

    public func changeToken() throws -> Int64 {
        try translatingErrors { try db.int64("PRAGMA data_version") ?? 0 }
    }

    public func append(_ events: [NewEvent], expectingHead: Int64, time: Int64) throws -> Int64 {
        guard !isReadOnly else { throw StoreError.readOnly }
        return try translatingErrors {
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
                        throw StoreError.corrupt(path, "the hash of seq \(head) is not 32 bytes")
                    }
                    previousHash.withUnsafeMutableBytes { $0.copyMemory(from: hash) }
                } else {
                    for index in previousHash.indices { previousHash[index] = 0 }
                }
                last.reset()
                guard head == expectingHead else { throw StoreError.conflict(head: head) }
                var seq = head
                for event in events {
                    seq += 1
                    try insert(event, seq: seq, time: commitTime)
                }
                return seq
            }
        }
    }

    /// Inserts one event row chained to `previousHash`, then its audit rows; `previousHash` becomes its hash.
    private func insert(_ event: NewEvent, seq: Int64, time: Int64) throws {
        var kind = event.kind
        kind.withUTF8 { kindBytes in
            event.payload.withUnsafeBytes { payload in
                previousHash.withUnsafeBytes { previous in
                    hasher.layout(
                        previous: previous, seq: seq, time: time, kind: UnsafeRawBufferPointer(kindBytes),
                        version: event.version, tasks: event.tasks, payload: payload)
                }
            }
        }
        previousHash.withUnsafeMutableBytes { hasher.digest(into: $0) }
        let statement = try db.cachedStatement(
            "INSERT INTO events(seq, time, kind, version, tasks, payload, hash) VALUES (?, ?, ?, ?, ?, ?, ?)")
        try hasher.buffer.withUnsafeBytes { canonical in
            try previousHash.withUnsafeBytes { hash in
                try statement.bind(seq, at: 1)
                try statement.bind(time, at: 2)
                try statement.bindTextNoCopy(
                    UnsafeRawBufferPointer(rebasing: canonical[hasher.kindRange]), at: 3)
                try statement.bind(Int64(event.version), at: 4)
                try statement.bindTextNoCopy(
                    UnsafeRawBufferPointer(rebasing: canonical[hasher.tasksRange]), at: 5)
                try statement.bindTextNoCopy(
                    UnsafeRawBufferPointer(rebasing: canonical[hasher.payloadRange]), at: 6)
                try statement.bindBlobNoCopy(hash, at: 7)
                try statement.run()
            }
        }
        guard !event.tasks.isEmpty else { return }
        let link = try db.cachedStatement("INSERT OR IGNORE INTO event_tasks(task, seq) VALUES (?, ?)")
        try link.bind(seq, at: 2)
        for task in event.tasks {
            try link.bind(task, at: 1)
            try link.run()
        }
    }
}
