/// A PostgreSQL cluster of one test's own (`tools/pg-cluster start`), for a test that stops and starts the server:
/// the shared cluster (``PostgresTestCluster``) stays up for the others. Removed by ``remove()``, or by its
/// watcher once the test process is gone.
public final class PostgresOwnCluster: Sendable {
    /// The cluster's URI, without a `ledger` parameter.
    public let uri: String
    /// Its folder (data, socket, logs).
    public let folder: String

    /// Starts a new cluster.
    /// - Throws: `PostgresClusterError` when it could not be started.
    public init() throws {
        (uri, folder) = try PostgresTestCluster.startCluster()
    }

    /// The URI of ledger `name` in this cluster.
    public func ledger(_ name: String) -> String {
        uri + (uri.contains("?") ? "&" : "?") + "ledger=" + name
    }

    /// Stops the server (a fast shutdown: every session is ended), keeping the data.
    /// - Throws: `PostgresClusterError` when `tools/pg-cluster stop-server` fails.
    public func stopServer() throws { try script("stop-server") }

    /// Starts the stopped server again, on the same port and socket.
    /// - Throws: `PostgresClusterError` when `tools/pg-cluster start-server` fails.
    public func startServer() throws { try script("start-server") }

    /// Stops the cluster and removes its folder.
    public func remove() { try? script("stop") }

    /// Runs `tools/pg-cluster COMMAND FOLDER` (each of its programs has a timeout; the script gets two minutes).
    private func script(_ command: String) throws {
        _ = try PostgresTestCluster.runScript([command, folder], limit: 120)
    }
}
