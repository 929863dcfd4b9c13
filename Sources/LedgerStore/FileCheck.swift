#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// File-system questions asked before SQLite touches a file.
enum FileCheck {
    /// Whether something exists at `path` (without following it into SQLite).
    static func exists(_ path: String) -> Bool {
        var info = stat()
        return stat(path, &info) == 0
    }

    /// Whether the SQLite file at `path` says it is in rollback-journal mode (header bytes 18 and 19, the write
    /// and read versions, are 1; WAL is 2). False for anything else, or a file that cannot be read.
    ///
    /// The header is read through SQLite (a lock-free `immutable=1` connection), not a descriptor of our own: SQLite
    /// keeps a file's descriptors open while this process holds locks on it, whereas closing ours would drop them
    /// all, those of this process's other connections included.
    static func isRollbackJournalFile(_ path: String) -> Bool {
        guard
            let db = try? Database(
                location: Database.uri(path: path, parameters: ["mode=ro", "immutable=1"]), readOnly: true),
            let header = db.mainFileBytes(count: 20),
            header.starts(with: Array("SQLite format 3\0".utf8))
        else { return false }
        return header[18] == 1 && header[19] == 1
    }
}
