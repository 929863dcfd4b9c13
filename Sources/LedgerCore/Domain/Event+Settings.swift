extension Event {
    /// The maximum download count changed (0: no limit).
    public static func maxDownloadsChanged(_ n: Int) -> Event {
        .settingChanged(.maxDownloads, .number(Int64(n)))
    }
    /// The speed limit for all downloads changed (bytes per second; 0: none).
    public static func speedLimitChanged(_ n: Int64) -> Event { .settingChanged(.speedLimit, .number(n)) }
    /// The ledger's default connections per download (0: the downloader decides).
    public static func connectionsChanged(_ n: Int) -> Event {
        .settingChanged(.connections, .number(Int64(n)))
    }
    /// The ledger's maximum file size (0: the downloader's rule).
    public static func maxSizeChanged(_ n: Int64) -> Event { .settingChanged(.maxSize, .number(n)) }
    /// The ledger's default connections to one server per download (0: the downloader's).
    public static func connectionsPerServerChanged(_ n: Int) -> Event {
        .settingChanged(.connectionsPerServer, .number(Int64(n)))
    }
    /// The ledger's default smallest piece, in bytes (0: the downloader's).
    public static func minSplitSizeChanged(_ n: Int64) -> Event { .settingChanged(.minSplitSize, .number(n)) }
    /// How long a paused transfer keeps its connections, in seconds (0: the downloader's 60).
    public static func pauseHoldChanged(_ n: Int64) -> Event { .settingChanged(.pauseHold, .number(n)) }
}
