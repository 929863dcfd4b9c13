import Foundation

/// The TCP way to a test cluster, whose URI names a unix socket folder (`postgresql:///dledger?host=…&port=…&user=…`):
/// the cluster also listens on 127.0.0.1 at that port, which a test reaches directly or through a relay of its own.
///
/// ```swift
/// let address = try PostgresTCPAddress(cluster.uri)
/// let relay = try TCPRelay(to: address.port)
/// let viaRelay = address.uri(port: relay.port, ledger: "takeover")
/// ```
public struct PostgresTCPAddress: Sendable {
    /// The port the cluster listens on.
    public let port: UInt16
    /// The user its URI logs in as.
    public let user: String
    /// The URI's `ledger` parameter; nil when it has none.
    public let ledger: String?

    /// Reads the port, the user and the ledger of a test cluster's URI.
    /// - Throws: `PostgresClusterError` when the URI names no port or no user.
    public init(_ uri: String) throws {
        let items =
            URLComponents(string: uri.replacingOccurrences(of: "postgresql:///", with: "http://x/"))?
            .queryItems ?? []
        func item(_ name: String) -> String? { items.first { $0.name == name }?.value }
        guard let port = item("port").flatMap({ UInt16($0) }), let user = item("user") else {
            throw PostgresClusterError(description: "no port or user in the cluster's URI \(uri)")
        }
        self.port = port
        self.user = user
        ledger = item("ledger")
    }

    /// The URI of ledger `ledger` over TCP to 127.0.0.1 at `port` (the cluster's own when nil), without TLS.
    public func uri(port: UInt16? = nil, ledger: String) -> String {
        "postgresql://\(user)@127.0.0.1:\(port ?? self.port)/dledger?sslmode=disable&ledger=\(ledger)"
    }
}
