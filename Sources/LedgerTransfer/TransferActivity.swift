/// Ephemeral progress of one running transfer (not a ledger event).
public struct TransferActivity: Sendable, Equatable {
    /// The task id.
    public var id: Int64
    /// Bytes received: those in the partial file (a split file's written pieces, not its length) and those
    /// gathered for its next write.
    public var bytes: Int64
    /// Bytes kept in the partial file: what a `kill -9` now would leave (a split file's piece map); at most
    /// ``bytes``.
    public var kept: Int64
    /// Size of the whole file, when the server announced it.
    public var expected: Int64?
    /// Smoothed speed in bytes per second (exponential average over about one second).
    public var speed: Double
    /// Seconds left at the current speed, when both size and speed are known.
    public var eta: Double?
    /// Human-readable progress, e.g. `"10.2 MB / 117 MB"`, or `"10.2 MB"` when the size is unknown.
    public var detail: String
    /// Connections receiving for it now (more than one once the transfer is split into pieces).
    public var connections = 1
    /// Whether a pause holds its connections (``TransferEngine/hold(id:)``).
    public var held = false
    /// The wait before its next attempt, while it waits.
    public var retry: RetryWait?

    /// Creates an activity; ``detail`` is derived from `bytes` and `expected`.
    public init(id: Int64, bytes: Int64, expected: Int64?, speed: Double, eta: Double?) {
        self.id = id
        self.bytes = bytes
        self.kept = bytes
        self.expected = expected
        self.speed = speed
        self.eta = eta
        self.detail = Self.detail(bytes: bytes, expected: expected)
    }

    /// `"10.2 MB / 117 MB"`, or `"10.2 MB"` without a size.
    public static func detail(bytes: Int64, expected: Int64?) -> String {
        guard let expected else { return formatBytes(bytes) }
        return "\(formatBytes(bytes)) / \(formatBytes(expected))"
    }

    /// Decimal units (1 KB = 1000 B): one decimal below 100, none from 100 up: `"512 B"`, `"10.2 MB"`, `"117 MB"`.
    public static func formatBytes(_ bytes: Int64) -> String {
        let (whole, tenth, unit) = byteFigure(bytes)
        guard let tenth else { return "\(whole) \(byteUnits[unit])" }
        return "\(whole).\(tenth) \(byteUnits[unit])"
    }

    /// The units of ``formatBytes(_:)``, 1000 apart.
    public static let byteUnits = ["B", "KB", "MB", "GB", "TB", "PB"]

    /// ``formatBytes(_:)`` in parts, for a caller that writes it as bytes: the whole number, the tenth (none for
    /// bytes, and from 100 up) and the unit's index in ``byteUnits``.
    public static func byteFigure(_ bytes: Int64) -> (whole: Int, tenth: Int?, unit: Int) {
        var value = Double(max(bytes, 0))
        var unit = 0
        while value >= 1000, unit < byteUnits.count - 1 {
            value /= 1000
            unit += 1
        }
        if unit == 0 { return (Int(value), nil, 0) }
        if value >= 99.95 { return (Int(value.rounded()), nil, unit) }
        let tenths = Int((value * 10).rounded())
        return (tenths / 10, tenths % 10, unit)
    }
}
