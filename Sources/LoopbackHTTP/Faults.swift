/// Misbehaviour a ``Resource`` injects into its responses, so that clients can be tested against real failures.
///
/// Counting rules: every GET or HEAD for the path counts as a request (failures included); `dropTimes` and
/// `stallTimes` count the GET responses that carry a body. Serving the path again resets every counter.
///
/// ```swift
/// var faults = Faults()
/// faults.failFirst = 2
/// faults.failStatus = 429
/// faults.retryAfter = 1
/// server.serve("/busy", Resource(size: 1 << 20, seed: 1, faults: faults))
/// ```
public struct Faults: Sendable, Equatable {
    /// The first N requests for the path are answered with `failStatus` and a short text body.
    public var failFirst: Int
    /// The status of those failures.
    public var failStatus: Int
    /// Seconds, sent as `Retry-After` with the failures.
    public var retryAfter: Int?
    /// A raw `Retry-After` value sent in place of `retryAfter` (hostile ones: `nan`, `1e400`, `-5`).
    public var retryAfterText: String?
    /// Close the connection after N body bytes of the response (headers are always sent whole) ...
    public var dropAfterBytes: Int64?
    /// ... on the first `dropTimes` body responses only; later ones are served whole.
    public var dropTimes: Int
    /// Pace the body at this rate.
    public var throttleBytesPerSecond: Int?
    /// Answer a Range request with 200 and the whole body (and do not advertise `Accept-Ranges`).
    public var ignoreRange: Bool
    /// With `ignoreRange`: advertise `Accept-Ranges: bytes` all the same, as servers that then answer every Range
    /// with 200 and the whole body do.
    public var advertiseIgnoredRange = false
    /// Answer a satisfiable Range with the bytes this many earlier (from byte 0 at least) and a `Content-Range`
    /// that says so: a 206 for another range than the one asked.
    public var shiftRange: Int64?
    /// Announce this `Content-Length`, send the real body anyway, then close the connection.
    public var lieContentLength: Int64?
    /// After N requests the content changes to ``Resource/changedContent()`` (new bytes, ETag, Last-Modified).
    public var changeContentAfterRequests: Int?
    /// Send N body bytes, then nothing while keeping the connection open, until `stop()` or the client hangs up ...
    public var stallAfterBytes: Int64?
    /// ... on the first `stallTimes` body responses (all of them by default).
    public var stallTimes: Int
    /// Header lines sent verbatim in every response of the path, after the others (hostile ones: a NUL byte, a
    /// megabyte-long value, a malformed `Content-Range`).
    public var rawHeaders: [String] = []
    /// Send the body's stream without end: no `Content-Length` (chunked when the resource is), bytes until the
    /// client hangs up or the server stops. A Range is ignored.
    public var endlessBody = false
    /// The total announced in a 206's `Content-Range` in place of the real size (the bytes sent stay the real ones).
    public var contentRangeTotal: Int64?
    /// With `changeContentAfterRequests`: the changed content has this size instead of the same one.
    public var changedSize: Int64?
    /// Send this text as the `Content-Length` value (in place of the real one, which is not sent), e.g. `abc`.
    public var contentLengthText: String?

    /// Faults as given; the defaults inject nothing.
    public init(
        failFirst: Int = 0, failStatus: Int = 503, retryAfter: Int? = nil, dropAfterBytes: Int64? = nil,
        dropTimes: Int = 1, throttleBytesPerSecond: Int? = nil, ignoreRange: Bool = false,
        lieContentLength: Int64? = nil, changeContentAfterRequests: Int? = nil, stallAfterBytes: Int64? = nil,
        stallTimes: Int = .max
    ) {
        self.failFirst = failFirst
        self.failStatus = failStatus
        self.retryAfter = retryAfter
        self.dropAfterBytes = dropAfterBytes
        self.dropTimes = dropTimes
        self.throttleBytesPerSecond = throttleBytesPerSecond
        self.ignoreRange = ignoreRange
        self.lieContentLength = lieContentLength
        self.changeContentAfterRequests = changeContentAfterRequests
        self.stallAfterBytes = stallAfterBytes
        self.stallTimes = stallTimes
    }
}
