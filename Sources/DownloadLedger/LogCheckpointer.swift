import CWriteback
import Foundation
import Synchronization

/// Keeps a ledger's main file current while the downloader writes: every `interval` it copies the new frames of
/// the write-ahead log into the main file (a PASSIVE checkpoint), on a thread and SQLite connection of its own.
///
/// A passive checkpoint takes no lock that a reader or a writer waits for: the scheduler's appends go on while it
/// writes, and a frame a reader still needs stays in the log until the next round. So the main file alone — what
/// `cp ledger.sqlite` copies — is never more than about `interval` (plus one round's write) behind the head,
/// instead of waiting for SQLite's own checkpoint at 1,000 pages (16 MB with our 16 KiB pages).
///
/// ```swift
/// let checkpointer = LogCheckpointer(path: ledger.path, interval: .seconds(1))
/// defer { checkpointer.stop() }   // joins the thread and closes its connection
/// ```
final class LogCheckpointer: Sendable {
    /// Set once by `stop()`.
    private let stopping = Mutex(false)
    /// Signalled by `stop()` to end the wait at once.
    private let wake = DispatchSemaphore(value: 0)
    /// Signalled by the thread once its connection is closed.
    private let done = DispatchSemaphore(value: 0)

    /// Starts the thread. The connection is opened on the first round that finds the file (a ledger not yet on
    /// disk is folded once it is).
    init(path: String, interval: Duration) {
        // At least a millisecond, at most a day.
        let milliseconds = Int(max(1, min(interval / .milliseconds(1), 86_400_000)))
        let thread = Thread { [self] in
            _ = cwriteback_name_thread("dledger-checkpt")
            loop(path: path, every: milliseconds)
            done.signal()
        }
        thread.start()
    }

    /// Ends the thread and closes its connection (it holds the file open, which would keep the last writer from
    /// leaving the file quiet). Returns once both are done.
    func stop() {
        let first = stopping.withLock { stopping in
            defer { stopping = true }
            return !stopping
        }
        guard first else { return }
        wake.signal()
        done.wait()
    }

    private func loop(path: String, every milliseconds: Int) {
        var store: (any EventStoreUpkeep)?
        while true {
            _ = wake.wait(timeout: .now() + .milliseconds(milliseconds))
            if stopping.withLock({ $0 }) { return }
            if store == nil, (try? Ledger.checkExisting(path)) == true {
                // It never commits; its checkpoints sync the log before they write the main file, and the main
                // file after.
                store = try? StoreFactory.open(path: path, durability: .facts)
            }
            _ = store?.checkpointPassive()
        }
    }
}
