import Foundation
import LoopbackHTTP
import PostgresSupport
import TestSupport
import Testing

/// What one run of the built `dledger` printed and returned.
struct Finished {
    var status: Int32
    var out: String
    var err: String

    /// stdout parsed as one JSON document.
    var json: Any? { try? JSONSerialization.jsonObject(with: Data(out.utf8), options: [.fragmentsAllowed]) }

    /// stdout parsed as JSON lines.
    var jsonLines: [[String: Any]] {
        out.split(separator: "\n").compactMap {
            try? JSONSerialization.jsonObject(with: Data($0.utf8)) as? [String: Any]
        }
    }
}

/// A temporary folder with a ledger location and a download directory, where `dledger` runs; removed at the end.
/// `dledger` sees a home of its own (`root/home`) whose download folder (`XDG_DOWNLOAD_DIR`) is `downloads`.
/// The ledger (`$DLEDGER_LEDGER`) is `root/ledger.sqlite`, or with `store: .postgres` a fresh named ledger on the
/// tests' PostgreSQL cluster, its URI carrying a password that no command may print (`DledgerSandbox+Store`).
final class DledgerSandbox: @unchecked Sendable {
    private let folder: TemporaryDirectory
    /// Where the ledger lives.
    let store: LedgerStoreKind
    /// The ledger's location as given to `dledger`: a file path, or a `postgresql://` URI.
    let ledger: String
    var root: String { folder.path }
    var downloads: String { root + "/downloads" }
    var home: String { root + "/home" }

    init(store: LedgerStoreKind = .sqlite) throws {
        folder = try TemporaryDirectory(prefix: "dledger-test-", subfolders: ["downloads", "home"])
        self.store = store
        switch store {
        case .sqlite: ledger = folder.path + "/ledger.sqlite"
        case .postgres:
            ledger = try PostgresTestCluster.freshLedger("cli") + "&password=" + Self.postgresPassword
        }
    }

    /// The built binary: next to the test bundle (`swift test` builds it first: the test target depends on it).
    static let binary: String = {
        var candidates: [String] = []
        if let exe = Bundle.main.executableURL?.deletingLastPathComponent() {
            candidates.append(exe.path + "/dledger")
        }
        candidates.append(Bundle.main.bundleURL.deletingLastPathComponent().path + "/dledger")
        candidates.append(Bundle.main.bundleURL.path + "/dledger")
        let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
            .deletingLastPathComponent()
        candidates.append(root.path + "/.build/debug/dledger")
        return candidates.first { FileManager.default.isExecutableFile(atPath: $0) } ?? candidates.last!
    }()

    /// The process, ready to run `dledger ARGS` against this sandbox's ledger (in the downloads folder).
    func process(_ args: [String], env: [String: String] = [:], cwd: String? = nil) -> Process {
        let p = Process()
        p.executableURL = URL(fileURLWithPath: Self.binary)
        p.arguments = args
        var environment = ProcessInfo.processInfo.environment
        environment["DLEDGER_LEDGER"] = ledger
        environment["NO_COLOR"] = "1"
        environment["TMPDIR"] = root
        environment["HOME"] = home
        environment["XDG_DOWNLOAD_DIR"] = downloads
        // `serve` keeps its secret in the config folder: the sandbox's, never the user's.
        environment["XDG_CONFIG_HOME"] = root + "/config"
        environment["DLEDGER_RPC_SECRET"] = nil
        for (k, v) in env { environment[k] = v }
        p.environment = environment
        p.currentDirectoryURL = URL(fileURLWithPath: cwd ?? downloads)
        return p
    }

    /// Runs `dledger ARGS` to its end.
    /// (Async, so that tests waiting for processes never block the test runner's few threads.)
    @discardableResult
    func run(_ args: String..., env: [String: String] = [:], stdin: String? = nil, cwd: String? = nil)
        async throws -> Finished
    {
        try await run(args, env: env, stdin: stdin, cwd: cwd)
    }

    @discardableResult
    func run(_ args: [String], env: [String: String] = [:], stdin: String? = nil, cwd: String? = nil)
        async throws -> Finished
    {
        let p = process(args, env: env, cwd: cwd)
        let running = try Running(p, stdin: stdin)
        let finished = await running.wait()
        expectNoSecret(finished, args)
        return finished
    }

    /// Starts `dledger ARGS` in the background.
    func start(_ args: String...) throws -> Running {
        try Running(process(args), stdin: nil)
    }

    /// The number of events in the ledger, read with `log --json`.
    func eventCount() async throws -> Int {
        try await run("log", "--json").jsonLines.count
    }

    /// A task of `ls --json`, by id.
    func task(_ id: Int) async throws -> [String: Any]? {
        let list = try await run("ls", "--json").json as? [String: Any]
        let sections = list?["sections"] as? [[String: Any]] ?? []
        return sections.flatMap { $0["tasks"] as? [[String: Any]] ?? [] }.first { ($0["id"] as? Int) == id }
    }

    func contents(_ name: String) -> [UInt8]? {
        FileManager.default.contents(atPath: downloads + "/" + name).map { Array($0) }
    }
}

/// A `dledger` process whose output is collected while it runs.
final class Running: @unchecked Sendable {
    let process: Process
    private let out = Pipe()
    private let err = Pipe()
    private let lock = NSLock()
    private var outData = Data()
    private var errData = Data()
    private var exited = false
    private var waiters: [CheckedContinuation<Void, Never>] = []
    private let readers = DispatchGroup()

    private static func drain(
        _ handle: FileHandle, group: DispatchGroup, _ append: @escaping @Sendable (Data) -> Void
    ) {
        let thread = Thread {
            while true {
                let d = handle.availableData
                if d.isEmpty { break }
                append(d)
            }
            group.leave()
        }
        thread.start()
    }

    init(_ process: Process, stdin: String?) throws {
        self.process = process
        process.standardOutput = out
        process.standardError = err
        let input = Pipe()
        process.standardInput = input
        // Blocking reads on threads of their own: FileHandle.readabilityHandler races in libdispatch on Linux
        // when it is torn down (it crashed the test process now and then).
        readers.enter()
        readers.enter()
        Self.drain(out.fileHandleForReading, group: readers) { [weak self] d in
            self?.lock.withLock { self?.outData.append(d) }
        }
        Self.drain(err.fileHandleForReading, group: readers) { [weak self] d in
            self?.lock.withLock { self?.errData.append(d) }
        }
        process.terminationHandler = { [weak self] _ in
            guard let self else { return }
            let waiting = self.lock.withLock {
                self.exited = true
                defer { self.waiters = [] }
                return self.waiters
            }
            for w in waiting { w.resume() }
        }
        try process.run()
        watch(process.processIdentifier)
        if let stdin { input.fileHandleForWriting.write(Data(stdin.utf8)) }
        try? input.fileHandleForWriting.close()
    }

    /// No test runs a process this long: one still running then is hung, and is killed so that the suite goes on
    /// (its test then fails on the status and says why on stderr) instead of hanging CI until its time runs out.
    static let watchdogSeconds = 300

    private func watch(_ pid: Int32) {
        DispatchQueue.global().asyncAfter(deadline: .now() + .seconds(Self.watchdogSeconds)) { [weak self] in
            guard let self else { return }
            let hung = self.lock.withLock {
                if !self.exited {
                    let note = "\n[killed by the test's watchdog after \(Self.watchdogSeconds) s: hung]\n"
                    self.errData.append(Data(note.utf8))
                }
                return !self.exited
            }
            if hung { kill(pid, SIGKILL) }
        }
    }

    /// What was printed so far.
    var output: String { lock.withLock { String(decoding: outData, as: UTF8.self) } }

    func interrupt() { process.interrupt() }

    /// Waits for the end and returns everything printed.
    func wait() async -> Finished {
        await withCheckedContinuation { (c: CheckedContinuation<Void, Never>) in
            let done = lock.withLock {
                if !exited { waiters.append(c) }
                return exited
            }
            if done { c.resume() }
        }
        process.waitUntilExit()
        await withCheckedContinuation { (c: CheckedContinuation<Void, Never>) in
            readers.notify(queue: .global()) { c.resume() }
        }
        return lock.withLock {
            Finished(
                status: process.terminationStatus, out: String(decoding: outData, as: UTF8.self),
                err: String(decoding: errData, as: UTF8.self))
        }
    }
}

/// Polls `condition` until it holds or `seconds` pass; returns whether it held.
func eventually(_ seconds: Double = 15, _ condition: () async throws -> Bool) async rethrows -> Bool {
    let deadline = Date().addingTimeInterval(seconds)
    while Date() < deadline {
        if try await condition() { return true }
        try? await Task.sleep(for: .milliseconds(50))
    }
    return try await condition()
}

/// Runs the sqlite3 shell (tests that tamper with a ledger without our code).
func sqlite3(_ path: String, _ sql: String) throws {
    let p = Process()
    p.executableURL = URL(fileURLWithPath: "/usr/bin/sqlite3")
    p.arguments = [path, sql]
    try p.run()
    p.waitUntilExit()
    #expect(p.terminationStatus == 0, "sqlite3 failed: \(sql)")
}
