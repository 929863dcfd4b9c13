import Foundation
import LedgerStore

/// One downloader per ledger: an exclusive `flock` on `<ledger>.lock`, holding the owner's pid.
/// The kernel drops the lock when the process dies, even by `kill -9`. A ledger in PostgreSQL has no file beside
/// it: there the lock is a session advisory lock keyed by its schema and the downloader's host name
/// (``PostgresRunLock``), which the server drops when the session ends: one downloader per host name, several
/// host names together.
final class RunLock {
    /// The lock file, or for a PostgreSQL ledger the lock's name (its URI masked).
    let path: String
    private var fd: Int32 = -1
    private var postgres: PostgresRunLock?

    /// - Throws: `LedgerOpenError.runnerActive` when another process holds the lock; for a PostgreSQL ledger,
    ///   `StoreError` when its server cannot be reached.
    /// - Parameter host: the downloader's host name, which keys the lock of a PostgreSQL ledger.
    init(ledgerPath: String, host: String) throws {
        if PostgresLocation.isPostgres(ledgerPath) {
            let location = try PostgresLocation(ledgerPath)
            path = PostgresRunLock.name(location) + " for host \(host)"
            guard let lock = try PostgresRunLock.acquire(location, host: host) else {
                throw LedgerOpenError.runnerActive(
                    pid: PostgresRunLock.holder(location, host: host), lockPath: path)
            }
            postgres = lock
            return
        }
        path = ledgerPath + ".lock"
        fd = open(path, O_RDWR | O_CREAT | O_CLOEXEC, 0o644)
        guard fd >= 0 else {
            throw LedgerError.fileSystem("cannot open lock \(path): \(String(cString: strerror(errno)))")
        }
        // `isHeld` probes with a shared lock for a moment: a few tries tell such a probe from a downloader.
        var locked = flock(fd, LOCK_EX | LOCK_NB) == 0
        for _ in 0..<10 where !locked {
            usleep(20_000)
            locked = flock(fd, LOCK_EX | LOCK_NB) == 0
        }
        guard locked else {
            var buffer = [UInt8](repeating: 0, count: 32)
            let n = read(fd, &buffer, 31)
            let pid =
                n > 0
                ? Int32(
                    String(decoding: buffer[0..<n], as: UTF8.self).trimmingCharacters(
                        in: .whitespacesAndNewlines)) : nil
            close(fd)
            throw LedgerOpenError.runnerActive(pid: pid, lockPath: path)
        }
        let pid = Array("\(getpid())\n".utf8)
        _ = ftruncate(fd, 0)
        _ = pwrite(fd, pid, pid.count, 0)
    }

    /// Whether a downloader holds the lock of the ledger at `ledgerPath` now (for a PostgreSQL ledger: one of any
    /// host name, or of `host` when given). Never creates the lock file (a copy in a read-only folder has none:
    /// nobody downloads into it); probes with a shared lock held for a moment.
    static func isHeld(ledgerPath: String, host: String? = nil) -> Bool {
        if PostgresLocation.isPostgres(ledgerPath) {
            guard let location = try? PostgresLocation(ledgerPath) else { return false }
            return (try? PostgresRunLock.isHeld(location, host: host)) ?? false
        }
        let fd = open(ledgerPath + ".lock", O_RDONLY | O_CLOEXEC)
        guard fd >= 0 else { return false }
        defer { close(fd) }
        guard flock(fd, LOCK_SH | LOCK_NB) == 0 else { return errno == EWOULDBLOCK }
        flock(fd, LOCK_UN)
        return false
    }

    /// The pid of the downloader that holds the lock of the ledger at `ledgerPath` now, as it wrote it in the
    /// lock file; nil when none holds it or the file does not name one. Opened without following a link.
    static func holder(ledgerPath: String, host: String = Scheduler.defaultHostName()) -> Int32? {
        if PostgresLocation.isPostgres(ledgerPath) {
            return (try? PostgresLocation(ledgerPath)).flatMap { PostgresRunLock.holder($0, host: host) }
        }
        let fd = open(ledgerPath + ".lock", O_RDONLY | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC)
        guard fd >= 0 else { return nil }
        defer { close(fd) }
        if flock(fd, LOCK_SH | LOCK_NB) == 0 {
            flock(fd, LOCK_UN)
            return nil
        }
        guard errno == EWOULDBLOCK else { return nil }
        var buffer = [UInt8](repeating: 0, count: 16)
        let n = read(fd, &buffer, 15)
        guard n > 1, buffer[n - 1] == 10, buffer[..<(n - 1)].allSatisfy({ $0 >= 48 && $0 <= 57 }) else {
            return nil
        }
        return Int32(String(decoding: buffer[..<(n - 1)], as: UTF8.self))
    }

    /// Whether this process holds the lock now. A PostgreSQL ledger's lock is taken again on a new session when the
    /// server dropped the old one (``PostgresRunLock/ensureHeld()``): false when another downloader took it meanwhile.
    /// A `flock` is never lost: true until released.
    /// - Throws: `StoreError.cannotConnect` while the server cannot be reached.
    func ensureHeld() throws -> Bool {
        if let postgres { return try postgres.ensureHeld() }
        return fd >= 0
    }

    /// The server's process of the session that holds a PostgreSQL ledger's lock now (what its activity board's row
    /// names); nil for a SQLite ledger and once released.
    var sessionPid: Int32? { postgres?.sessionPid }

    /// Whether a PostgreSQL ledger's lock session is gone (the server restarted): ``ensureHeld()`` takes it again.
    var isSessionLost: Bool { postgres?.isSessionLost ?? false }

    func release() {
        postgres?.release()
        postgres = nil
        guard fd >= 0 else { return }
        _ = ftruncate(fd, 0)
        flock(fd, LOCK_UN)
        close(fd)
        fd = -1
    }

    deinit { release() }
}
