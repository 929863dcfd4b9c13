import Foundation

/// The PostgreSQL server the tests use: `$DLEDGER_TEST_POSTGRES` when set (`tools/pg-cluster run -- swift test`),
/// else a throwaway cluster that `tools/pg-cluster start` makes for this test process and that a watcher stops and
/// removes once the process is gone (also after a crash). Each test takes a ledger of its own (`?ledger=…`).
public enum PostgresTestCluster {
    /// The cluster's URI, without a `ledger` parameter.
    public static let uri: String = {
        if let given = ProcessInfo.processInfo.environment["DLEDGER_TEST_POSTGRES"], !given.isEmpty {
            return given
        }
        let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
            .deletingLastPathComponent()
        // posix_spawn and waitpid, not Process: this runs inside a lazy global's initialiser, which many tests
        // reach at once, and Foundation's Process never saw the script end there.
        let outputPath = NSTemporaryDirectory() + "pg-cluster-\(getpid()).out"
        defer { unlink(outputPath) }
        let script = root.appendingPathComponent("tools/pg-cluster").path
        let command = "exec '\(script)' start --watch \(getpid()) > '\(outputPath)'"
        var pid: pid_t = 0
        let arguments = ["/bin/sh", "-c", command]
        var argv = arguments.map { strdup($0) } + [nil]
        defer { for pointer in argv { free(pointer) } }
        guard posix_spawn(&pid, "/bin/sh", nil, nil, &argv, environ) == 0 else {
            fatalError("cannot run tools/pg-cluster")
        }
        var status: Int32 = 0
        while waitpid(pid, &status, 0) < 0 && errno == EINTR {}
        let data = FileManager.default.contents(atPath: outputPath) ?? Data()
        let lines = String(decoding: data, as: UTF8.self).split(separator: "\n")
        let exited = status & 0x7f == 0 && (status >> 8) & 0xff == 0
        guard exited, let first = lines.first else {
            fatalError("tools/pg-cluster start failed (wait status \(status))")
        }
        return String(first)
    }()

    /// The URI of a ledger no other test uses.
    public static func freshLedger(_ prefix: String = "t") -> String {
        let name =
            prefix + "_" + UUID().uuidString.lowercased().replacingOccurrences(of: "-", with: "").prefix(16)
        return uri + (uri.contains("?") ? "&" : "?") + "ledger=" + name
    }
}
