import Foundation
import Testing

/// What the acceptance tests need to know of a sandbox's ledger without caring which store holds it: whether it
/// exists, how `dledger` names it, and (for the few tests that edit it behind `dledger`'s back) its tables, through
/// the sqlite3 shell or psql.
extension DledgerSandbox {
    /// The password in a PostgreSQL sandbox's URI. The tests' cluster trusts local logins, so it is never checked;
    /// it is there so that every command run on that ledger is checked not to print it.
    static let postgresPassword = "sandbox-pw-7c1e9"

    /// The ledger's location as `dledger` prints it: the path, or the URI with its password masked.
    var shownLedger: String {
        ledger.replacingOccurrences(of: "password=" + Self.postgresPassword, with: "password=***")
    }

    /// Records an issue when a command's output holds the PostgreSQL password.
    func expectNoSecret(_ finished: Finished, _ args: [String]) {
        guard store == .postgres else { return }
        let secret = Self.postgresPassword
        #expect(
            !finished.out.contains(secret) && !finished.err.contains(secret), "\(args) printed the password")
    }

    /// Whether the ledger exists: the SQLite file, or the PostgreSQL ledger's schema (asked of the catalog with
    /// psql, not with `dledger`).
    func ledgerExists() throws -> Bool {
        switch store {
        case .sqlite: return FileManager.default.fileExists(atPath: ledger)
        case .postgres:
            let found = try psql(
                "SELECT count(*) FROM pg_namespace WHERE nspname = '\(postgresSchema)'", inSchema: false)
            return found != "0"
        }
    }

    /// The PostgreSQL schema of the ledger (`dledger_NAME`, docs/postgres.md).
    var postgresSchema: String {
        let name = ledger.split(separator: "&").first { $0.hasPrefix("ledger=") }?.dropFirst("ledger=".count)
        return "dledger_" + (name.map(String.init) ?? "main")
    }

    /// Runs `sql` on the ledger's own tables with the sqlite3 shell or psql, outside `dledger`.
    func editLedger(_ sql: String) throws {
        switch store {
        case .sqlite: try sqlite3(ledger, sql)
        case .postgres: _ = try psql(sql)
        }
    }

    /// The output of `sql` (a query both stores read alike) on the ledger's tables, outside `dledger`, trimmed:
    /// one line per row, columns separated by `|`.
    func query(_ sql: String) throws -> String {
        switch store {
        case .sqlite: return try sqliteText(ledger, sql)
        case .postgres: return try psql(sql)
        }
    }

    /// Every byte the store keeps of the ledger, for scans for secrets: the SQLite file and its `-wal`, or a
    /// `pg_dump` of the ledger's schema (tables and rows as the server holds them).
    func storedBytes() throws -> [Data] {
        switch store {
        case .sqlite:
            return [ledger, ledger + "-wal"].compactMap { FileManager.default.contents(atPath: $0) }
        case .postgres:
            let p = Process()
            p.executableURL = URL(fileURLWithPath: ScriptRun.which("pg_dump") ?? "/usr/bin/pg_dump")
            p.arguments = ["--no-owner", "--schema", postgresSchema, "--dbname", postgresConninfo]
            let out = Pipe()
            p.standardOutput = out
            try p.run()
            let data = out.fileHandleForReading.readDataToEndOfFile()
            p.waitUntilExit()
            #expect(p.terminationStatus == 0 && !data.isEmpty, "pg_dump failed")
            return [data]
        }
    }

    /// The URI without `ledger=`, which libpq's programs do not know.
    var postgresConninfo: String {
        let parts = ledger.split(separator: "?", maxSplits: 1)
        let query = parts.count > 1 ? parts[1].split(separator: "&").filter { !$0.hasPrefix("ledger=") } : []
        return parts[0] + "?" + query.joined(separator: "&")
    }

    /// Runs `sql` with psql on the sandbox's database (in the ledger's schema unless `inSchema` is false) and
    /// returns what it printed, trimmed (unaligned, tuples only).
    func psql(_ sql: String, inSchema: Bool = true) throws -> String {
        let statement = inSchema ? "SET search_path TO \(postgresSchema); " + sql : sql
        let (output, succeeded) = try psqlChecked(postgresConninfo, [statement])
        #expect(succeeded, "psql failed: \(sql)")
        return output
    }
}
