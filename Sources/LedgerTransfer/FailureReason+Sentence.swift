/// The one wording of failures: every front end (`ls`, `log`, `audit`, `get`/`run`'s lines, `dledger ui`'s rows,
/// the RPC's `errorMessage`) shows a failure through ``FailureReason/sentence(code:detail:)``, so a reason reads
/// the same everywhere, and the raw ``FailureReason/code`` and ``FailureReason/detail`` stay in the JSON.
extension FailureReason {
    /// One line a user reads, never empty: `"connection closed after 960 KB of 2.4 MB"`,
    /// `"checksum mismatch: expected 55dd1a2b3c4d…, got 000000000000…"`.
    public var description: String {
        switch self {
        case .http(let status): "the server answered HTTP \(status)" + Self.phrase(status)
        case .connection(let message): Self.joined("connection failed", message)
        case .timeout(let message): Self.joined("timed out", message)
        case .tooManyRedirects: "too many redirects (the server kept sending the request elsewhere)"
        case .checksumMismatch(let expected, let actual):
            "checksum mismatch: expected \(Self.short(expected)), got \(Self.short(actual))"
        case .diskFull: "disk full: no space left for the partial file"
        case .fileSystem(let message): Self.joined("file system error", message)
        case .rangeNotSatisfiable:
            "range not satisfiable: the server refused the range even after a restart from zero"
        case .sizeMismatch(let expected, let actual):
            actual < expected
                ? "connection closed after \(Self.bytes(actual)) of \(Self.bytes(expected))"
                : "the server sent more than announced: \(Self.bytes(actual)) of \(Self.bytes(expected))"
        case .invalidURL(let message): Self.joined("not a usable http or https URL", message)
        case .tls(let message): Self.joined("TLS failed", message)
        case .protocolViolation(let message): Self.joined("the server broke HTTP", message)
        case .tooLarge(let limit, let announced?):
            "too large: the server announced \(Self.bytes(announced)), over the \(Self.bytes(limit)) maximum size"
        case .tooManyOpenFiles(let message):
            Self.joined("too many open files (waiting for descriptors to free up)", message)
        case .tooLarge(let limit, nil):
            "too large: the body went past the \(Self.bytes(limit)) maximum size without an announced length"
        }
    }

    /// The sentence of a stored failure; a code this version does not know (a newer ledger's) still reads as
    /// `"<code>: <detail>"`, and nothing is ever empty.
    public static func sentence(code: String, detail: String) -> String {
        if let reason = FailureReason(code: code, detail: detail) { return reason.description }
        let code = code.isEmpty ? "unknown error" : code
        return joined(code, detail)
    }

    private static func joined(_ head: String, _ message: String) -> String {
        message.isEmpty ? head : "\(head): \(message)"
    }

    private static func bytes(_ n: Int64) -> String { TransferActivity.formatBytes(n) }

    /// The first 12 characters of a hex digest and an ellipsis.
    private static func short(_ hex: String) -> String { hex.count > 12 ? hex.prefix(12) + "…" : hex }

    /// The reason phrase of a common status, in parentheses after a space; empty for the others.
    private static func phrase(_ status: Int) -> String {
        let phrases = [
            400: "Bad Request", 401: "Unauthorized", 403: "Forbidden", 404: "Not Found",
            405: "Method Not Allowed", 408: "Request Timeout", 410: "Gone", 429: "Too Many Requests",
            451: "Unavailable For Legal Reasons", 500: "Internal Server Error", 502: "Bad Gateway",
            503: "Service Unavailable", 504: "Gateway Timeout",
        ]
        return phrases[status].map { " (\($0))" } ?? ""
    }
}
