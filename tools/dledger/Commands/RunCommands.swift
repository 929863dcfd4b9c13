import DownloadLedger
import Foundation
import LedgerFrontEnd

/// `dledger get` and `dledger run`: the commands that move bytes.
enum RunCommands {
    static let get = CommandSpec(
        name: "get", abstract: "Add URLs and download them now; exit when they are finished or failed.",
        usage: "get <url>... [add options] [-j <n>] [--connections <n>]",
        arguments: [("<url>", "An http or https URL (one already in the list is downloaded as that task).")],
        options: AddCommand.placementOptions + AddCommand.requestOptions + [
            ("-j <n>", "Download at most N at a time (default: the ledger's limit)."),
            connectionsOption,
        ],
        discussion:
            "Files go to the current directory (as curl -O, wget and aria2c), or to --dir; each saved file's\n"
            + "path is printed. Exit status: 0 when all finished, 1 when some failed or were paused, 130 on Ctrl-C (the\n"
            + "tasks wait again, with their bytes: 'dledger run' resumes them with a Range request).\n"
            + "With --json: progress lines go to stderr; stdout gets one document with every task's result.",
        json: true, writes: true,
        run: { try await runGet($0) })

    static let run = CommandSpec(
        name: "run", abstract: "Run the downloader for the whole ledger (follows other dledger commands).",
        usage:
            "run [--until-idle] [-j <n>] [--connections <n>] [--max-size <size>] [--on-download-complete <path>]",
        options: [
            connectionsOption, maxSizeOption,
            ("--until-idle", "Exit when nothing is waiting or downloading."),
            ("-j <n>", "Download at most N at a time (default: the ledger's limit, see 'dledger limit')."),
            HostOptions.option,
        ] + HookOptions.runOptions,
        discussion:
            "Pause, resume, delete, move and limits given by other dledger processes take effect within a\n"
            + "second. Ctrl-C stops cleanly (exit 130): partial files stay and resume with a Range request.\n"
            + "Exit status with --until-idle: 0, or 1 when a task failed during the run.\n"
            + "With --json: progress lines go to stderr; stdout gets one summary document at the end.",
        json: true, writes: true,
        run: { try await runRun($0) })

    static let connectionsOption = (
        "--connections <n>",
        "Connections per download, 1 to 64. Given, a download whose server takes ranges is split into that\n"
            + "many pieces at once (as aria2c -x/-s); by default one that proves slow (< 64 MB/s) is split over up\n"
            + "to 8. 1 keeps every download on one connection."
    )

    static let maxSizeOption = (
        "--max-size <size>",
        "The largest file a download of this run may become (e.g. 500M, 16GiB; 1KB to 1EB), over a task's\n"
            + "own and the ledger's ('dledger set max-size'). A larger announced size fails at once, a body\n"
            + "without a length once it passes it. Default: none for an announced size, 16 GiB without one."
    )

    /// `--max-size SIZE`, checked: 1 KB to 1 EB; `default` (or none) follows the tasks and the ledger.
    static func maxSize(_ inv: Invocation) throws -> Int64? {
        try inv.args.value("--max-size").flatMap { $0 == "default" ? nil : try Format.parseSize($0) }
    }

    /// `--connections N`, checked: 1 to 64.
    static func connections(_ inv: Invocation) throws -> Int? {
        try inv.int("--connections", in: 1...64)
    }

    static func runGet(_ inv: Invocation) async throws -> Int32 {
        // As curl -O, wget and aria2c: into the current directory unless --dir says otherwise.
        let folder = inv.context.dir ?? inv.context.cwd
        let command = try AddCommand.command(inv, directory: folder)
        let jobs = try inv.int("-j", in: Numbers.jobs)
        let connections = try connections(inv)
        let maxSize = try maxSize(inv)
        try checkSavable(folder)
        // libcurl starts on another thread while the ledger takes the command.
        TransferEngine.warmUp()
        let ledger = try inv.context.openForWriting()
        var ids: [TaskID] = []
        var skipped: [(url: String, reason: String)] = []
        let json = inv.context.json
        do {
            let outcome = try ledger.execute(command)
            if !inv.console.quiet && !json { AddCommand.report(outcome, list: ledger.list, inv: inv) }
            ids = outcome.decision.added
            skipped = outcome.decision.skipped
        } catch let e as NothingAdded {
            skipped = e.skipped
        }
        try ids += existing(skipped, ledger: ledger, inv: inv)
        guard !ids.isEmpty else { throw CLIError.failed("nothing to download") }
        let scope = Set(ids)
        let result: (interrupted: Bool, failed: Set<TaskID>)
        do {
            result = try await download(
                ledger, console: inv.console, only: scope, jobs: jobs, untilIdle: true, json: json,
                connections: connections, maxSize: maxSize)
        } catch LedgerOpenError.runnerActive(let pid, _) {
            narrate(
                "another downloader (pid \(pid.map(String.init) ?? "?")) runs this ledger: watching it", inv)
            result = try await watch(ledger, console: inv.console, scope: scope, json: json)
        }
        let list = ledger.list
        let tasks = ids.compactMap { list.tasks[$0] }
        if json {
            let places = list.locations(of: Set(ids))
            inv.console.out(
                JSONValue.obj([
                    "interrupted": .bool(result.interrupted),
                    "tasks": .array(tasks.map { Output.task($0, place: places[$0.id], list: list) }),
                    "skipped": .array(
                        skipped.filter { s in !tasks.contains { $0.url == s.url } }.map {
                            .obj(["url": .string($0.url), "reason": .string($0.reason)])
                        }),
                ]).rendered(pretty: true))
        }
        if result.interrupted {
            let waiting = tasks.filter { $0.state != .finished }.map(\.id)
            inv.console.err(
                "interrupted: \(EventWords.ids(waiting)) will resume where they stopped with 'dledger run'")
            return CLIError.interrupted
        }
        for t in tasks where t.state == .finished && !json {
            inv.console.info("saved #\(t.id) \(t.filePath ?? DownloadList.shownName(t))")
        }
        let unfinished = tasks.filter { $0.state != .finished }
        for t in unfinished {
            inv.console.err(
                "#\(t.id) \(DownloadList.shownName(t)): \(t.state == .failed ? Format.failure(t.failure) : t.state.rawValue)"
            )
        }
        guard unfinished.isEmpty else {
            throw CLIError.failed("\(unfinished.count) of \(tasks.count) downloads did not finish")
        }
        return CLIError.success
    }

    /// A `get` saves into `folder` at once, so a folder this user cannot write fails in one line before anything
    /// is appended or created, as curl -O would, instead of adding tasks that then fail. A folder not there yet is
    /// judged by its nearest existing parent: the downloader makes it. (A file where the folder or a parent of it
    /// should be is refused before this, by ``AddCommand/checkDirectory(_:)``.)
    static func checkSavable(_ folder: String) throws {
        // Where the check stopped, when that is a parent of the folder asked for.
        let at = { (probe: String) in probe == folder ? "" : "\(probe): " }
        var probe = folder
        while true {
            var info = stat()
            if stat(probe, &info) == 0 {
                guard access(probe, W_OK | X_OK) == 0 else {
                    let code = errno
                    throw CLIError.failed(
                        "cannot save into \(folder): \(at(probe))\(String(cString: strerror(code)))")
                }
                return
            }
            let code = errno
            let parent = (probe as NSString).deletingLastPathComponent
            guard code == ENOENT, !parent.isEmpty, parent != probe else {
                throw CLIError.failed(
                    "cannot save into \(folder): \(at(probe))\(String(cString: strerror(code)))")
            }
            probe = parent
        }
    }

    /// Tasks a `get` names that were already in the list: downloaded as they are (resumed if paused).
    private static func existing(_ skipped: [(url: String, reason: String)], ledger: Ledger, inv: Invocation)
        throws
        -> [TaskID]
    {
        var ids: [TaskID] = []
        var toResume: [TaskID] = []
        let list = ledger.list
        for s in skipped {
            guard let id = list.task(withURL: s.url), let t = list.tasks[id] else {
                inv.console.err("skipped \(s.url): \(s.reason)")
                continue
            }
            if list.isTrashed(id) { throw LedgerError.taskInTrash(id) }
            narrate("already in the list: #\(id) (\(t.state.rawValue)) \(s.url)", inv)
            ids.append(id)
            if [.paused, .stopped, .failed].contains(t.state) { toResume.append(id) }
        }
        if !toResume.isEmpty { try ledger.execute(.resume(.tasks(toResume))) }
        return ids
    }

    static func runRun(_ inv: Invocation) async throws -> Int32 {
        let jobs = try inv.int("-j", in: Numbers.jobs)
        let connections = try connections(inv)
        let maxSize = try maxSize(inv)
        let hooks = try HookOptions.settings(inv)
        let host = try HostOptions.hostName(inv)
        try AddCommand.checkDirectory(inv.context.dir)
        try inv.require([])
        TransferEngine.warmUp()
        let ledger = try inv.context.openForWriting()
        let untilIdle = inv.args.has("--until-idle")
        let json = inv.context.json
        // No ledger yet: nothing to run, and nothing is created for it.
        guard ledger.isOnDisk || untilIdle else { throw LedgerOpenError.noLedger(ledger.path) }
        if !untilIdle {
            narrate("downloading; Ctrl-C stops (everything resumes with the next 'dledger run')", inv)
        }
        let result =
            ledger.isOnDisk
            ? try await download(
                ledger, console: inv.console, only: nil, jobs: jobs, untilIdle: untilIdle, json: json,
                connections: connections, maxSize: maxSize, hooks: hooks, host: host, folder: inv.context.dir)
            : (interrupted: false, failed: Set<TaskID>())
        let list = ledger.list
        if json {
            let live = list.orderedTasks
            var counts: [(String, JSONValue)] = []
            for state in TaskState.allCases {
                counts.append(
                    (state.rawValue, .int(live.filter { $0.state == state }.count)))
            }
            inv.console.out(
                JSONValue.obj([
                    "interrupted": .bool(result.interrupted),
                    "failed": .array(result.failed.sorted().map { .int($0) }),
                    "states": .object(counts),
                ]).rendered(pretty: true))
            if result.interrupted { return CLIError.interrupted }
            return result.failed.isEmpty ? CLIError.success : CLIError.failure
        }
        if result.interrupted {
            let waiting = list.orderedTasks.filter { $0.state.isRunnable }.count
            inv.console.err(
                "stopped: \(waiting) task\(waiting == 1 ? "" : "s") waiting, resumable with 'dledger run'")
            return CLIError.interrupted
        }
        let finished = list.orderedTasks.filter { $0.state == .finished }.count
        inv.console.info("idle: \(finished) finished, \(list.liveCount - finished) not finished")
        return result.failed.isEmpty ? CLIError.success : CLIError.failure
    }

    /// A line of narration: on stdout, or on stderr when stdout is kept for the `--json` document.
    private static func narrate(_ line: String, _ inv: Invocation) {
        if inv.context.json { inv.console.err(line) } else { inv.console.info(line) }
    }

    /// Runs the downloader with progress until idle (or stopped by Ctrl-C / SIGTERM).
    static func download(
        _ ledger: Ledger, console: Console, only: Set<TaskID>?, jobs: Int?, untilIdle: Bool,
        json: Bool = false, connections: Int? = nil, maxSize: Int64? = nil,
        hooks: HookSettings = HookSettings(), host: String? = nil, folder: String? = nil
    ) async throws -> (interrupted: Bool, failed: Set<TaskID>) {
        let session = try DownloaderSession(
            ledger: ledger,
            options: .init(
                jobs: jobs, connections: connections, maxSize: maxSize, only: only, hooks: hooks, host: host,
                folder: folder))
        let progress = Progress(
            console: console, ledger: ledger, scheduler: session.scheduler, scope: only, json: json)
        let interrupted = try await session.run(untilIdle: untilIdle, progress: progress)
        return (interrupted, progress.failed)
    }

    /// Follows another process's downloader until the tasks in `scope` are done or no longer runnable.
    static func watch(_ ledger: Ledger, console: Console, scope: Set<TaskID>, json: Bool = false) async throws
        -> (interrupted: Bool, failed: Set<TaskID>)
    {
        let interrupt = Interrupt()
        interrupt.install {}
        defer { interrupt.remove() }
        let progress = Progress(console: console, ledger: ledger, scheduler: nil, scope: scope, json: json)
        progress.start()
        while !interrupt.fired {
            try ledger.refresh()
            let list = ledger.list
            if scope.allSatisfy({ list.tasks[$0].map { !$0.state.isRunnable } ?? true }) { break }
            try? await Task.sleep(for: .milliseconds(250))
        }
        await progress.stop()
        return (interrupt.fired, progress.failed)
    }
}
