/// One request as the server received it, kept so tests can check what a client sent.
public struct RecordedRequest: Sendable, Equatable {
    /// The method, e.g. `GET`.
    public var method: String
    /// The request target as sent, e.g. `/file.bin?x=1`.
    public var path: String
    /// Every header, names lower-cased; repeated headers joined with `", "`.
    public var headers: [String: String]
    /// The raw `Range` header, if any.
    public var range: String?
    /// The raw `If-Range` header, if any.
    public var ifRange: String?

    /// A request record as given.
    public init(method: String, path: String, headers: [String: String]) {
        self.method = method
        self.path = path
        self.headers = headers
        self.range = headers["range"]
        self.ifRange = headers["if-range"]
    }
}
