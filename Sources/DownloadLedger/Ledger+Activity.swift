import LedgerStore
import LedgerTransfer

extension Ledger {
    /// The board this ledger's downloaders publish their activity on: ``FileActivityBoard`` beside a SQLite
    /// ledger, ``PostgresActivityBoard`` (every host's row, read on this ledger's store connection) for a ledger in
    /// PostgreSQL.
    public var activityBoard: any ActivityBoard {
        PostgresLocation.isPostgres(path)
            ? PostgresActivityBoard(ledger: self) : FileActivityBoard(ledgerPath: path)
    }

    /// The board of the ledger at `path`, for a command that has no ``Ledger`` open: for a PostgreSQL ledger it
    /// reads on a read-only connection of its own, made by its first read.
    public static func activityBoard(path: String) -> any ActivityBoard {
        if PostgresLocation.isPostgres(path), let location = try? PostgresLocation(path) {
            return PostgresActivityBoard(location: location)
        }
        return FileActivityBoard(ledgerPath: path)
    }

    /// The live activity of the downloaders that run now for this ledger (on a PostgreSQL ledger, of every host), in
    /// this process or another, by task; empty when none runs or none publishes anything readable.
    public func liveActivity() -> [TaskID: TransferActivity] {
        guard let activity = activityBoard.read() else { return [:] }
        return Dictionary(activity.map { ($0.id, $0) }, uniquingKeysWith: { a, _ in a })
    }
}

extension Ledger {
    /// On a PostgreSQL ledger, the running transfers the downloaders of other hosts than `host` publish (a
    /// process with a downloader of its own shows its own transfers from its engine, and these besides); empty
    /// for a SQLite ledger, which has one downloader. One query on this ledger's store connection.
    public func otherHostsActivity(besides host: String) -> [TransferActivity] {
        guard PostgresLocation.isPostgres(path), let rows = activityRows() else { return [] }
        return PostgresActivityBoard.merged(rows.filter { $0.host != host }) ?? []
    }
}
