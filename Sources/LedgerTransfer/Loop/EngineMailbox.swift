import Glibc
import Synchronization

/// What the engine's callers and its loop thread share: a command queue, the running set, the last activity
/// snapshot and the two stream continuations.
final class EngineMailbox: Sendable {
    enum Command: Sendable {
        case start(TransferRequest, OpenedPartial)
        case cancel(Int64)
        case hold(Int64)
        case release(Int64)
        case speedLimit(Int64)
        /// A transfer's own limit (nil: none).
        case taskSpeedLimit(Int64, Int64?)
        /// How long a held transfer keeps its connections (nil: the config's).
        case holdLimit(Double?)
        case shutdown
    }

    private struct State {
        var commands: [Command] = []
        var running: Set<Int64> = []
        var activity: [TransferActivity] = []
        var closed = false
    }

    let multi: CurlMulti
    let events: AsyncStream<TransferEvent>
    let activityUpdates: AsyncStream<[TransferActivity]>
    private let eventSink: AsyncStream<TransferEvent>.Continuation
    private let activitySink: AsyncStream<[TransferActivity]>.Continuation
    private let state = Mutex(State())
    /// Takes the events instead of `events`, on the thread that emits them, when given.
    private let handler: (@Sendable (TransferEvent) -> Void)?

    init(multi: CurlMulti, handler: (@Sendable (TransferEvent) -> Void)? = nil) {
        self.multi = multi
        self.handler = handler
        (events, eventSink) = AsyncStream.makeStream(of: TransferEvent.self, bufferingPolicy: .unbounded)
        (activityUpdates, activitySink) = AsyncStream.makeStream(
            of: [TransferActivity].self, bufferingPolicy: .bufferingNewest(1))
    }

    /// Queues a start unless that id is running or the engine is shut down. The request is checked and its
    /// partial file opened (created if new) here, on the caller's thread: creating a file can cost more than
    /// receiving a megabyte, and the loop thread is the one that moves every byte.
    func start(_ request: TransferRequest) {
        let accepted = state.withLock { state in
            !state.closed && state.running.insert(request.id).inserted
        }
        guard accepted else { return }
        let opened = OpenedPartial(request)
        let queued = state.withLock { state in
            guard !state.closed else { return false }
            state.commands.append(.start(request, opened))
            return true
        }
        if queued { multi.wakeup() }
    }

    /// Queues the start of a transfer prepared ahead (its partial file already open) unless that id is running or
    /// the engine is shut down; then what was opened is closed instead (an empty partial file removed only when the
    /// id is not running: a running transfer of the same id owns that file).
    func start(_ prepared: PreparedTransfer) {
        guard let opened = prepared.take() else { return }
        let request = prepared.request
        let outcome: (queued: Bool, running: Bool) = state.withLock { state in
            guard !state.closed else { return (false, false) }
            guard state.running.insert(request.id).inserted else { return (false, true) }
            state.commands.append(.start(request, opened))
            return (true, true)
        }
        if outcome.queued {
            multi.wakeup()
        } else {
            opened.discard(removingEmpty: !outcome.running)
        }
    }

    /// Queues a command for the loop and wakes it. Returns false once the engine is shut down.
    @discardableResult
    func post(_ command: Command) -> Bool {
        let accepted = state.withLock { state in
            guard !state.closed else { return false }
            if case .shutdown = command { state.closed = true }
            state.commands.append(command)
            return true
        }
        if accepted { multi.wakeup() }
        return accepted
    }

    func takeCommands() -> [Command] {
        state.withLock { state in
            defer { state.commands.removeAll() }
            return state.commands
        }
    }

    var running: Set<Int64> { state.withLock { $0.running } }
    var activity: [TransferActivity] { state.withLock { $0.activity } }

    /// Delivers an event; a terminal event first frees the id so the consumer may start it again at once.
    ///
    /// Called from the loop and the completion threads. For a terminal event, freeing and yielding happen under
    /// one lock, so a start of the freed id (and its `.started`) cannot overtake the terminal event in the
    /// stream. The other events of an id come from the loop alone, before it hands the id to a completion
    /// thread, so they need no lock (yielding may wake the consumer's thread: a syscall not worth holding the
    /// lock for, which `start` and the loop's every turn take).
    func emit(_ event: TransferEvent) {
        guard event.isTerminal else {
            deliver(event)
            return
        }
        state.withLock { state in
            state.running.remove(event.id)
            deliver(event)
        }
    }

    private func deliver(_ event: TransferEvent) {
        if let handler {
            handler(event)
        } else {
            eventSink.yield(event)
        }
    }

    func publish(_ activity: [TransferActivity]) {
        state.withLock { $0.activity = activity }
        activitySink.yield(activity)
    }

    /// Ends both streams; called by the loop when it exits.
    func finish() {
        state.withLock { $0.activity = [] }
        eventSink.finish()
        activitySink.finish()
    }
}

/// A start's partial file, opened off the loop thread, or why it could not be (a bad request, a file error).
/// Handed to the loop once through the mailbox's lock and used only there: hence `@unchecked Sendable`.
struct OpenedPartial: @unchecked Sendable {
    /// The partial file and a second descriptor for the hash worker, or why there is none.
    let opened: (file: PartialFile, readFD: Int32)?
    let failure: FailureReason?

    init(_ request: TransferRequest) {
        let scheme = request.url.prefix { $0 != ":" }.lowercased()
        guard scheme == "http" || scheme == "https", request.url.firstRange(of: "://") != nil else {
            (opened, failure) = (nil, .invalidURL(request.url))
            return
        }
        guard request.directory.hasPrefix("/") else {
            (opened, failure) = (nil, .fileSystem("directory is not absolute: \(request.directory)"))
            return
        }
        do {
            (opened, failure) = (try PartialFile.openWithReader(request), nil)
        } catch {
            (opened, failure) = (nil, error.reason)
        }
    }

    /// Closes the descriptors of a partial file that will not be written; with `removingEmpty`, removes the file
    /// when it holds no byte (as a stopped transfer's empty partial goes).
    func discard(removingEmpty: Bool) {
        guard let (file, readFD) = opened else { return }
        if removingEmpty && file.size == 0 { file.remove() }
        close(readFD)
    }
}
