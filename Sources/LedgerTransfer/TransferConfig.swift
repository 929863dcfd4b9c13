/// Tunables of a ``TransferEngine``; the defaults suit an interactive download manager.
///
/// ```swift
/// var config = TransferConfig()
/// config.speedLimit = 2_000_000  // 2 MB/s shared by all transfers
/// let engine = try TransferEngine(config: config)
/// ```
public struct TransferConfig: Sendable {
    /// Sent as `User-Agent` on every request.
    public var userAgent = "DownloadLedger/0.1 (+libcurl)"
    /// Redirects followed before failing with ``FailureReason/tooManyRedirects``.
    public var maxRedirects = 10
    /// Retryable faults retried per ``TransferEngine/start(_:)`` before ``TransferEvent/failed(id:reason:retryable:bytes:)``.
    public var maxRetries = 5
    /// First backoff delay in seconds; doubles each retry, with jitter, capped by ``backoffCap``.
    public var backoffBase: Double = 0.5
    /// Longest wait between two attempts, also the cap of a server's `Retry-After`.
    public var backoffCap: Double = 30
    /// Seconds allowed to establish a connection.
    public var connectTimeout: Double = 15
    /// A transfer slower than 1 byte/s for this many seconds fails as ``FailureReason/timeout`` (retryable).
    public var lowSpeedTime: Double = 30
    /// Bytes per second shared by all running transfers; 0 means unlimited.
    public var speedLimit: Int64 = 0
    /// Connections one transfer may use at most (aria2's `split`); 1 keeps every transfer on one connection.
    /// ``TransferRequest/connections`` overrides it per transfer. Without a count asked (no ``splitAtOnce``, no
    /// ``TransferRequest/connections``), a slow transfer's connections ramp up towards it while each new one adds
    /// throughput, never past ``connectionsPerServer`` per URL (see docs/transfer.md, "Segments").
    public var connectionsPerTask = 16
    /// Connections one transfer opens to one server (one URL of it) at most (aria2's `max-connection-per-server`).
    public var connectionsPerServer = 16
    /// No piece smaller than this is split off, and a range shorter than twice this is not split (aria2's
    /// `min-split-size`).
    public var minPieceSize: Int64 = 1 << 20
    /// Seconds a transfer's one connection is measured, from its first byte, before it may be split; later looks
    /// come every ``splitProbe`` or 0.2 s, whichever is longer, each over the time since the one before.
    public var splitProbe: Double = 0.01
    /// Without a count asked, a split transfer's connections ramp up while each step adds throughput (``Ramp``);
    /// false: it is split straight into ``connectionsPerTask`` once it proves slow.
    public var rampConnections = true
    /// Seconds the rate of a ramping transfer is measured after each step, once the step's connections answered
    /// (``connectionsPerTask``): a step that added connections is kept growing only if they added throughput.
    public var rampWindow: Double = 0.05
    /// Split as soon as the first response shows ranges and a size, however fast the connection (aria2's way): set
    /// when the user asked for a number of connections (`dledger get/run --connections N`), and for a request
    /// with its own ``TransferRequest/connections``.
    public var splitAtOnce = false
    /// A transfer whose one connection is at least this fast (bytes/s) is not split: more connections would not
    /// make it faster but would make its hash wait for the gaps to close (see docs/transfer.md, "Segments").
    public var splitBelowSpeed: Double = 64_000_000
    /// The largest file a transfer may become (`dledger --max-size`, the ledger's `max-size` setting): a larger
    /// announced size is refused before any byte, and a body without a length fails once it passes it, both with
    /// ``FailureReason/tooLarge(limit:announced:)`` (not retried; the partial file goes). nil, the default: an
    /// announced size is taken as it is (every byte is checked against it), and a body without one stops at
    /// ``unannouncedMaxSize``. ``TransferRequest/maxSize`` overrides it per transfer.
    public var maxSize: Int64?
    /// Where a body without a length stops when no ``maxSize`` is set: 16 GiB by default, above what servers send
    /// without a length in practice (generated archives, dynamic pages), below what fills a disk unnoticed.
    public var unannouncedMaxSize: Int64 = 16 << 30
    /// Verify TLS certificates and host names. On by default; turn off only for a test server you control.
    public var verifyTLS = true

    /// Keep the partial file (a second link to the placed file) after a completion, until the caller has recorded
    /// it and removes `partialPath` itself. A caller killed between the placement and its record then finds, at the
    /// next start, the complete partial and the placed file as one file, and the engine reports the existing name
    /// instead of placing a copy. Off by default: the partial goes at once.
    public var keepPlacedPartials = false
    /// The ledger's file (absolute): in the folder it lies in, no download is placed under its name or a name that
    /// starts with it and `-` or `.` (`-wal`, `-journal`, `.lock`, `.new-…`): SQLite would take such a file for
    /// the ledger's own, and a clean-up for a leftover of ours.
    public var ledgerPath: String?

    /// Seconds a paused transfer keeps its connection (``TransferEngine/hold(id:)``): resumed sooner, it goes on
    /// with the same response; later, the connection is released and the transfer ends as `.stopped`, to resume
    /// with a Range request.
    public var holdLimit: Double = 60

    /// The defaults.
    public init() {}
}
