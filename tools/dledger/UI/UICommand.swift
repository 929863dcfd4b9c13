import DownloadLedger
import Foundation

/// `dledger ui`: the download list controller, full-screen in the terminal.
enum UICommand {
    static let spec = CommandSpec(
        name: "ui",
        abstract: "The list, full-screen and live: every key is a command, with history and undo.",
        usage: "ui [--watch]",
        options: [
            ("--watch", "Do not run the downloader here (watch and steer the one 'dledger run' runs)."),
            HostOptions.option,
        ],
        discussion:
            "Runs the downloader itself unless another 'dledger run' holds the ledger: then it watches and\n"
            + "steers that one (the status line says which, with its pid). Every key that changes something\n"
            + "appends the event the same CLI command would. Press ? for every key, q to quit (downloads stop\n"
            + "cleanly and resume later). Needs a terminal on stdin and stdout (exit 64 otherwise).",
        writes: true,
        run: { try await run($0) })

    static func run(_ inv: Invocation) async throws -> Int32 {
        try inv.require([])
        let host = try HostOptions.hostName(inv)
        guard UITerminal.isInteractive else {
            throw CLIError.usage(
                "'dledger ui' needs a terminal on stdin and stdout (use 'dledger ls' or 'run')")
        }
        let ledger = try inv.context.openForWriting()
        let session = try UISession(
            ledger: ledger, color: inv.console.color, runDownloader: !inv.args.has("--watch"), host: host,
            folder: inv.context.dir)
        return await session.run()
    }
}
