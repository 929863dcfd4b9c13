import CSpawn
import CWriteback
import Foundation
import Synchronization

/// Runs hooks after outcomes, as aria2 does (`on-download-complete`, `on-download-error`): `command <GID> 1 <path>`,
/// without a shell, and hands how each ended, a `hookFinished` fact, to the scheduler, which records it with its
/// own facts (and keeps it waiting with them while the ledger's database is out of reach).
///
/// A hook never blocks the downloader: it is spawned (`posix_spawn`) in its own process group, with stdin from
/// /dev/null, default signal dispositions and no inherited descriptor beyond its output pipe, and watched from a
/// thread of its own. Past its time limit its group gets SIGTERM, then SIGKILL. Of its output (stdout and stderr)
/// only the first line is kept, sanitised; the rest is read and dropped so that it never stalls on a full pipe.
final class HookRunner: Sendable {
    /// One hook to run: what to spawn and what its fact will say.
    private struct Job: Sendable {
        var hook: Hook
        var command: String
        var id: TaskID
        var arguments: [String]
        var environment: [String]
        var limit: Duration
        var grace: Duration
    }

    private struct State {
        /// Threads running hooks (each runs the queued ones after its own).
        var running = 0
        /// Hooks waiting for a thread: at most ``maxRunning`` run at once.
        var queued: [Job] = []
        /// Those waiting in ``idle()`` for `running` to reach 0.
        var waiters: [CheckedContinuation<Void, Never>] = []
    }

    private let state = Mutex(State())
    /// Takes a hook's fact to record (on the thread that watched the hook).
    private let deliver: @Sendable (Event) -> Void
    /// How many bytes of output are kept to find the first line in.
    private static let keptOutput = 4096
    /// Hooks run at once: a thousand small files finishing together do not start a thousand processes.
    static let maxRunning = 8

    /// - Parameter deliver: takes each hook's `hookFinished` fact, on the thread that watched the hook.
    init(deliver: @escaping @Sendable (Event) -> Void) {
        self.deliver = deliver
    }

    /// Starts `command` for the outcome of task `id`, whose file is (or would have been) at `path`, or queues it
    /// behind ``maxRunning`` others; returns at once.
    func start(_ hook: Hook, command: String, id: TaskID, path: String, settings: HookSettings) {
        let job = Job(
            hook: hook, command: command, id: id, arguments: [command, GID.of(id), "1", path],
            environment: settings.hookEnvironment(id: id), limit: settings.timeLimit, grace: settings.grace)
        let launch = state.withLock { s -> Bool in
            guard s.running < Self.maxRunning else {
                s.queued.append(job)
                return false
            }
            s.running += 1
            return true
        }
        guard launch else { return }
        let thread = Thread { [self] in
            _ = cwriteback_name_thread("dledger-hook")
            var job = job
            while true {
                let (result, output) = Self.execute(
                    job.arguments, environment: job.environment, limit: job.limit, grace: job.grace)
                // Recorded with the downloader's facts, in the order they happen: waiting with them while the
                // database is out of reach. A task removed meanwhile drops the fact (``Ledger/record(_:)``).
                deliver(
                    .hookFinished(
                        id: job.id, hook: job.hook, command: job.command, result: result,
                        firstLine: Hook.firstLine(of: output)))
                let (next, waiters) = state.withLock { s -> (Job?, [CheckedContinuation<Void, Never>]) in
                    if !s.queued.isEmpty { return (s.queued.removeFirst(), []) }
                    s.running -= 1
                    guard s.running == 0 else { return (nil, []) }
                    defer { s.waiters = [] }
                    return (nil, s.waiters)
                }
                for waiter in waiters { waiter.resume() }
                guard let next else { return }
                job = next
            }
        }
        thread.start()
    }

    /// Returns when every hook started so far has ended and its fact is handed over (each ends by its time limit).
    func idle() async {
        await withCheckedContinuation { (waiter: CheckedContinuation<Void, Never>) in
            let now = state.withLock { s -> Bool in
                guard s.running > 0 else { return true }
                s.waiters.append(waiter)
                return false
            }
            if now { waiter.resume() }
        }
    }

    /// Runs the program and watches it until it ends or is killed: how it ended and the start of its output.
    private static func execute(
        _ arguments: [String], environment: [String], limit: Duration, grace: Duration
    ) -> (HookResult, [UInt8]) {
        // A library caller's override is not checked like the CLI's: a relative path would depend on the cwd.
        guard arguments[0].hasPrefix("/") else { return (.notStarted("not an absolute path"), []) }
        var fds: [Int32] = [-1, -1]
        guard cspawn_pipe_cloexec(&fds) == 0 else { return (.notStarted(errorText(errno)), []) }
        let (readEnd, writeEnd) = (fds[0], fds[1])
        defer { close(readEnd) }
        let spawned = spawn(arguments, environment: environment, output: writeEnd)
        close(writeEnd)
        guard spawned.code == 0 else { return (.notStarted(errorText(spawned.code)), []) }
        let pid = spawned.pid
        var output: [UInt8] = []
        var outputOpen = true
        var buffer = [UInt8](repeating: 0, count: 4096)
        let clock = ContinuousClock()
        let deadline = clock.now + limit
        var killAt: ContinuousClock.Instant?
        var killed = false
        var status: Int32 = 0
        while true {
            let reaped = waitpid(pid, &status, WNOHANG)
            if reaped == pid { break }
            if reaped == -1 && errno != EINTR {
                return (.notStarted("lost track of it: \(errorText(errno))"), output)
            }
            if outputOpen {
                var ready = pollfd(fd: readEnd, events: Int16(POLLIN), revents: 0)
                if poll(&ready, 1, 20) > 0 {
                    outputOpen = read(readEnd, &buffer, &output)
                }
            } else {
                usleep(20_000)
            }
            let now = clock.now
            if killAt == nil && now >= deadline {
                kill(-pid, SIGTERM)
                killAt = now + grace
            } else if let at = killAt, !killed, now >= at {
                kill(-pid, SIGKILL)
                killed = true
            }
        }
        // What it wrote before it ended (at most 64 KB more): a child it left holding the pipe, writing on, is not
        // waited for.
        if outputOpen && fcntl(readEnd, F_SETFL, O_NONBLOCK) == 0 {
            var reads = 0
            while reads < 16 && read(readEnd, &buffer, &output) { reads += 1 }
        }
        if killAt != nil {
            return (.timedOut(limitMs: Int64(limit / .milliseconds(1))), output)
        }
        let signal = status & 0x7F
        return (signal == 0 ? .exited(Int((status >> 8) & 0xFF)) : .signalled(Int(signal)), output)
    }

    /// Reads what is there, keeping the first ``keptOutput`` bytes; false at the end of the output (or an error).
    private static func read(_ fd: Int32, _ buffer: inout [UInt8], _ output: inout [UInt8]) -> Bool {
        let n = buffer.withUnsafeMutableBytes { Glibc.read(fd, $0.baseAddress, $0.count) }
        if n > 0 {
            output += buffer[0..<min(n, max(0, keptOutput - output.count))]
            return true
        }
        return n < 0 && errno == EINTR
    }

    /// Spawns the program in a process group of its own: stdin /dev/null, stdout and stderr to `output`, no other
    /// descriptor, no blocked signal, every signal at its default (the downloader ignores SIGINT, SIGTERM, SIGHUP
    /// and SIGPIPE, which a child would inherit). `code`: 0, or why it could not start (an errno value).
    private static func spawn(_ arguments: [String], environment: [String], output: Int32) -> (
        pid: pid_t, code: Int32
    ) {
        var actions = posix_spawn_file_actions_t()
        posix_spawn_file_actions_init(&actions)
        defer { posix_spawn_file_actions_destroy(&actions) }
        posix_spawn_file_actions_addopen(&actions, 0, "/dev/null", O_RDONLY, 0)
        posix_spawn_file_actions_adddup2(&actions, output, 1)
        posix_spawn_file_actions_adddup2(&actions, output, 2)
        cspawn_close_from(&actions, 3)
        var attributes = posix_spawnattr_t()
        posix_spawnattr_init(&attributes)
        defer { posix_spawnattr_destroy(&attributes) }
        var none = sigset_t()
        sigemptyset(&none)
        var defaults = sigset_t()
        sigemptyset(&defaults)
        for sig in 1..<32 where sig != SIGKILL && sig != SIGSTOP { sigaddset(&defaults, Int32(sig)) }
        posix_spawnattr_setsigmask(&attributes, &none)
        posix_spawnattr_setsigdefault(&attributes, &defaults)
        posix_spawnattr_setpgroup(&attributes, 0)
        posix_spawnattr_setflags(
            &attributes, Int16(POSIX_SPAWN_SETPGROUP | POSIX_SPAWN_SETSIGMASK | POSIX_SPAWN_SETSIGDEF))
        let argv = arguments.map { strdup($0) } + [nil]
        let envp = environment.map { strdup($0) } + [nil]
        defer {
            for p in argv { free(p) }
            for p in envp { free(p) }
        }
        var pid: pid_t = 0
        let code = posix_spawn(&pid, arguments[0], &actions, &attributes, argv, envp)
        return (pid, code)
    }

    private static func errorText(_ code: Int32) -> String { String(cString: strerror(code)) }
}
