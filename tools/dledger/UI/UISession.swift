import DownloadLedger
import Foundation
import LedgerFrontEnd
import LedgerUI

/// One run of `dledger ui`: the event loop between the terminal, the screen model, the ledger and the
/// downloader. Keys, ticks, signals and resizes arrive on one stream and are handled in order by `run()`, the only
/// place the model changes. Not `Sendable`: everything but the input thread and the signal handlers (which reach
/// only `sink`, `stopping`, `signalCount` and the terminal) runs on the task that called `run()`.
final class UISession {
    enum Event {
        case keys([Key])
        case tick
        case resize
        /// SIGTERM, SIGINT or SIGHUP: quit cleanly.
        case signal
        /// stdin closed.
        case endOfInput
        case downloaderEnded(Error?)
    }

    let ledger: Ledger
    var model: UIModel
    private let runDownloader: Bool
    /// The downloader this `ui` runs (not with `--watch`); the session leaves the signals to this loop.
    private var session: DownloaderSession?
    private var downloader: Task<Void, Never>?
    private var lastStart = ContinuousClock.now
    /// The downloader's pid as last asked (``lockHolder()``), and when.
    private var holderCheck: (at: ContinuousClock.Instant, pid: Int32?)?
    /// Asks whose downloader holds the ledger's run lock, on one connection kept for it on a PostgreSQL ledger.
    private let watch: DownloaderWatch
    /// Whether the ledger is in PostgreSQL (shared by hosts): its run lock is asked of the server.
    private var isShared: Bool { PostgresLocation.isPostgres(ledger.path) }
    private let events: AsyncStream<Event>
    private let sink: AsyncStream<Event>.Continuation
    private let stopping = Flag()
    private var signals: [DispatchSourceSignal] = []
    private let signalCount = SignalCount()
    private var dirty = true
    private var lastHead: Int64 = -1
    private var hadActivity = false
    /// On a shared ledger, what the other hosts' downloaders published, and when it was read.
    private var otherHosts: (at: ContinuousClock.Instant, activity: [TransferActivity])?
    private let disk = UIDiskProgress()
    /// Statistics for `ledger-bench ui`: screens composed, lines written.
    private(set) var frames = 0

    /// - Parameters:
    ///   - host: the downloader's host name (`--host-name`); nil: the machine's.
    ///   - folder: on a shared ledger, the folder the downloader puts every task in (`--dir`).
    init(ledger: Ledger, color: Bool, runDownloader: Bool, host: String? = nil, folder: String? = nil) throws
    {
        self.ledger = ledger
        self.runDownloader = runDownloader
        model = UIModel(color: color)
        watch = DownloaderWatch(ledgerPath: ledger.path, host: host)
        (events, sink) = AsyncStream<Event>.makeStream(bufferingPolicy: .unbounded)
        model.formatTime = { Format.local($0) }
        let now = ledger.now()
        model.now = now
        model.utcOffsetSeconds = Format.utcOffset(at: now)
        model.ledgerIsNew = !ledger.isOnDisk
        if runDownloader {
            session = try DownloaderSession(
                ledger: ledger, options: .init(handlesSignals: false, host: host, folder: folder))
        } else {
            model.runner = .nobody
        }
    }

    /// Runs until the user quits (or a signal asks to). Returns the exit status.
    func run() async -> Int32 {
        let terminal: UITerminal
        do {
            terminal = try UITerminal()
        } catch {
            FileHandle.standardError.write(Data("error: \(error)\n".utf8))
            return CLIError.failure
        }
        installSignals(terminal)
        startInput()
        let ticker = Task { [sink] in
            while !Task.isCancelled {
                try? await Task.sleep(for: .milliseconds(100))
                sink.yield(.tick)
            }
        }
        // Another process's change shown at once where the store announces it (PostgreSQL's NOTIFY), not at the
        // next tick; on SQLite the ticks' look at the file stays what finds it.
        let follower = Task { [sink, ledger] in
            for await _ in ledger.headChanges(pollInterval: .seconds(3600)) { sink.yield(.tick) }
        }
        let size = terminal.size()
        model.resize(columns: size.columns, rows: size.rows)
        showLatest()
        startDownloader()
        render(terminal)
        var status = CLIError.success
        loop: for await event in events {
            switch event {
            case .keys(let keys):
                dirty = true
                for key in keys {
                    if perform(model.handle(key)) { break loop }
                }
            case .tick:
                tick()
            case .resize:
                let size = terminal.size()
                model.resize(columns: size.columns, rows: size.rows)
                terminal.invalidate()
                dirty = true
            case .signal:
                status = CLIError.interrupted
                break loop
            case .endOfInput:
                break loop
            case .downloaderEnded(let error):
                downloaderEnded(error)
            }
            render(terminal)
        }
        ticker.cancel()
        follower.cancel()
        stopping.set()
        session?.requestStop()
        await downloader?.value
        terminal.restore()
        for s in signals { s.cancel() }
        return status
    }

    private func render(_ terminal: UITerminal) {
        guard dirty else { return }
        dirty = false
        frames += 1
        terminal.draw(model.lines())
    }

    /// On a shared (PostgreSQL) ledger, the transfers other hosts' downloaders publish, read at most every
    /// ``UIDiskProgress/interval`` (as often as they publish); nothing on a SQLite ledger.
    private func otherHostsActivity() -> [TransferActivity] {
        guard isShared else { return [] }
        let now = ContinuousClock.now
        if let otherHosts, now - otherHosts.at < UIDiskProgress.interval { return otherHosts.activity }
        let read = ledger.otherHostsActivity(besides: ledger.hostName)
        otherHosts = (now, read)
        return read
    }

    /// Other processes' changes, the downloader's progress, the clock.
    private func tick() {
        // The screen lets go of its list while the ledger folds, so that the fold works in place.
        model.releaseList()
        _ = try? ledger.refresh()
        if showLatest() { dirty = true }
        let activity: [TransferActivity]?
        switch model.runner {
        case .elsewhere:
            // Another process moves the bytes: what it publishes, a few times a second; what its partial files
            // show when it publishes nothing readable.
            let now = ContinuousClock.now
            if !disk.isDue(now) {
                activity = nil
            } else if let published = ledger.activityBoard.read() {
                disk.reset()
                disk.markSampled(now)
                activity = published
            } else {
                activity = disk.sample(model.shownDownloading(), in: model.list, now: now)
            }
        case .starting:
            activity = session?.currentActivity() ?? []
        case .here, .nobody:
            disk.reset()
            activity = (session?.currentActivity() ?? []) + otherHostsActivity()
        }
        if let activity, !activity.isEmpty || hadActivity {
            model.setActivity(activity)
            hadActivity = !activity.isEmpty
            dirty = true
        }
        model.now = ledger.now()
        showOutage()
        let isNew = !ledger.isOnDisk
        if model.ledgerIsNew != isNew {
            model.ledgerIsNew = isNew
            dirty = true
        }
        if session != nil, downloader == nil, ledger.isOnDisk {
            startDownloader()
            dirty = true
        }
        updateRunner()
    }

    /// What `run`'s status line says while the ledger's database is out of reach (``OutageStatus/line(now:)``), in
    /// the header: this process's downloader's facts that wait, or, watching, the store's next try.
    private func showOutage() {
        let status =
            session?.scheduler.outageStatus
            ?? ledger.storeOutage.map {
                OutageStatus(waitingFacts: 0, reason: $0.reason, since: $0.since, nextTry: $0.nextTry)
            }
        let line = status?.line()
        if line != model.outage {
            model.outage = line
            dirty = true
        }
    }

    /// Gives the model the ledger's list and the events folded since the list it shows, so that it counts and
    /// indexes only what they changed (after a long gap, or when the log cannot be read, it counts everything).
    /// - Returns: whether the list changed.
    @discardableResult
    func showLatest() -> Bool {
        let list = ledger.list
        let changed = list.head != lastHead
        lastHead = list.head
        let from = model.shownHead
        var entries: [LoggedEntry]?
        if list.head > from, list.head - from <= 256 {
            entries = try? ledger.log(after: from, limit: Int(list.head - from))
        }
        model.setList(list, after: entries)
        return changed
    }

    // MARK: - The downloader

    private func startDownloader() {
        guard let session else { return }
        // A new ledger stays off the disk, its lock file too, until the user adds something: the downloader
        // starts then (`tick`).
        guard ledger.isOnDisk else {
            model.runner = .nobody
            return
        }
        lastStart = .now
        // A retry while another process downloads keeps saying so until this one holds the lock.
        if case .elsewhere = model.runner {} else { model.runner = .starting }
        let sink = self.sink
        downloader = Task {
            do {
                try await session.run()
                sink.yield(.downloaderEnded(nil))
            } catch {
                sink.yield(.downloaderEnded(error))
            }
        }
    }

    private func downloaderEnded(_ error: Error?) {
        dirty = true
        guard !stopping.isSet else { return }
        if case LedgerOpenError.runnerActive(let pid, _)? = error {
            model.runner = .elsewhere(pid: pid)
        } else if let error {
            model.report("the downloader stopped: \(CLIError(error))", isError: true)
            model.runner = .nobody
        }
    }

    /// Whose downloader runs: ours once it holds the lock; when another one did, try again (every two seconds at
    /// most) once it is no longer seen holding it, or in `--watch` mode show the pid of whoever holds it.
    private func updateRunner() {
        // Read only when it can change what is shown: ours holds the lock until it ends.
        if case .here = model.runner { return }
        let pid = lockHolder()
        switch model.runner {
        case .starting:
            if pid == getpid() {
                model.runner = .here(pid: pid!)
                dirty = true
            }
        case .elsewhere(let shown):
            if runDownloader, let pid, pid == getpid() {
                model.runner = .here(pid: pid)
                dirty = true
            } else if runDownloader, let pid, pid != shown {
                // Another downloader took over from the one shown.
                model.runner = .elsewhere(pid: pid)
                dirty = true
            } else if runDownloader, pid == nil, ContinuousClock.now - lastStart > .seconds(2) {
                // Nobody is seen holding the lock (it ended, or the server hides who): try to take it, every two
                // seconds at most; not while another holds it (a try is a session on a PostgreSQL ledger).
                startDownloader()
                dirty = true
            } else if !runDownloader, pid != shown {
                model.runner = pid.map { .elsewhere(pid: $0) } ?? .nobody
                dirty = true
            }
        case .nobody:
            if !runDownloader, let pid {
                model.runner = .elsewhere(pid: pid)
                dirty = true
            }
        case .here: break
        }
    }

    /// The pid of the downloader that holds the ledger's run lock (``DownloaderWatch``). A SQLite ledger's lock
    /// file is read every tick; a PostgreSQL ledger's lock is asked of the server (on one connection kept for it) at
    /// most every second, the answer kept meanwhile, and kept while the server cannot be reached.
    private func lockHolder() -> Int32? {
        let now = ContinuousClock.now
        if let last = holderCheck, isShared, now - last.at < .seconds(1) { return last.pid }
        let pid: Int32?
        do {
            pid = try watch.holder()
        } catch {
            pid = holderCheck?.pid
        }
        holderCheck = (now, pid)
        return pid
    }

    // MARK: - Input and signals

    private func startInput() {
        let sink = self.sink
        let stopping = self.stopping
        let thread = Thread {
            var parser = KeyParser()
            var buffer = [UInt8](repeating: 0, count: 65_536)
            while !stopping.isSet {
                var fds = pollfd(fd: STDIN_FILENO, events: Int16(POLLIN), revents: 0)
                let ready = poll(&fds, 1, parser.hasPending ? 30 : 500)
                if ready < 0 && errno != EINTR { break }
                if ready <= 0 {
                    let keys = parser.flush()
                    if !keys.isEmpty { sink.yield(.keys(keys)) }
                    continue
                }
                let n = read(STDIN_FILENO, &buffer, buffer.count)
                if n < 0 && (errno == EINTR || errno == EAGAIN) { continue }
                if n <= 0 {
                    sink.yield(.endOfInput)
                    break
                }
                let keys = parser.feed(Array(buffer[0..<n]))
                if !keys.isEmpty { sink.yield(.keys(keys)) }
            }
        }
        thread.start()
    }

    private func installSignals(_ terminal: UITerminal) {
        let sink = self.sink
        let signalCount = self.signalCount
        for sig in [SIGINT, SIGTERM, SIGHUP, SIGWINCH] {
            signal(sig, SIG_IGN)
            let source = DispatchSource.makeSignalSource(signal: sig, queue: .global())
            source.setEventHandler {
                if sig == SIGWINCH {
                    sink.yield(.resize)
                    return
                }
                if signalCount.next() == 1 {
                    sink.yield(.signal)
                } else {
                    // A second signal while stopping: give the terminal back and go now.
                    terminal.restore()
                    _exit(CLIError.interrupted)
                }
            }
            source.resume()
            signals.append(source)
        }
    }
}
