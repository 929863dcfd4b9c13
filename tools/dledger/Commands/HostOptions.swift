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

    /// `--host NAME` of `limit` and `speed-limit`: the value of one downloader's host.
    static let settingOption = (
        "--host <name>",
        "Show or set the value of one downloader's host on a shared ledger, over the ledger's\n"
            + "('default': that host follows the ledger's again)."
    )

    /// `--host NAME` of a setting command, checked; nil when not given.
    static func settingHost(_ inv: Invocation) throws -> String? {
        guard let given = inv.args.value("--host") else { return nil }
        do {
            return try Validation.hostName(given)
        } catch LedgerError.invalidValue(let why) {
            throw CLIError.usage(why)
        }
    }

    /// What a value shown for `host` starts with.
    static func prefix(_ host: String?) -> String { host.map { "host \($0): " } ?? "" }

    /// A setting's value as given: `default` (a host's only) is nil, anything else what `parse` makes of it.
    static func value(_ raw: String, host: String?, _ parse: (String) throws -> Int64) throws -> Int64? {
        if raw == "default" {
            guard host != nil else {
                throw CLIError.usage("'default' goes with --host (0 is the ledger's default)")
            }
            return nil
        }
        return try parse(raw)
    }

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
