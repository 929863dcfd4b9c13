/// One host's row on a PostgreSQL ledger's live-activity board (the `activity` table, migration 0005): what its
/// downloader last published, as stored. The record is text the reader decodes with distrust.
public struct PostgresActivityRow: Sendable, Equatable {
    /// The downloader's host name (`--host-name`).
    public var host: String
    /// The downloader's process, on its host.
    public var pid: Int32
    /// When it was written, in ms since the Unix epoch, by the server's clock (the same for every host).
    public var writtenMs: Int64
    /// Its age when it was read, in ms, by the server's clock: free of the hosts' clock differences.
    public var ageMs: Int64
    /// The published record, byte for byte.
    public var record: [UInt8]

    public init(host: String, pid: Int32, writtenMs: Int64, ageMs: Int64 = 0, record: [UInt8]) {
        self.host = host
        self.pid = pid
        self.writtenMs = writtenMs
        self.ageMs = ageMs
        self.record = record
    }
}

extension PostgresEventStore {
    /// The board's rows whose writer is alive: those whose `lock_backend` is the session holding that host's run
    /// lock now (`pg_locks`, the same keys ``PostgresRunLock`` takes). A downloader killed by `kill -9` lost its
    /// lock with its session, so its row no longer counts, whatever it says. One query on this store's
    /// connection.
    /// - Returns: nil when the ledger has no board (it does not exist, or an older build made it and no writer of
    ///   this build has opened it since: reads create nothing).
    /// - Throws: `StoreError` when the read fails (`.cannotConnect` while the server is out of reach).
    public func liveActivityRows() throws -> [PostgresActivityRow]? {
        if !hasActivityBoard {
            var name = PostgresParameters()
            name.add(text: location.schema + ".activity")
            let found = try connection.execute("SELECT to_regclass($1) IS NOT NULL", name)
            guard found.rowCount == 1, found.bool(0, 0) else { return nil }
            hasActivityBoard = true
        }
        var key = PostgresParameters()
        key.add(text: location.schema)
        let result: PostgresResult
        do {
            result = try connection.execute(Self.liveActivitySQL, key)
        } catch StoreError.server(_, "42P01", _) {
            // The table went away (the schema was dropped and made again by an older build): look again next time.
            hasActivityBoard = false
            return nil
        }
        return (0..<result.rowCount).map { row in
            PostgresActivityRow(
                host: result.string(row, 0), pid: Int32(truncatingIfNeeded: result.int64(row, 1)),
                writtenMs: result.int64(row, 2), ageMs: result.int64(row, 4),
                record: Array(result.bytes(row, 3)))
        }
    }

    /// Whether a downloader (of any host name, or of `host` when given) holds the ledger's run lock now, asked on
    /// this store's connection (``PostgresRunLock/isHeld(_:host:)`` makes a session of its own for the look).
    /// - Throws: `StoreError` when the look fails (`.cannotConnect` while the server is out of reach).
    public func isRunLockHeld(host: String? = nil) throws -> Bool {
        try PostgresRunLock.holders(on: connection, location, host: host).rowCount > 0
    }

    /// The server's clock, in ms since the Unix epoch: the time rows are written at and aged by.
    static let serverNowMsSQL = "(extract(epoch FROM clock_timestamp()) * 1000)::int8"

    /// The rows whose writer's session holds its host's run lock (`$1`: the schema).
    static let liveActivitySQL = """
        SELECT a.host, a.pid, a.written_at, a.record, \(serverNowMsSQL) - a.written_at
        FROM activity a
        WHERE EXISTS (
            SELECT 1 FROM pg_locks l
            WHERE l.locktype = 'advisory' AND l.granted AND l.objsubid = 2 AND l.mode = 'ExclusiveLock'
              AND l.pid = a.lock_backend
              AND l.database = (SELECT oid FROM pg_database WHERE datname = current_database())
              AND l.classid = hashtext('dledger run ' || $1)::oid AND l.objid = hashtext(a.host)::oid)
        ORDER BY a.host
        """
}

/// Publishes one downloader's live activity on a PostgreSQL ledger's board: each publish is one upsert of its
/// host's row, with bound parameters, on a connection kept for it (made by the first publish, and again after a
/// restart as the store's is, no more often than ``ReconnectBackoff`` allows). The row names the session that
/// holds the run lock, which is how readers tell a live writer (``PostgresEventStore/liveActivityRows()``).
///
/// ```swift
/// let writer = PostgresActivityWriter(try PostgresLocation(uri), host: "nas")
/// try writer.publish(record, pid: getpid(), lockBackend: lock.sessionPid!)
/// writer.withdraw(pid: getpid())
/// ```
///
/// Not thread-safe: one thread at a time.
public final class PostgresActivityWriter {
    public let location: PostgresLocation
    public let host: String
    /// The session the upserts run on: the ledger's schema on its `search_path`, commits that do not wait for a
    /// WAL flush (the table is unlogged: there is nothing to wait for but the commit record).
    private var kept: PostgresKeptConnection

    public init(_ location: PostgresLocation, host: String) {
        self.location = location
        self.host = host
        kept = PostgresKeptConnection(location, setUp: Self.setUp)
    }

    /// Replaces this host's row with `record`, written by process `pid` whose run lock is held by the session
    /// `lockBackend` (``PostgresRunLock/sessionPid``). The row's time is the server's (`clock_timestamp()`), so that
    /// readers on any host tell its age the same way.
    /// - Throws: `StoreError` when it cannot be written (`.cannotConnect` while the server is out of reach, or
    ///   before the next try is due; `.server` when the ledger has no board): the caller tries again later.
    public func publish(_ record: [UInt8], pid: Int32, lockBackend: Int32) throws {
        var row = PostgresParameters()
        row.add(text: host)
        row.add(Int64(pid))
        row.add(Int64(lockBackend))
        row.add(bytes: record)
        try kept.connected().execute(
            """
            INSERT INTO activity (host, pid, lock_backend, written_at, record)
            VALUES ($1, $2::int4, $3::int4, \(PostgresEventStore.serverNowMsSQL), $4)
            ON CONFLICT (host) DO UPDATE SET pid = excluded.pid, lock_backend = excluded.lock_backend,
                written_at = excluded.written_at, record = excluded.record
            """, row)
    }

    /// Deletes this host's row if process `pid` wrote it (a row another downloader of this name wrote since
    /// stays); does nothing when the server cannot be reached (readers ignore the row once the lock is gone).
    public func withdraw(pid: Int32) {
        var row = PostgresParameters()
        row.add(text: host)
        row.add(Int64(pid))
        _ = try? kept.connected().execute("DELETE FROM activity WHERE host = $1 AND pid = $2::int4", row)
    }

    private static func setUp(_ connection: PostgresConnection) throws {
        try connection.executeScript(
            "SET search_path TO \(PostgresConnection.identifier(connection.location.schema)); "
                + "SET synchronous_commit = off")
    }
}
