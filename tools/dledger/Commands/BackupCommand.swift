import DownloadLedger
import LedgerFrontEnd

/// `dledger backup DEST`: a consistent copy of the ledger in one file, taken while others may write.
enum BackupCommand {
    static let spec = CommandSpec(
        name: "backup",
        abstract: "Copy the ledger to DEST: one self-contained file, consistent while others write.",
        usage: "backup <dest>",
        arguments: [("<dest>", "The new file (never overwritten: an existing DEST is an error).")],
        discussion:
            "The copy holds every event committed when it began (SQLite's VACUUM INTO, one read transaction);\n"
            + "'dledger verify --ledger DEST --skip-files' checks it. Copying ledger.sqlite with cp while a\n"
            + "downloader runs can miss the newest events (they are in ledger.sqlite-wal until it ends).",
        json: true,
        run: { inv in
            try inv.require(["<dest>"])
            let given = inv.positionals[0]
            // A `postgresql://` URI names a ledger in PostgreSQL that does not exist yet (docs/postgres.md).
            let destination =
                PostgresLocation.isPostgres(given) ? given : Context.absolute(given, cwd: inv.context.cwd)
            let shown = EventStoreLocation.shown(destination)
            let ledger: Ledger
            do {
                ledger = try inv.context.openExisting()
            } catch StoreError.readOnly, StoreError.cannotOpen {
                // A ledger this user cannot write (a read-only folder): copied from a read-only connection.
                ledger = try inv.context.openForReading()
            }
            let head = try ledger.backup(to: destination)
            if inv.context.json {
                inv.console.out(JSONValue.obj(["path": .string(shown), "head": .int(head)]).rendered())
            } else {
                inv.console.info("backed up \(head) events to \(shown)")
            }
            return CLIError.success
        })
}
