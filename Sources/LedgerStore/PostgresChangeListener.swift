/// A connection of its own that only `LISTEN`s on a ledger's channel: every append NOTIFYs it in its transaction
/// and PostgreSQL delivers notifications on commit, so its socket becomes readable when any connection, on any
/// host, committed an append to the ledger.
///
/// Not the store's own connection: that one is used by other threads under the ledger's lock, and a notification
/// read while one of them waits for a result would sit in libpq's queue with the socket no longer readable.
final class PostgresChangeListener: ChangeListener {
    private let connection: PostgresConnection

    /// Connects to `location`'s server and listens on its ledger's channel.
    /// - Throws: `StoreError.cannotConnect`, `.server`.
    init(_ location: PostgresLocation) throws {
        connection = try PostgresConnection(location)
        try connection.executeScript("LISTEN \(PostgresConnection.identifier(location.channel))")
    }

    var descriptor: Int32 { connection.socket }

    func drain() -> Bool { connection.notificationsArrived() > 0 }

    /// libpq closes the socket of a connection that dropped (`PQsocket` is then -1).
    var isLost: Bool { connection.socket < 0 }
}
