/// Why a transfer failed, in a form the ledger can store (``code`` + ``detail``) and restore.
public enum FailureReason: Sendable, Equatable, CustomStringConvertible {
    /// The server answered with this HTTP status (>= 300, not a followed redirect).
    case http(Int)
    /// The connection could not be made or broke (refused, reset, closed early, DNS).
    case connection(String)
    /// Connecting took too long, or the transfer stalled below 1 byte/s.
    case timeout
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

    /// Whether trying again later may succeed: connection faults, timeouts, 5xx, 408, 429 and short bodies.
    public var isRetryable: Bool {
        switch self {
        case .http(let status): status >= 500 || status == 408 || status == 429
        case .connection, .timeout, .sizeMismatch: true
        case .tooManyRedirects, .checksumMismatch, .diskFull, .fileSystem, .rangeNotSatisfiable,
            .invalidURL, .tls:
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
        }
    }

    /// The payload of the case as text (`"404"`, `"expected:actual"`, a message), empty when it has none.
    public var detail: String {
        switch self {
        case .http(let status): String(status)
        case .connection(let message), .fileSystem(let message), .invalidURL(let message), .tls(let message):
            message
        case .checksumMismatch(let expected, let actual): "\(expected):\(actual)"
        case .sizeMismatch(let expected, let actual): "\(expected):\(actual)"
        case .timeout, .tooManyRedirects, .diskFull, .rangeNotSatisfiable: ""
        }
    }

    /// Restores a reason from its ``code`` and ``detail``; nil when they do not describe one.
    public init?(code: String, detail: String) {
        switch code {
        case "http":
            guard let status = Int(detail) else { return nil }
            self = .http(status)
        case "connection": self = .connection(detail)
        case "timeout": self = .timeout
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
        default: return nil
        }
    }

    public var description: String {
        switch self {
        case .http(let status): "HTTP status \(status)"
        case .connection(let message): "connection failed: \(message)"
        case .timeout: "timed out"
        case .tooManyRedirects: "too many redirects"
        case .checksumMismatch(let expected, let actual): "SHA-256 is \(actual), expected \(expected)"
        case .diskFull: "disk full"
        case .fileSystem(let message): "file system: \(message)"
        case .rangeNotSatisfiable: "range not satisfiable"
        case .sizeMismatch(let expected, let actual): "received \(actual) bytes, expected \(expected)"
        case .invalidURL(let message): "invalid URL: \(message)"
        case .tls(let message): "TLS: \(message)"
        }
    }

    private static func pair(_ detail: String) -> (String, String)? {
        guard let colon = detail.firstIndex(of: ":") else { return nil }
        return (String(detail[..<colon]), String(detail[detail.index(after: colon)...]))
    }
}
