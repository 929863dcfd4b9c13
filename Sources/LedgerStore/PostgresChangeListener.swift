/// A connection of its own that only `LISTEN`s on a ledger's channel: every append NOTIFYs it in its transaction
/// and PostgreSQL delivers notifications on commit, so its socket becomes readable when any connection, on any
/// host, committed an append to the ledger.
///
/// Not the store's own connection: that one is used by other threads under the ledger's lock, and a notification
/// read while one of them waits for a result would sit in libpq's queue with the socket no longer readable.
final class PostgresChangeListener: ChangeListener {
    private let connection: PostgresConnection
    /// Set once a read found the connection gone: the waiter then makes a new listener (this one never reconnects
    /// by itself, so that the waiter knows to read the new socket).
    private var lost = false

    /// Connects to `location`'s server and listens on its ledger's channel.
    /// - Throws: `StoreError.cannotConnect`, `.server`.
    init(_ location: PostgresLocation) throws {
        connection = try PostgresConnection(location)
        connection.reconnects = false
        try connection.executeScript("LISTEN \(PostgresConnection.identifier(location.channel))")
    }

    var descriptor: Int32 { connection.socket }

    func drain() -> Bool {
        do {
            return try connection.notificationsArrived() > 0
        } catch {
            lost = true
            return false
        }
    }

    /// Whether the last read found the connection gone (libpq also closes its socket: `PQsocket` is then -1).
    var isLost: Bool { lost || connection.socket < 0 }
}
