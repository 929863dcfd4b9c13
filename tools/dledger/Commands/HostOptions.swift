import DownloadLedger
import LedgerFrontEnd

/// `--host-name NAME` of `run`, `serve` and `ui`: the downloader's name on a shared (PostgreSQL) ledger
/// (docs/postgres.md, "Several hosts: claims and leases").
enum HostOptions {
    static let option = (
        "--host-name <name>",
        "This downloader's name on a shared (PostgreSQL) ledger: its claims, its run lock and the files it\n"
            + "completes are this host's. 1 to 64 letters, digits, '.', '-', '_'. Default: $DLEDGER_HOST_NAME,\n"
            + "else the machine's host name. On a PostgreSQL ledger, --dir is the folder this host downloads into."
    )

    /// The environment variable that names the host when `--host-name` is not given.
    static let variable = "DLEDGER_HOST_NAME"

    /// The host name given (`--host-name`, else `$DLEDGER_HOST_NAME`), checked; the machine's when neither is.
    /// - Throws: `CLIError.usage` (exit 64) for a name that is not 1 to 64 letters, digits, `.`, `-`, `_`.
    static func hostName(_ inv: Invocation) throws -> String {
        let given = inv.args.value("--host-name") ?? inv.context.environment[variable]
        guard let given else { return Scheduler.defaultHostName() }
        do {
            return try Validation.hostName(given)
        } catch LedgerError.invalidValue(let why) {
            throw CLIError.usage(inv.args.value("--host-name") == nil ? "$\(variable): \(why)" : why)
        }
    }
}
