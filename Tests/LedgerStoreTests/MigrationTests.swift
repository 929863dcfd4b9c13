import Foundation
import TestSupport
import Testing

@testable import LedgerStore

struct MigrationTests {
    /// The migrations in `Migrations/<folder>` (the repository's), as the embedded ones are written.
    static func migrations(in folder: String) throws -> [Migration] {
        let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
            .deletingLastPathComponent()
        let folder = root.appendingPathComponent("Migrations" + folder)
        let files = try FileManager.default.contentsOfDirectory(atPath: folder.path)
            .filter { $0.hasSuffix(".sql") }.sorted()
        return try files.map { file in
            let base = String(file.dropLast(4))
            let sql = try String(contentsOf: folder.appendingPathComponent(file), encoding: .utf8)
            return Migration(
                version: Int(base.prefix { $0.isNumber }) ?? -1,
                name: String(base.drop { $0.isNumber }.dropFirst()), sql: sql)
        }
    }

    /// The embedded SQL must be exactly Migrations/*.sql: run tools/gen-migrations.sh when this fails.
    @Test func embeddedMigrationsMatchTheMigrationsFolder() throws {
        #expect(try Self.migrations(in: "") == Migration.embedded)
    }

    /// The same for PostgreSQL's migrations and Migrations/postgres/*.sql.
    @Test func embeddedPostgresMigrationsMatchTheirFolder() throws {
        let onDisk = try Self.migrations(in: "/postgres")
        #expect(onDisk == Migration.embeddedPostgres)
        #expect(Migration.embeddedPostgres.map(\.version) == Array(1...Migration.embeddedPostgres.count))
    }

    @Test func versionsAreNumberedFromOneWithoutGaps() {
        #expect(Migration.embedded.map(\.version) == Array(1...Migration.embedded.count))
        #expect(Migration.latestVersion == Migration.embedded.count)
    }

    /// The migrations a ledger lacks apply as one transaction: one that fails (here a table in the way of the
    /// vault's) leaves the schema exactly as it was, without the steps before it, and once the obstacle is gone the
    /// next open migrates the whole way.
    @Test func aFailingMigrationLeavesTheSchemaAsItWas() throws {
        let directory = try TemporaryDirectory()
        let db = try Database(path: directory.file("ledger.sqlite"))
        try Migration.migrate(db, upTo: 2)
        try db.execute("CREATE TABLE vault_keys (x)")
        #expect(throws: (any Error).self) { try Migration.migrate(db) }
        #expect(!db.isInTransaction)
        #expect(try Migration.currentVersion(of: db) == 2)
        // Migration 3, which would have succeeded, is not half there: the snapshots have no seal columns.
        let sealColumns = "SELECT count(*) FROM pragma_table_info('snapshots') WHERE name = 'digest'"
        #expect(try db.int64(sealColumns) == 0)
        try db.execute("DROP TABLE vault_keys")
        try Migration.migrate(db)
        #expect(try Migration.currentVersion(of: db) == Migration.latestVersion)
        #expect(try db.int64("SELECT count(*) FROM schema_migrations") == Int64(Migration.latestVersion))
    }

    @Test func migratingTwiceChangesNothing() throws {
        let directory = try TemporaryDirectory()
        let db = try Database(path: directory.file("ledger.sqlite"))
        try Migration.migrate(db)
        try Migration.migrate(db)
        #expect(try db.int64("SELECT count(*) FROM schema_migrations") == Int64(Migration.latestVersion))
        #expect(try Migration.currentVersion(of: db) == Migration.latestVersion)
    }
}
