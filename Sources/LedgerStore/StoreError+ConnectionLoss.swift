extension StoreError {
    /// Whether the error says the store's server is out of reach (it restarted, the network is down, it refuses
    /// connections for now) rather than that the request was wrong: the same request may succeed once it is back.
    /// `.cannotConnect`, and the server's SQLSTATE classes 08 (connection exception) and 57P (the server shutting
    /// down or restarting: `admin_shutdown`, `crash_shutdown`, `cannot_connect_now`).
    public var isConnectionLoss: Bool {
        switch self {
        case .cannotConnect: true
        case .server(_, let state, _): state.hasPrefix("08") || state.hasPrefix("57P")
        default: false
        }
    }

    /// Whether `error` is a ``StoreError`` that ``isConnectionLoss``.
    public static func isConnectionLoss(_ error: any Error) -> Bool {
        (error as? StoreError)?.isConnectionLoss ?? false
    }
}
