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
    /// posix_spawn and waitpid, not Process: this runs inside a lazy global's initialiser, which many tests reach
    /// at once, and Foundation's Process never saw the script end there (its watcher outlives it).
    static func start() throws -> String {
        let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
            .deletingLastPathComponent()
        let outputPath = NSTemporaryDirectory() + "pg-cluster-\(getpid()).out"
        let errorPath = NSTemporaryDirectory() + "pg-cluster-\(getpid()).err"
        defer {
            unlink(outputPath)
            unlink(errorPath)
        }
        let script = root.appendingPathComponent("tools/pg-cluster").path
        let command = "exec '\(script)' start --watch \(getpid()) > '\(outputPath)' 2> '\(errorPath)'"
        var attributes = posix_spawnattr_t()
        posix_spawnattr_init(&attributes)
        defer { posix_spawnattr_destroy(&attributes) }
        // A process group of its own, so that a start that takes too long is killed with everything it began.
        posix_spawnattr_setflags(&attributes, Int16(POSIX_SPAWN_SETPGROUP))
        posix_spawnattr_setpgroup(&attributes, 0)
        var pid: pid_t = 0
        let arguments = ["/bin/sh", "-c", command]
        var argv = arguments.map { strdup($0) } + [nil]
        defer { for pointer in argv { free(pointer) } }
        guard posix_spawn(&pid, "/bin/sh", nil, &attributes, &argv, environ) == 0 else {
            throw PostgresClusterError(description: "cannot run tools/pg-cluster")
        }
        let deadline = Date().addingTimeInterval(startLimit)
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
                    description: "tools/pg-cluster start did not end within \(Int(startLimit)) s")
            }
            usleep(20_000)
        }
        let output = String(
            decoding: FileManager.default.contents(atPath: outputPath) ?? Data(), as: UTF8.self)
        let exited = status & 0x7f == 0 && (status >> 8) & 0xff == 0
        guard exited, let first = output.split(separator: "\n").first else {
            let message = String(
                decoding: FileManager.default.contents(atPath: errorPath) ?? Data(), as: UTF8.self
            )
            .split(separator: "\n").suffix(3).joined(separator: "; ")
            throw PostgresClusterError(
                description: "tools/pg-cluster start failed (wait status \(status)): \(message)")
        }
        return String(first)
    }
}
