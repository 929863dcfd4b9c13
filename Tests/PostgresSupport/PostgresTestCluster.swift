import Foundation

/// The PostgreSQL server the tests use: `$DLEDGER_TEST_POSTGRES` when set (`tools/pg-cluster run -- swift test`),
/// else a throwaway cluster that `tools/pg-cluster start` makes for this test process and that a watcher stops and
/// removes once the process is gone (also after a failure or a crash). Each test takes a ledger of its own
/// (`?ledger=…`). Nothing here waits without a bound: the script gives each PostgreSQL program a timeout, and
/// the start is abandoned (its process group killed) after ``startLimit`` seconds; a cluster that did not start
/// fails each test that asks for it, with the script's message, instead of hanging or crashing the run.
public enum PostgresTestCluster {
    /// How long `tools/pg-cluster start` may take (initdb, the server's start and createdb: seconds, usually).
    static let startLimit: TimeInterval = 240

    /// The cluster's URI, without a `ledger` parameter.
    /// - Throws: `PostgresClusterError` when the cluster could not be started.
    public static var uri: String {
        get throws { try started.get() }
    }

    /// The URI of a ledger no other test uses.
    /// - Throws: `PostgresClusterError` when the cluster could not be started.
    public static func freshLedger(_ prefix: String = "t") throws -> String {
        let base = try uri
        let name =
            prefix + "_" + UUID().uuidString.lowercased().replacingOccurrences(of: "-", with: "").prefix(16)
        return base + (base.contains("?") ? "&" : "?") + "ledger=" + name
    }

    /// The one start of this process's cluster (a lazy global: the first test to ask starts it, others wait).
    static let started: Result<String, PostgresClusterError> = {
        if let given = ProcessInfo.processInfo.environment["DLEDGER_TEST_POSTGRES"], !given.isEmpty {
            return .success(given)
        }
        return Result { try start() }.mapError {
            $0 as? PostgresClusterError ?? PostgresClusterError(description: "\($0)")
        }
    }()

    /// Runs `tools/pg-cluster start --watch PID` and returns the first line it prints, the URI.
    static func start() throws -> String { try startCluster().uri }

    /// The repository's `tools/pg-cluster`.
    static var script: String {
        URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
            .deletingLastPathComponent().appendingPathComponent("tools/pg-cluster").path
    }

    /// Runs `tools/pg-cluster start --watch PID` and returns the two lines it prints: the URI and the folder.
    static func startCluster() throws -> (uri: String, folder: String) {
        let (output, _) = try runScript(["start", "--watch", "\(getpid())"], limit: startLimit)
        let lines = output.split(separator: "\n")
        guard lines.count >= 2 else {
            throw PostgresClusterError(
                description: "tools/pg-cluster start printed no URI and folder: \(output)")
        }
        return (String(lines[0]), String(lines[1]))
    }

    /// Runs `tools/pg-cluster ARGUMENTS` and returns what it printed on stdout (and stderr), given up on (its
    /// process group killed) after `limit` seconds. posix_spawn and waitpid, not Process: this runs inside a lazy
    /// global's initialiser, which many tests reach at once, and Foundation's Process never saw the script end
    /// there (the servers and watchers it starts outlive it).
    /// - Throws: `PostgresClusterError` when it fails or does not end in time, with the last lines of its stderr.
    static func runScript(_ arguments: [String], limit: TimeInterval) throws -> (out: String, err: String) {
        let name = NSTemporaryDirectory() + "pg-cluster-\(getpid())-\(UUID().uuidString)"
        let outputPath = name + ".out"
        let errorPath = name + ".err"
        defer {
            unlink(outputPath)
            unlink(errorPath)
        }
        let words = arguments.map { "'\($0)'" }.joined(separator: " ")
        let command = "exec '\(script)' \(words) > '\(outputPath)' 2> '\(errorPath)' < /dev/null"
        var attributes = posix_spawnattr_t()
        posix_spawnattr_init(&attributes)
        defer { posix_spawnattr_destroy(&attributes) }
        // A process group of its own, so that a run that takes too long is killed with everything it began.
        posix_spawnattr_setflags(&attributes, Int16(POSIX_SPAWN_SETPGROUP))
        posix_spawnattr_setpgroup(&attributes, 0)
        var pid: pid_t = 0
        let shell = ["/bin/sh", "-c", command]
        var argv = shell.map { strdup($0) } + [nil]
        defer { for pointer in argv { free(pointer) } }
        guard posix_spawn(&pid, "/bin/sh", nil, &attributes, &argv, environ) == 0 else {
            throw PostgresClusterError(description: "cannot run tools/pg-cluster")
        }
        let deadline = Date().addingTimeInterval(limit)
        var status: Int32 = 0
        while true {
            let ended = waitpid(pid, &status, WNOHANG)
            if ended == pid { break }
            if ended < 0 && errno != EINTR {
                throw PostgresClusterError(description: "waiting for tools/pg-cluster: errno \(errno)")
            }
            if Date() > deadline {
                kill(-pid, SIGKILL)
                while waitpid(pid, &status, 0) < 0 && errno == EINTR {}
                throw PostgresClusterError(
                    description: "tools/pg-cluster \(arguments[0]) did not end within \(Int(limit)) s")
            }
            usleep(20_000)
        }
        let output = String(
            decoding: FileManager.default.contents(atPath: outputPath) ?? Data(), as: UTF8.self)
        let errors = String(
            decoding: FileManager.default.contents(atPath: errorPath) ?? Data(), as: UTF8.self)
        guard status & 0x7f == 0 && (status >> 8) & 0xff == 0 else {
            let message = errors.split(separator: "\n").suffix(3).joined(separator: "; ")
            throw PostgresClusterError(
                description: "tools/pg-cluster \(arguments[0]) failed (wait status \(status)): \(message)")
        }
        return (output, errors)
    }
}
