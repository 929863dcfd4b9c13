import DownloadLedger
import Foundation
import LoopbackHTTP

/// `dledger demo`: the whole lifecycle against a local server, narrated.
enum DemoCommand {
    static let spec = CommandSpec(
        name: "demo", abstract: "A narrated tour on a local test server (no network needed).",
        usage: "demo [--keep]", options: [("--keep", "Keep the temporary ledger and downloads.")],
        run: { _ in CLIError.success })
}
