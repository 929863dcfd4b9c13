import DownloadLedger
import Foundation

/// The demo's downloader, running in this process while the tour goes on.
final class Background: @unchecked Sendable {
    let ledger: Ledger
    let scheduler: Scheduler
    let progress: Progress
    let interrupt = Interrupt()
    private var task: Task<Void, Error>?

    init(console: Console, ledgerPath: String) throws {
        ledger = try Ledger(path: ledgerPath)
        // One connection per file: a throttled file would otherwise be split into pieces, and a pause of a split
        // transfer stops it instead of holding its connection, which is what the tour shows.
        var config = TransferConfig()
        config.connectionsPerTask = 1
        scheduler = try Scheduler(ledger: ledger, config: config)
        progress = Progress(console: console, ledger: ledger, scheduler: scheduler, scope: nil)
        interrupt.install { [scheduler] in scheduler.requestStop() }
        progress.start()
        task = Task { [scheduler] in try await scheduler.run() }
    }

    /// Sleeps; false when Ctrl-C was pressed.
    func wait(seconds: Double) async -> Bool {
        try? await Task.sleep(for: .milliseconds(Int(seconds * 1000)))
        return !interrupt.fired
    }

    /// Waits until every task is finished or failed; false when interrupted or timed out.
    func waitUntilDone(timeout: Double) async -> Bool {
        let deadline = Date().addingTimeInterval(timeout)
        while Date() < deadline && !interrupt.fired {
            _ = try? ledger.refresh()
            if ledger.list.orderedTasks.allSatisfy({ $0.state == .finished || $0.state == .failed }) {
                return true
            }
            try? await Task.sleep(for: .milliseconds(100))
        }
        return false
    }

    func stop() async {
        scheduler.requestStop()
        _ = try? await task?.value
        await progress.stop()
        interrupt.remove()
    }

    func stopNow() {
        scheduler.requestStop()
        interrupt.remove()
    }
}
