import DownloadLedger
import Foundation
import LoopbackHTTP

extension DemoCommand {
    /// `dledger demo --ui`: the demo's files in two sections of a temporary ledger, shown in `dledger ui` with the
    /// downloader running (one file is paused, so that Enter resumes it; one fails once and is retried).
    static func ui(server: LoopbackServer, ledgerPath: String, downloads: String, inv: Invocation)
        async throws
        -> Int32
    {
        guard UITerminal.isInteractive else {
            throw CLIError.usage("'dledger demo --ui' needs a terminal on stdin and stdout")
        }
        let ledger = try Ledger(path: ledgerPath, creatingWithDirectory: downloads)
        let urls = files.map { server.url($0.0) }
        try ledger.execute(
            .add(
                urls: Array(urls[0..<3]), placement: .titled("Linux and media"), name: nil, sha256: nil,
                directory: nil))
        try ledger.execute(
            .add(
                urls: Array(urls[3...]), placement: .newSection(title: "Documents", at: nil), name: nil,
                sha256: nil, directory: nil))
        try ledger.execute(.pause(.tasks([4])))
        let session = try UISession(ledger: ledger, color: inv.console.color, runDownloader: true)
        return await session.run()
    }
}
