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
    static func isRollbackJournalFile(_ path: String) -> Bool {
        let fd = open(path, O_RDONLY | O_CLOEXEC)
        guard fd >= 0 else { return false }
        defer { close(fd) }
        var header = [UInt8](repeating: 0, count: 20)
        guard pread(fd, &header, header.count, 0) == header.count,
            header.starts(with: Array("SQLite format 3\0".utf8))
        else { return false }
        return header[18] == 1 && header[19] == 1
    }
}
