import DownloadLedger
import LedgerCore

/// The downloader as a front end runs it: a ``Scheduler`` configured from the user's options, the signals that
/// stop it cleanly, and a progress display for as long as it runs. `dledger run`, `get`, `serve`, `ui` and the
/// demo each start one.
///
/// ```swift
/// let session = try DownloaderSession(ledger: ledger, options: .init(jobs: 2, connections: 4))
/// let interrupted = try await session.run(untilIdle: true, progress: display)
/// ```
public final class DownloaderSession: Sendable {
    public let ledger: Ledger
    public let scheduler: Scheduler
    public let options: Options
    private let interrupt: Interrupt?

    /// - Parameter config: the engine's configuration before the options (`--connections`) apply.
    /// - Throws: `TransferEngineError` when libcurl cannot start.
    public init(ledger: Ledger, options: Options = Options(), config: TransferConfig = TransferConfig())
        throws
    {
        self.ledger = ledger
        self.options = options
        scheduler = try Scheduler(
            ledger: ledger, config: options.transferConfig(config), maxDownloads: options.jobs,
            only: options.only, host: options.host, folder: options.folder)
        scheduler.maxSize = options.maxSize
        scheduler.hooks = options.hooks
        interrupt = options.handlesSignals ? Interrupt() : nil
    }

    /// Whether a signal asked the run to stop.
    public var interrupted: Bool { interrupt?.fired ?? false }

    /// Asks the run to stop: running transfers stop cleanly (their tasks wait again, resumable).
    public func requestStop() { scheduler.requestStop() }

    /// The running transfers' progress now.
    public func currentActivity() -> [TransferActivity] { scheduler.currentActivity() }

    /// Downloads until stopped (a signal, ``requestStop()``) or, with `untilIdle`, until nothing is left to do,
    /// showing `progress` meanwhile. `whenLocked` runs once this process holds the ledger's downloader lock.
    /// - Returns: whether a signal stopped it.
    /// - Throws: `LedgerOpenError.runnerActive` when another process downloads for this ledger; store errors.
    @discardableResult
    public func run(
        untilIdle: Bool = false, progress: (any ProgressDisplay)? = nil, whenLocked: () -> Void = {}
    ) async throws -> Bool {
        let scheduler = self.scheduler
        interrupt?.install { scheduler.requestStop() }
        defer { interrupt?.remove() }
        progress?.start()
        do {
            try await scheduler.run(untilIdle: untilIdle, whenLocked: whenLocked)
        } catch {
            await progress?.stop()
            throw error
        }
        await progress?.stop()
        return interrupted
    }
}
