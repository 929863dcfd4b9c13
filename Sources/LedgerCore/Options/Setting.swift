/// The ledger's value settings: each one a number or a text the user sets with one command, logged as an event of
/// its own kind, undone by the value before, and kept in the projection (``DownloadList/subscript(_:)``).
///
/// To add one: a case here and its row in ``spec`` (its event kind, payload key, range, default and words), and
/// its event kind in ``EventKind``. The decoder, encoder, decide, reduce, undo, snapshots, `set`, `log` and the
/// shell completions take it from the table; what it changes (the downloader reading it) is the only other code.
public enum Setting: String, Sendable, CaseIterable {
    case maxDownloads, speedLimit, connections, maxSize, connectionsPerServer, minSplitSize, userAgent
    case pauseHold, claimLease

    /// The setting's row of the table.
    public var spec: SettingSpec { Self.table[index] }

    /// Its place in ``allCases``.
    var index: Int { Self.indexes[self]! }

    private static let indexes = Dictionary(uniqueKeysWithValues: allCases.enumerated().map { ($1, $0) })
    static let byKind = Dictionary(uniqueKeysWithValues: allCases.map { ($0.spec.kind, $0) })

    /// The table, in ``allCases`` order.
    private static let table: [SettingSpec] = allCases.map(row)

    private static func row(_ setting: Setting) -> SettingSpec {
        switch setting {
        case .maxDownloads:
            SettingSpec(
                kind: .maxDownloadsChanged, key: "max", name: "limit", unit: .count,
                range: 1...Int64(Int.max),
                subject: "maximum download count", rangeWords: "0 or more",
                help: "Downloads at the same time at most; 0: no limit.", ownCommand: true,
                already: { "maximum download count is already \($0.number)" })
        case .speedLimit:
            SettingSpec(
                kind: .speedLimitChanged, key: "bytesPerSecond", name: "speed-limit", unit: .rate,
                range: 1...Int64.max, subject: "speed limit", rangeWords: "0 or more",
                help: "Bytes per second for all downloads together; 0: none.", ownCommand: true,
                already: { "speed limit is already \($0.number) B/s" })
        case .connections:
            SettingSpec(
                kind: .connectionsChanged, key: "connections", name: "connections", unit: .count,
                range: Int64(
                    TaskOptions.connectionRange.lowerBound)...Int64(TaskOptions.connectionRange.upperBound),
                subject: "connections", rangeWords: "1 to 64, or 0 to let the downloader decide",
                help:
                    "Connections per download for tasks without their own count; 0: the downloader decides.",
                ownCommand: true,
                already: { "connections are already \($0.number)" })
        case .maxSize:
            SettingSpec(
                kind: .maxSizeChanged, key: "bytes", name: "max-size", unit: .bytes,
                range: DownloadList.maxSizeRange,
                subject: "max-size", rangeWords: "1 KB to 1 EB, or 0 for the default",
                help: "The largest file a download may become; 0: the downloader's rule.",
                already: { "max-size is already \($0.number == 0 ? "the default" : "\($0.number) bytes")" })
        case .connectionsPerServer:
            SettingSpec(
                kind: .connectionsPerServerChanged, key: "connections", name: "max-connection-per-server",
                unit: .count,
                range: Int64(
                    TaskOptions.connectionPerServerRange.lowerBound)...Int64(
                        TaskOptions.connectionPerServerRange.upperBound),
                subject: "max-connection-per-server", rangeWords: "1 to 16, or 0 for the default",
                help:
                    "Connections to one server per download for tasks without their own; 0: the downloader's.",
                already: {
                    "max-connection-per-server is already \($0.number == 0 ? "the default" : "\($0.number)")"
                })
        case .minSplitSize:
            SettingSpec(
                kind: .minSplitSizeChanged, key: "bytes", name: "min-split-size", unit: .binaryBytes,
                range: TaskOptions.minSplitSizeRange, subject: "min-split-size",
                rangeWords: "1 MiB to 1 GiB, or 0 for the default", rangeUnit: " bytes",
                help:
                    "The smallest piece a download is split into for tasks without their own; 0: the downloader's.",
                already: {
                    "min-split-size is already \($0.number == 0 ? "the default" : "\($0.number) bytes")"
                })
        case .userAgent:
            SettingSpec(
                kind: .userAgentChanged, key: "userAgent", name: "user-agent",
                unit: .text(Validation.userAgent),
                range: 0...0, subject: "user-agent", rangeWords: "",
                help: "The User-Agent downloads send unless the task has its own (add --user-agent), or\n"
                    + "'default': the downloader's.",
                already: { "user-agent is already \($0.isDefault ? "the default" : "'\($0.text)'")" })
        case .pauseHold:
            SettingSpec(
                kind: .pauseHoldChanged, key: "seconds", name: "pause-hold", unit: .seconds,
                range: DownloadList.pauseHoldRange, subject: "pause-hold",
                rangeWords: "1 to 3600 seconds, or 0 for the default",
                help: "How long a paused download keeps its connections, in seconds; 0: the downloader's.",
                already: { "pause-hold is already \($0.number == 0 ? "the default" : "\($0.number) s")" })
        case .claimLease:
            SettingSpec(
                kind: .claimLeaseChanged, key: "seconds", name: "claim-lease", unit: .seconds,
                range: DownloadList.claimLeaseRange, subject: "claim-lease",
                rangeWords: "1 to 3600 seconds, or 0 for the default (30)",
                help:
                    "How long a downloader's claim on a task of a shared ledger lasts without renewal, in\n"
                    + "seconds; 0: 30.",
                already: { "claim-lease is already \($0.number == 0 ? "the default" : "\($0.number) s")" })
        }
    }
}
