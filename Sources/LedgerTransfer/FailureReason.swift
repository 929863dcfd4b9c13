/// Why a transfer failed, in a form the ledger can store (``code`` + ``detail``) and restore; its
/// ``description`` is the sentence every front end shows (``FailureReason+Sentence``).
public enum FailureReason: Sendable, Equatable, CustomStringConvertible {
    /// The server answered with this HTTP status (>= 300, not a followed redirect).
    case http(Int)
    /// The connection could not be made or broke (refused, reset, closed early, DNS).
    case connection(String)
    /// Connecting took too long, or the transfer stalled below 1 byte/s (curl's message, empty when unknown).
    case timeout(String)
    /// More redirects than ``TransferConfig/maxRedirects``.
    case tooManyRedirects
    /// The complete file does not have the expected SHA-256; the partial file was removed.
    case checksumMismatch(expected: String, actual: String)
    /// A write failed with ENOSPC.
    case diskFull
    /// Any other file-system error (permissions, a path that is not a directory, ...).
    case fileSystem(String)
    /// The server refused the range even after a restart from zero.
    case rangeNotSatisfiable
    /// The bytes received do not match the announced length.
    case sizeMismatch(expected: Int64, actual: Int64)
    /// The URL cannot be used (malformed, not http or https).
    case invalidURL(String)
    /// The TLS handshake or certificate verification failed.
    case tls(String)
    /// The response breaks HTTP (a status outside 100–599, a NUL byte or an oversized header, a `Content-Length` or
    /// `Content-Range` that cannot be read, a broken chunked encoding): the server's doing, not retried.
    case protocolViolation(String)
    /// The file would grow past `limit` bytes (``TransferConfig/maxSize``): the server announced `announced`
    /// bytes, or (nil) sent a body without a length that went past it. Not retried; the partial file goes.
    case tooLarge(limit: Int64, announced: Int64?)
    /// No file descriptor was left (EMFILE, ENFILE): retried later, without counting against
    /// ``TransferConfig/maxRetries``, so it never fails a task for good.
    case tooManyOpenFiles(String)

    /// Whether trying again later may succeed: connection faults, timeouts, 5xx, 408, 429 and short bodies.
    public var isRetryable: Bool {
        switch self {
        case .http(let status): (500...599).contains(status) || status == 408 || status == 429
        case .connection, .timeout, .sizeMismatch, .tooManyOpenFiles: true
        case .tooManyRedirects, .checksumMismatch, .diskFull, .fileSystem, .rangeNotSatisfiable,
            .invalidURL, .tls, .protocolViolation, .tooLarge:
            false
        }
    }

    /// A stable short name of the case, e.g. `"http"`, `"timeout"`, `"checksumMismatch"`.
    public var code: String {
        switch self {
        case .http: "http"
        case .connection: "connection"
        case .timeout: "timeout"
        case .tooManyRedirects: "tooManyRedirects"
        case .checksumMismatch: "checksumMismatch"
        case .diskFull: "diskFull"
        case .fileSystem: "fileSystem"
        case .rangeNotSatisfiable: "rangeNotSatisfiable"
        case .sizeMismatch: "sizeMismatch"
        case .invalidURL: "invalidURL"
        case .tls: "tls"
        case .protocolViolation: "protocolViolation"
        case .tooLarge: "tooLarge"
        case .tooManyOpenFiles: "tooManyOpenFiles"
        }
    }

    /// The payload of the case as text (`"404"`, `"expected:actual"`, a message), empty when it has none.
    public var detail: String {
        switch self {
        case .http(let status): String(status)
        case .connection(let message), .fileSystem(let message), .invalidURL(let message), .tls(let message),
            .protocolViolation(let message), .timeout(let message), .tooManyOpenFiles(let message):
            message
        case .checksumMismatch(let expected, let actual): "\(expected):\(actual)"
        case .sizeMismatch(let expected, let actual): "\(expected):\(actual)"
        case .tooLarge(let limit, let announced): announced.map { "\(limit):\($0)" } ?? "\(limit)"
        case .tooManyRedirects, .diskFull, .rangeNotSatisfiable: ""
        }
    }

    /// Restores a reason from its ``code`` and ``detail``; nil when they do not describe one.
    public init?(code: String, detail: String) {
        switch code {
        case "http":
            guard let status = Int(detail) else { return nil }
            self = .http(status)
        case "connection": self = .connection(detail)
        case "timeout": self = .timeout(detail)
        case "tooManyRedirects": self = .tooManyRedirects
        case "checksumMismatch":
            guard let (expected, actual) = Self.pair(detail) else { return nil }
            self = .checksumMismatch(expected: expected, actual: actual)
        case "diskFull": self = .diskFull
        case "fileSystem": self = .fileSystem(detail)
        case "rangeNotSatisfiable": self = .rangeNotSatisfiable
        case "sizeMismatch":
            guard let (expected, actual) = Self.pair(detail), let e = Int64(expected), let a = Int64(actual)
            else { return nil }
            self = .sizeMismatch(expected: e, actual: a)
        case "invalidURL": self = .invalidURL(detail)
        case "tls": self = .tls(detail)
        case "protocolViolation": self = .protocolViolation(detail)
        case "tooManyOpenFiles": self = .tooManyOpenFiles(detail)
        case "tooLarge":
            let parts = detail.split(separator: ":", omittingEmptySubsequences: false)
            guard parts.count <= 2, let limit = Int64(parts[0]) else { return nil }
            let announced = parts.count == 2 ? Int64(parts[1]) : nil
            if parts.count == 2 && announced == nil { return nil }
            self = .tooLarge(limit: limit, announced: announced)
        default: return nil
        }
    }

    private static func pair(_ detail: String) -> (String, String)? {
        guard let colon = detail.firstIndex(of: ":") else { return nil }
        return (String(detail[..<colon]), String(detail[detail.index(after: colon)...]))
    }
}
