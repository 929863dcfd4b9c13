/// One numbered schema step from `Migrations/NNNN_name.sql`, embedded in the binary (see `Migration+Embedded`).
struct Migration: Sendable, Equatable {
    var version: Int
    var name: String
    var sql: String

    /// The highest schema version this build knows.
    static var latestVersion: Int { embedded.last?.version ?? 0 }

    /// The schema version recorded in `db` (0 for a new database).
    static func currentVersion(of db: Database) throws(DatabaseError) -> Int {
        let hasTable = try db.int64(
            "SELECT count(*) FROM sqlite_schema WHERE type = 'table' AND name = 'schema_migrations'")
        guard hasTable == 1 else { return 0 }
        return Int(try db.int64("SELECT max(version) FROM schema_migrations") ?? 0)
    }

    /// Applies every embedded migration above the recorded version, all in one immediate transaction with their
    /// rows in `schema_migrations`: a crash leaves the schema as it was, and a new ledger's schema is one commit.
    ///
    /// - Parameter target: stop after this version (tests build older ledgers with it).
    /// - Throws: `StoreError.newerSchema` when the database records a version this build does not know.
    static func migrate(_ db: Database, upTo target: Int = latestVersion) throws {
        let found = try currentVersion(of: db)
        if found > latestVersion { throw StoreError.newerSchema(found: found, supported: latestVersion) }
        guard embedded.contains(where: { $0.version > found && $0.version <= target }) else { return }
        try db.immediateTransaction {
            // Another process may have migrated while this one waited for the write lock.
            let now = try currentVersion(of: db)
            if now > latestVersion { throw StoreError.newerSchema(found: now, supported: latestVersion) }
            for migration in embedded where migration.version > now && migration.version <= target {
                try db.execute(migration.sql)
                let record = try db.cachedStatement(
                    """
                    INSERT INTO schema_migrations(version, name, applied_at)
                    VALUES (?, ?, CAST((julianday('now') - 2440587.5) * 86400000 AS INTEGER))
                    """)
                try record.bind(Int64(migration.version), at: 1)
                try record.bind(migration.name, at: 2)
                try record.run()
            }
        }
    }
}
