import CSQLite

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// Copies of a ledger: the main file made whole (a TRUNCATE checkpoint), a backup taken while others write
/// (`VACUUM INTO`), and reading a copy whose `-wal` lies in a folder the reader cannot write.
extension SQLiteEventStore {
    /// Moves every committed event from the write-ahead log into the main file and empties the log, so that the
    /// main file alone (what users copy) holds them. Does not wait: while another connection still reads an older
    /// state, the log stays and the last connection to finish empties it.
    /// - Returns: whether the log is empty now (false for a read-only store).
    @discardableResult
    public func checkpoint() -> Bool {
        guard !isReadOnly else { return false }
        return db.checkpointTruncate()
    }

    /// Copies into the main file every frame of the write-ahead log that no reader still needs (a PASSIVE
    /// checkpoint): waits for no lock and blocks no reader or writer, of this process or another. Meant for a
    /// connection of its own, between its transactions (`LogCheckpointer` in DownloadLedger keeps the main file
    /// current while the downloader writes).
    /// - Returns: the frames in the log and how many of them are in the main file now; nil for a read-only store,
    ///   or when SQLite refused (another checkpoint was running, an I/O error).
    public func checkpointPassive() -> (logFrames: Int, folded: Int)? {
        guard !isReadOnly, let result = db.checkpointPassive() else { return nil }
        return (Int(result.log), Int(result.folded))
    }

    /// Writes a consistent, self-contained copy of the ledger to `destination`: one file, no `-wal`, every event
    /// committed when the copy began (one read transaction: writers in other processes go on meanwhile).
    ///
    /// The copy is written under `<destination>.partial-<pid>`, a file made new here (never one that was there,
    /// never through a link), synced, and only then linked to `destination`, which it never replaces: a backup
    /// that fails (a full disk) or is killed never leaves a half-written file under the name asked for, and a
    /// failed one removes its partial copy.
    /// - Returns: the head of the copy, read back from it.
    /// - Throws: `StoreError.cannotBackUp(destination, …)` when something is already at `destination`, its folder
    ///   is missing, or the copy cannot be written.
    public func backup(to destination: String) throws -> Int64 {
        // Into PostgreSQL: the events copied in order, with their times (the same chain), and the vault's keys.
        if PostgresLocation.isPostgres(destination) {
            return try EventStoreCopy.backup(from: self, to: destination)
        }
        var info = stat()
        guard lstat(destination, &info) != 0, errno == ENOENT else {
            throw StoreError.cannotBackUp(
                destination,
                errno == ENOTDIR ? "no such folder" : "it exists (a backup never overwrites a file)")
        }
        // A backup is a whole ledger, keys included: as private as the ledger with credentials, from the start.
        let secret = try !vaultTasks().isEmpty
        let partial = destination + ".partial-\(getpid())"
        let fd = open(partial, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, secret ? 0o600 : 0o644)
        guard fd >= 0 else {
            let reason =
                switch errno {
                case ENOENT, ENOTDIR: "no such folder"
                case EEXIST: "\(partial) exists"
                default: String(cString: strerror(errno))
                }
            throw StoreError.cannotBackUp(destination, reason)
        }
        var made = stat()
        fstat(fd, &made)
        close(fd)
        let removePartial = {
            var now = stat()
            if lstat(partial, &now) == 0, now.st_dev == made.st_dev, now.st_ino == made.st_ino {
                unlink(partial)
            }
        }
        let head: Int64
        do {
            let statement = try db.cachedStatement("VACUUM INTO ?")
            defer { statement.reset() }
            try statement.bind(partial, at: 1)
            try statement.run()
            if secret { Self.restrictToOwner(partial) }
            let written = open(partial, O_RDONLY | O_NOFOLLOW | O_CLOEXEC)
            guard written >= 0, fsync(written) == 0 else {
                if written >= 0 { close(written) }
                throw StoreError.cannotBackUp(destination, String(cString: strerror(errno)))
            }
            close(written)
            head = try SQLiteEventStore(path: partial, readOnly: true).head()
        } catch let error as StoreError {
            removePartial()
            throw error
        } catch let error as DatabaseError {
            removePartial()
            throw StoreError.cannotBackUp(destination, error.message)
        } catch {
            removePartial()
            throw StoreError.cannotBackUp(destination, "\(error)")
        }
        // Linked, never renamed over: something that appeared at `destination` meanwhile stays as it is.
        guard link(partial, destination) == 0 else {
            let reason =
                errno == EEXIST
                ? "it exists (a backup never overwrites a file)" : String(cString: strerror(errno))
            removePartial()
            throw StoreError.cannotBackUp(destination, reason)
        }
        removePartial()
        let folder = destination.lastIndex(of: "/").map { String(destination[..<$0]) } ?? "."
        let dir = open(folder.isEmpty ? "/" : folder, O_RDONLY | O_DIRECTORY | O_CLOEXEC)
        if dir >= 0 {
            fsync(dir)
            close(dir)
        }
        return head
    }

    /// Opens `path` read-only (see `init`). When a `-wal` lies beside it and SQLite cannot create the `-shm` it
    /// needs (the folder is read-only for this user), the file and its log are copied to a private folder and read
    /// there: the original is never written.
    static func openReadOnly(_ path: String, busyTimeout: Int32) throws -> (Database, String?) {
        guard FileCheck.exists(path) else { throw StoreError.cannotOpen(path, "no such file") }
        let walInUse = FileCheck.exists(path + "-wal")
        let parameters = readOnlyParameters(path, walInUse: walInUse)
        let db = try Database(
            location: Database.uri(path: path, parameters: parameters), readOnly: true,
            busyTimeout: busyTimeout)
        guard walInUse else { return (db, nil) }
        do {
            _ = try db.int64("SELECT count(*) FROM sqlite_schema")
            return (db, nil)
        } catch let error where [.cantOpen, .readOnly, .permission].contains(error.code) {
            let folder = try privateCopy(of: path)
            let copy = try Database(
                location: Database.uri(path: folder + "/ledger.sqlite", parameters: ["mode=ro"]),
                readOnly: true,
                busyTimeout: busyTimeout)
            return (copy, folder)
        }
    }

    /// How a read-only open reads `path`. A file in rollback-journal mode needs neither a `-shm` nor a write: read
    /// with locks (`mode=ro`), it is never read half-written by a writer starting meanwhile. A WAL file without its
    /// log (a copy of a live ledger) would need to create both: it is read as it lies, without locks
    /// (`immutable=1`). A WAL file with its log is read with locks, through a `-shm`.
    static func readOnlyParameters(_ path: String, walInUse: Bool) -> [String] {
        if walInUse || FileCheck.isRollbackJournalFile(path) { return ["mode=ro"] }
        return ["mode=ro", "immutable=1"]
    }

    /// Copies `path` and `path-wal` into a new private folder (under `$TMPDIR`, else `/tmp` or `/var/tmp`).
    private static func privateCopy(of path: String) throws -> String {
        var candidates = ["/tmp", "/var/tmp"]
        if let tmp = getenv("TMPDIR").map({ String(cString: $0) }), !tmp.isEmpty {
            candidates.insert(tmp, at: 0)
        }
        for base in candidates {
            var template = Array((base + "/dledger-ro-XXXXXX").utf8CString)
            guard let made = mkdtemp(&template) else { continue }
            let folder = String(cString: made)
            do {
                try copyFile(path, to: folder + "/ledger.sqlite")
                try copyFile(path + "-wal", to: folder + "/ledger.sqlite-wal")
                return folder
            } catch {
                removePrivateCopy(folder)
                throw error
            }
        }
        throw StoreError.cannotOpen(
            path, "its -wal needs a -shm beside it and no private folder could be made")
    }

    private static func copyFile(_ from: String, to: String) throws {
        let input = open(from, O_RDONLY | O_CLOEXEC)
        guard input >= 0 else { throw StoreError.cannotOpen(from, String(cString: strerror(errno))) }
        defer { close(input) }
        let output = open(to, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0o600)
        guard output >= 0 else { throw StoreError.cannotOpen(to, String(cString: strerror(errno))) }
        defer { close(output) }
        var buffer = [UInt8](repeating: 0, count: 1 << 16)
        while true {
            let n = read(input, &buffer, buffer.count)
            if n == 0 { return }
            guard n > 0, write(output, buffer, n) == n else {
                throw StoreError.io(to, String(cString: strerror(errno)))
            }
        }
    }

    static func removePrivateCopy(_ folder: String) {
        for name in ["ledger.sqlite", "ledger.sqlite-wal", "ledger.sqlite-shm"] {
            unlink(folder + "/" + name)
        }
        rmdir(folder)
    }
}

extension Database {
    /// The main file as SQLite's VFS holds it open. Reads and syncs go through it, never through a descriptor of
    /// our own: ours would have to be closed, and closing any descriptor of a file drops every POSIX lock the
    /// process holds on it, SQLite's included.
    private func mainFile() -> (file: UnsafeMutablePointer<sqlite3_file>, methods: sqlite3_io_methods)? {
        var file: UnsafeMutablePointer<sqlite3_file>?
        guard sqlite3_file_control(handle, "main", SQLITE_FCNTL_FILE_POINTER, &file) == SQLITE_OK, let file,
            let methods = file.pointee.pMethods?.pointee
        else { return nil }
        return (file, methods)
    }

    /// `fsync` of the main file through SQLite's own descriptor of it (its VFS's `xSync`).
    /// - Returns: SQLite's result code.
    func syncMainFile() -> Int32 {
        guard let (file, methods) = mainFile(), let sync = methods.xSync else { return SQLITE_MISUSE }
        return sync(file, SQLITE_SYNC_FULL)
    }

    /// The first `count` bytes of the main file, read through SQLite's own descriptor of it (its VFS's `xRead`);
    /// nil when the file is shorter or cannot be read.
    func mainFileBytes(count: Int) -> [UInt8]? {
        guard let (file, methods) = mainFile(), let read = methods.xRead else { return nil }
        var bytes = [UInt8](repeating: 0, count: count)
        let code = bytes.withUnsafeMutableBytes { read(file, $0.baseAddress, Int32(count), 0) }
        return code == SQLITE_OK ? bytes : nil
    }

    /// `wal_checkpoint(TRUNCATE)` without waiting for other connections.
    /// - Returns: whether the log was emptied.
    func checkpointTruncate() -> Bool {
        csqlite_config_busy_timeout(handle, 0)
        defer { csqlite_config_busy_timeout(handle, busyTimeout) }
        return sqlite3_wal_checkpoint_v2(handle, nil, SQLITE_CHECKPOINT_TRUNCATE, nil, nil) == SQLITE_OK
    }

    /// `wal_checkpoint(PASSIVE)`: copies into the main file every frame of the log that no reader still needs,
    /// without waiting for any lock and without blocking readers or writers.
    /// - Returns: the frames in the log and how many of them are in the main file now, or nil when SQLite
    ///   refused (another checkpoint is running, or an I/O error).
    func checkpointPassive() -> (log: Int32, folded: Int32)? {
        var log: Int32 = 0
        var folded: Int32 = 0
        let code = sqlite3_wal_checkpoint_v2(handle, nil, SQLITE_CHECKPOINT_PASSIVE, &log, &folded)
        return code == SQLITE_OK ? (log, folded) : nil
    }

    /// The connection's journal mode, lowercased (`wal`, `delete`…).
    func journalMode() throws(DatabaseError) -> String {
        let statement = try cachedStatement("PRAGMA journal_mode")
        defer { statement.reset() }
        guard try statement.step() else { return "" }
        return statement.string(at: 0).lowercased()
    }
}
