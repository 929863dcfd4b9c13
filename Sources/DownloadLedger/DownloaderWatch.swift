import LedgerStore

/// Who downloads for a ledger, asked again and again (`dledger ui` watching another process's downloader, once a
/// second). A SQLite ledger's lock file is read each time; a PostgreSQL ledger's run lock is asked of the server on
/// one connection kept for it (``PostgresLockWatch``), made again after a restart: a watcher holds a fixed number of
/// sessions instead of opening one per look.
///
/// ```swift
/// let watch = DownloaderWatch(ledgerPath: ledger.path, host: "nas")
/// if let pid = try watch.holder() { print("pid \(pid) downloads") }
/// ```
///
/// Not thread-safe: one thread at a time.
public final class DownloaderWatch {
    public let ledgerPath: String
    public let host: String
    /// The kept connection's watch, for a PostgreSQL ledger with a valid URI.
    private let postgres: PostgresLockWatch?

    /// - Parameter host: the downloader's host name (a PostgreSQL ledger has one lock per host name); nil: the
    ///   machine's (``Scheduler/defaultHostName()``).
    public init(ledgerPath: String, host: String? = nil) {
        let host = host ?? Scheduler.defaultHostName()
        self.ledgerPath = ledgerPath
        self.host = host
        postgres =
            PostgresLocation.isPostgres(ledgerPath)
            ? (try? PostgresLocation(ledgerPath)).map { PostgresLockWatch($0, host: host) } : nil
    }

    /// The pid of the downloader that holds the ledger's run lock now (as ``Ledger/downloaderPid`` says); nil when
    /// none does or its pid cannot be read.
    /// - Throws: `StoreError.cannotConnect` while a PostgreSQL ledger's server cannot be reached: whether a
    ///   downloader runs is not known then.
    public func holder() throws -> Int32? {
        if let postgres { return try postgres.holder() }
        return RunLock.holder(ledgerPath: ledgerPath, host: host)
    }
}
