/// What to download and where; the engine knows nothing else about the task.
public struct TransferRequest: Sendable, Equatable {
    /// The ledger's task id; at most one transfer per id runs at a time.
    public var id: Int64
    /// An `http` or `https` URL.
    public var url: String
    /// The absolute download directory; nothing is ever written outside it.
    public var directory: String
    /// The user's name for the file, if any; it wins over the server's and the URL's.
    public var preferredName: String?
    /// Lowercase hex SHA-256 the finished file must have.
    public var expectedSHA256: String?
    /// ETag or Last-Modified recorded when the partial file was started, sent as `If-Range`.
    public var validator: String?
    /// The task's generation (how many times its data was reset), marked on the partial file (``PartialMark``).
    public var generation: Int
    /// Connections this transfer may use at most; nil: ``TransferConfig/connectionsPerTask``.
    public var connections: Int?
    /// Connections to one server (one URL) at most; nil: ``TransferConfig/connectionsPerServer``.
    public var connectionsPerServer: Int?
    /// The smallest piece in bytes; nil: ``TransferConfig/minPieceSize``.
    public var minPieceSize: Int64?
    /// Other URLs serving the same file; pieces are spread over `url` and these (see ``TransferConfig``).
    public var mirrors: [String] = []
    /// The file's size as resolved by an earlier attempt (the ledger's), if known for the task's current
    /// generation: a resume whose `Content-Range` announces another total is another file and restarts from zero,
    /// and a body without a length of the same file (same validator) may not grow past it.
    public var expectedSize: Int64?
    /// The largest file this transfer may become; nil: ``TransferConfig/maxSize``.
    public var maxSize: Int64?
    /// Extra request headers (`Name: value` lines, checked by the ledger: no CR, LF or NUL), sent with every
    /// request of the transfer, to the URL and to the mirrors.
    public var headers: [String] = []
    /// The `User-Agent` sent; nil: ``TransferConfig/userAgent``.
    public var userAgent: String?
    /// The `Referer` sent, if any.
    public var referer: String?
    /// The proxy every request of the transfer goes through (`http://`, `https://`, `socks4[a]://`,
    /// `socks5[h]://`, user information included), if any.
    public var proxy: String?
    /// The login for `url` (`user:password`, percent-encoded as in a URL), sent to that URL's host only: never to
    /// a mirror, nor across a redirect to another host (curl's rule for a login given apart from the URL).
    public var userinfo: String?
    /// Bytes per second for this transfer, over all its connections, within the shared limit; nil: none.
    public var maxSpeed: Int64?

    /// Creates a request.
    public init(
        id: Int64, url: String, directory: String, preferredName: String? = nil,
        expectedSHA256: String? = nil, validator: String? = nil, generation: Int = 0
    ) {
        self.generation = generation
        self.id = id
        self.url = url
        self.directory = directory
        self.preferredName = preferredName
        self.expectedSHA256 = expectedSHA256
        self.validator = validator
    }

    /// The hidden folder holding partial files: `<directory>/.dledger/partial`.
    public var partialDirectory: String { directory + "/.dledger/partial" }

    /// Where the bytes go until the file is complete: `<directory>/.dledger/partial/<id>.part`.
    public var partialPath: String { partialDirectory + "/\(id).part" }
}
