/// Why the tests' PostgreSQL cluster is not there: `tools/pg-cluster start` failed, or did not end in time.
public struct PostgresClusterError: Error, CustomStringConvertible {
    /// One line for the test's issue.
    public let description: String
}
