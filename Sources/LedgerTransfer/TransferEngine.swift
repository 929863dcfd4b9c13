import CWriteback
import Foundation
import Synchronization

/// Downloads files over HTTP(S) with libcurl's multi interface, on one thread of its own.
///
/// Beside it, a hash thread computes each file's SHA-256 while it arrives, and a few completion threads do the
/// blocking end of a transfer (fsync, linking, the directory fsync), so one file's end never stalls the others.
///
/// Bytes go only to `<directory>/.dledger/partial/<id>.part`; a finished, verified file is linked to a free name
/// in the directory, never over an existing file. The engine knows nothing of the ledger: it reports
/// ``TransferEvent``s and ephemeral ``TransferActivity``.
///
/// ```swift
/// let engine = try TransferEngine()
/// engine.start(TransferRequest(id: 7, url: "https://example.org/a.iso", directory: "/home/me/Downloads"))
/// for await event in engine.events {
///     if case .completed(_, _, let sha256, let fileName) = event { print(fileName, sha256) }
/// }
/// ```
public final class TransferEngine: Sendable {
    private let mailbox: EngineMailbox
    private let stoppedLoop = DispatchSemaphore(value: 0)
    private let joined = Mutex(false)

    /// Starts the loop thread.
    /// - Throws: ``TransferEngineError`` when libcurl cannot be initialised.
    public convenience init(config: TransferConfig = .init()) throws {
        try self.init(config: config, onEvent: nil)
    }

    /// Starts the loop thread; `onEvent`, when given, takes every event on the engine thread that emits it (the
    /// loop's or a completion thread), in place of ``events``. It must return quickly and must not call back into
    /// the engine: a terminal event is handed over under the engine's lock. The scheduler uses it to learn that a
    /// transfer has received its last byte without a hop through a task, so the next transfer starts sooner.
    ///
    /// Raises the process's soft descriptor limit to the hard one first (``DescriptorLimit/raise()``).
    package init(config: TransferConfig, onEvent: (@Sendable (TransferEvent) -> Void)?) throws {
        DescriptorLimit.raise()
        let multi = try CurlMulti()
        let mailbox = EngineMailbox(multi: multi, handler: onEvent)
        self.mailbox = mailbox
        let loop = TransferLoop(config: config, mailbox: mailbox)
        let stopped = stoppedLoop
        let thread = Thread {
            _ = cwriteback_name_thread("dledger-loop")
            loop.run()
            stopped.signal()
        }
        thread.start()
    }

    deinit {
        shutdown()
    }

    /// Starts libcurl's one-time initialisation (OpenSSL's configuration: about a millisecond) on another thread
    /// and returns at once, so that an engine made a little later, after the ledger's first command, finds it
    /// done. Optional: an engine initialises libcurl itself, waiting for a warm-up still under way.
    ///
    /// A process that called it must call ``waitForWarmUp()`` before it exits: `exit` runs OpenSSL's clean-up,
    /// which frees the locks an initialisation still under way on the other thread is using (`dledger get` on a file
    /// that is not a ledger failed at once and died of SIGSEGV about one time in a few hundred).
    public static func warmUp() {
        warmUps.enter()
        DispatchQueue.global(qos: .userInitiated).async {
            _ = CurlMulti.isReady
            warmUps.leave()
        }
    }

    /// Waits for the warm-ups started by ``warmUp()`` to end (at once when none was started or all are done).
    public static func waitForWarmUp() {
        warmUps.wait()
    }

    private static let warmUps = DispatchGroup()

    /// Every event of every transfer, in order per id, each exactly once. Single consumer; ends after
    /// ``shutdown()``.
    public var events: AsyncStream<TransferEvent> { mailbox.events }

    /// Snapshots of the running transfers, about four per second while any runs (newest kept if unread), then
    /// one empty snapshot when the last one ends.
    public var activityUpdates: AsyncStream<[TransferActivity]> { mailbox.activityUpdates }

    /// Starts (or resumes from its partial file) a transfer; ignored if that id is already running.
    public func start(_ request: TransferRequest) {
        mailbox.start(request)
    }

    /// Prepares the start of a transfer ahead, on the caller's thread: the request is checked and its partial file
    /// opened (created if new). ``start(_:)-(PreparedTransfer)`` then hands it to the loop without file system work;
    /// one never started must be discarded (``PreparedTransfer/discard()``). Nothing else is reserved: the id is not
    /// running until the start.
    public func prepare(_ request: TransferRequest) -> PreparedTransfer {
        PreparedTransfer(request)
    }

    /// Starts a transfer prepared by ``prepare(_:)``; ignored (what was opened closed) if that id is already
    /// running. Cheap enough for an ``init(config:onEvent:)`` handler to call on the engine's thread for another id
    /// than the event's: it queues the start and wakes the loop.
    public func start(_ prepared: PreparedTransfer) {
        mailbox.start(prepared)
    }

    /// Stops a transfer promptly, keeping its partial file; it then reports ``TransferEvent/stopped(id:bytes:)``.
    /// A transfer whose bytes have all arrived is already completing: it reports its `.completed` (or `.failed`).
    public func cancel(id: Int64) {
        mailbox.post(.cancel(id))
    }

    /// Pauses a transfer keeping its connection (libcurl `curl_easy_pause`): it reports ``TransferEvent/held(id:bytes:)``.
    /// ``release(id:)`` within ``TransferConfig/holdLimit`` seconds goes on with the same response
    /// (``TransferEvent/continued(id:)``); after that the connection is released and the transfer stops as with
    /// ``cancel(id:)``. A transfer between attempts, or completing, is cancelled or left to complete instead.
    public func hold(id: Int64) {
        mailbox.post(.hold(id))
    }

    /// Resumes a transfer held by ``hold(id:)`` on its kept connection; ignored when it is not held.
    public func release(id: Int64) {
        mailbox.post(.release(id))
    }

    /// Changes the shared speed limit (bytes/s, 0 = none); applies to running transfers too.
    public func setSpeedLimit(_ bytesPerSecond: Int64) {
        mailbox.post(.speedLimit(max(bytesPerSecond, 0)))
    }

    /// Changes one running transfer's own speed limit (bytes/s over all its connections; nil: none), within the
    /// shared one; ignored when it is not running.
    public func setSpeedLimit(_ bytesPerSecond: Int64?, id: Int64) {
        mailbox.post(.taskSpeedLimit(id, bytesPerSecond.map { max($0, 1) }))
    }

    /// Changes how long a held transfer keeps its connections (seconds; nil: ``TransferConfig/holdLimit``); applies
    /// to the transfers held now too.
    public func setHoldLimit(_ seconds: Double?) {
        mailbox.post(.holdLimit(seconds.map { max($0, 0) }))
    }

    /// The latest snapshot of the running transfers.
    public func activity() -> [TransferActivity] {
        mailbox.activity
    }

    /// Ids started and not yet ended by a terminal event (including those waiting to retry).
    public var running: Set<Int64> { mailbox.running }

    /// Cancels every transfer (each reports `.stopped`; those already completing finish), ends the streams and
    /// joins the engine's threads. Idempotent.
    public func shutdown() {
        mailbox.post(.shutdown)
        let mustWait = joined.withLock { joined in
            defer { joined = true }
            return !joined
        }
        if mustWait { stoppedLoop.wait() }
    }
}
