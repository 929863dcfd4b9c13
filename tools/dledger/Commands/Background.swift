import DownloadLedger
import Foundation
import LedgerFrontEnd

/// The demo's downloader, running in this process while the tour goes on.
final class Background: Sendable {
    let ledger: Ledger
    let session: DownloaderSession
    private let task: Task<Void, Error>

    init(console: Console, ledgerPath: String) throws {
        ledger = try Ledger(path: ledgerPath)
        // One connection per file: a throttled file would otherwise be split into pieces, and a pause of a split
        // transfer stops it instead of holding its connection, which is what the tour shows.
        var config = TransferConfig()
        config.connectionsPerTask = 1
        let session = try DownloaderSession(ledger: ledger, config: config)
        self.session = session
        let progress = Progress(console: console, ledger: ledger, scheduler: session.scheduler, scope: nil)
        task = Task { try await session.run(progress: progress) }
    }

    /// Sleeps; false when Ctrl-C was pressed.
    func wait(seconds: Double) async -> Bool {
        try? await Task.sleep(for: .milliseconds(Int(seconds * 1000)))
        return !session.interrupted
    }

    /// Waits until every task is finished or failed; false when interrupted or timed out.
    func waitUntilDone(timeout: Double) async -> Bool {
        let deadline = Date().addingTimeInterval(timeout)
        while Date() < deadline && !session.interrupted {
            _ = try? ledger.refresh()
            if ledger.list.orderedTasks.allSatisfy({ $0.state == .finished || $0.state == .failed }) {
                return true
            }
            try? await Task.sleep(for: .milliseconds(100))
        }
        return false
    }

    /// Stops the downloader and waits until its stops are recorded and the progress lines are out.
    func stop() async {
        session.requestStop()
        _ = try? await task.value
    }

    func stopNow() {
        session.requestStop()
    }
}
