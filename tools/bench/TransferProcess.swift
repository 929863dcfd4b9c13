import Foundation

#if canImport(Glibc)
    import Glibc
#endif

/// What one finished command cost, as the kernel accounted it (wait4(2)), the same way for every client.
struct TransferMeasurement {
    /// Seconds from spawn to reaped exit.
    var wall: Double
    /// User plus system CPU seconds of the process (and any children it waited for).
    var cpu: Double
    /// Peak resident set size in bytes (GNU time's `%M`).
    var peakRSS: Int64
}

/// A failure of the transfer benchmark itself (a tool missing, a run that did not deliver), in one line.
struct TransferBenchError: Error, CustomStringConvertible {
    let description: String
    init(_ description: String) { self.description = description }
}

/// Spawns commands with posix_spawn and reaps them with wait4, so wall time, CPU time and peak RSS come from the
/// kernel for ours and the peers alike.
enum TransferProcess {
    /// Starts `argv` (searched in PATH) with stdin from /dev/null and stdout+stderr to `log`.
    static func spawn(_ argv: [String], log: String) throws -> pid_t {
        var actions = posix_spawn_file_actions_t()
        posix_spawn_file_actions_init(&actions)
        defer { posix_spawn_file_actions_destroy(&actions) }
        posix_spawn_file_actions_addopen(&actions, 0, "/dev/null", O_RDONLY, 0)
        posix_spawn_file_actions_addopen(&actions, 1, log, O_WRONLY | O_CREAT | O_TRUNC, 0o644)
        posix_spawn_file_actions_adddup2(&actions, 1, 2)
        // The benchmark ignores SIGINT/SIGTERM to clean up; its children must not inherit that.
        var attributes = posix_spawnattr_t()
        posix_spawnattr_init(&attributes)
        defer { posix_spawnattr_destroy(&attributes) }
        var defaults = sigset_t()
        sigemptyset(&defaults)
        sigaddset(&defaults, SIGINT)
        sigaddset(&defaults, SIGTERM)
        posix_spawnattr_setsigdefault(&attributes, &defaults)
        posix_spawnattr_setflags(&attributes, Int16(POSIX_SPAWN_SETSIGDEF))
        let environment = ProcessInfo.processInfo.environment.map { "\($0.key)=\($0.value)" }
        let cArguments = argv.map { strdup($0) } + [nil]
        let cEnvironment = environment.map { strdup($0) } + [nil]
        defer {
            for p in cArguments { free(p) }
            for p in cEnvironment { free(p) }
        }
        var pid: pid_t = 0
        let rc = posix_spawnp(&pid, argv[0], &actions, &attributes, cArguments, cEnvironment)
        guard rc == 0 else {
            throw TransferBenchError("cannot start \(argv[0]): \(String(cString: strerror(rc)))")
        }
        return pid
    }

    /// Waits for `pid`; returns its exit code (128 + signal when killed) and its resource usage.
    static func reap(_ pid: pid_t) -> (code: Int32, usage: rusage) {
        var status: Int32 = 0
        var usage = rusage()
        while wait4(pid, &status, 0, &usage) < 0 && errno == EINTR {}
        let signal = status & 0x7f
        return (signal == 0 ? (status >> 8) & 0xff : 128 + signal, usage)
    }

    /// Runs `argv` to completion under GNU time and measures it: wall by our monotonic clock, CPU by wait4
    /// (µs resolution; includes GNU time's own ~1 ms), peak RSS by GNU time's `%M`.
    ///
    /// GNU time is there for the RSS: a child spawned straight from this process (posix_spawn shares our memory
    /// until exec) inherits our high-water mark in `ru_maxrss`; a child forked by the small `time` does not.
    /// - Throws: when it cannot start or exits non-zero (the message quotes the end of its log).
    static func measure(_ argv: [String], log: String) throws -> TransferMeasurement {
        let report = log + ".time"
        // The last command's output goes before the clock starts: truncating it in the child (`O_TRUNC`) freed
        // its blocks inside the measure (after an `export` of 100,000 tasks, 12 MB: `stats` of a 1-task ledger
        // took 80 ms of wall for 19 of CPU).
        unlink(log)
        let start = now()
        let pid = try spawn(["/usr/bin/time", "-o", report, "-f", "%M"] + argv, log: log)
        let (code, usage) = reap(pid)
        let wall = now() - start
        guard code == 0 else {
            throw TransferBenchError("\(argv.joined(separator: " ")) exited \(code): \(tail(of: log))")
        }
        let text = (try? String(contentsOfFile: report, encoding: .utf8)) ?? ""
        guard let kib = text.split(separator: "\n").last.flatMap({ Int64($0) }) else {
            throw TransferBenchError("no peak RSS from /usr/bin/time: \(text.prefix(200))")
        }
        return TransferMeasurement(
            wall: wall, cpu: seconds(usage.ru_utime) + seconds(usage.ru_stime), peakRSS: kib * 1024)
    }

    /// Runs `argv` and returns what it printed.
    static func output(_ argv: [String], scratch: String) throws -> String {
        let pid = try spawn(argv, log: scratch)
        let (code, _) = reap(pid)
        let text = (try? String(contentsOfFile: scratch, encoding: .utf8)) ?? ""
        unlink(scratch)
        guard code == 0 else {
            throw TransferBenchError("\(argv.joined(separator: " ")) exited \(code): \(text.suffix(300))")
        }
        return text
    }

    /// SHA-256 of each file, by coreutils' `sha256sum` (independent of the code under test), keyed by path.
    static func sha256(of paths: [String], scratch: String) throws -> [String: String] {
        guard !paths.isEmpty else { return [:] }
        let text = try output(["sha256sum", "--"] + paths, scratch: scratch)
        var digests: [String: String] = [:]
        for line in text.split(separator: "\n") {
            let parts = line.split(separator: " ", maxSplits: 1)
            guard parts.count == 2 else { continue }
            digests[String(parts[1].drop { $0 == " " || $0 == "*" })] = String(parts[0])
        }
        return digests
    }

    /// The first line `argv` prints (a version banner), or "?" when it cannot run.
    static func firstLine(_ argv: [String], scratch: String) -> String {
        guard let text = try? output(argv, scratch: scratch) else { return "?" }
        return text.split(separator: "\n").first.map(String.init) ?? "?"
    }

    /// Monotonic seconds.
    static func now() -> Double {
        var time = timespec()
        clock_gettime(CLOCK_MONOTONIC, &time)
        return Double(time.tv_sec) + Double(time.tv_nsec) / 1e9
    }

    private static func seconds(_ value: timeval) -> Double {
        Double(value.tv_sec) + Double(value.tv_usec) / 1e6
    }

    private static func tail(of log: String) -> String {
        let text = (try? String(contentsOfFile: log, encoding: .utf8)) ?? ""
        return text.split(separator: "\n").suffix(3).joined(separator: " / ")
    }
}
