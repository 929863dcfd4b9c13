/// A credential as the log may hold it: ciphertext the ledger's vault sealed with the task's key, never the
/// secret itself. Opaque to the reducer; only the vault opens it.
public struct SealedValue: Sendable, Equatable, Hashable {
    /// The sealed value in the vault's text form (``SealedSecret/text``: task, nonce, ciphertext and tag).
    public var ciphertext: String

    public init(ciphertext: String) { self.ciphertext = ciphertext }
}

/// The value of a request header (or of a proxy's user information): in clear, or sealed when it is a
/// credential. A credential is never logged `plain`: ``TaskOptions/validated()`` refuses that.
public enum HeaderValue: Sendable, Equatable {
    case plain(String)
    case sealed(SealedValue)

    /// The clear text, or nil when sealed.
    public var plainText: String? {
        if case .plain(let text) = self { return text }
        return nil
    }
}

/// One request header a task sends, `Name: value`.
public struct HeaderField: Sendable, Equatable {
    public var name: String
    public var value: HeaderValue

    public init(name: String, value: HeaderValue) {
        self.name = name
        self.value = value
    }

    /// The header names whose values are credentials: they are never stored in clear and never shown.
    public static let credentialNames: Set<String> = ["authorization", "proxy-authorization", "cookie"]

    /// Parts of a header name that mark a credential too: services put their keys and tokens in headers of their
    /// own (`X-Api-Key`, `X-Auth-Token`, `Private-Token`, `X-CSRF-Token`, `X-Session-Id`), and a browser
    /// extension forwards whatever the page sent. Sealing a value that was not secret costs nothing; storing a
    /// secret in clear cannot be taken back.
    public static let credentialMarkers = [
        "auth", "token", "key", "secret", "passw", "session", "cookie", "csrf",
    ]

    /// Whether a header of this name carries a credential (case-insensitively: `Authorization`,
    /// `Proxy-Authorization`, `Cookie`, and any name holding one of ``credentialMarkers``). The one place that
    /// decides it.
    public static func isCredential(name: String) -> Bool {
        let lowered = name.lowercased()
        return credentialNames.contains(lowered) || credentialMarkers.contains { lowered.contains($0) }
    }

    /// Whether this header carries a credential.
    public var isCredential: Bool { Self.isCredential(name: name) }

    /// `Name: value` as outputs show it: `[redacted]` for a credential, sealed or not.
    public var redacted: String {
        guard !isCredential, case .plain(let text) = value else { return "\(name): \(TaskOptions.redaction)" }
        return "\(name): \(text)"
    }
}

/// How one task asks for its file, beyond the URL: the request options aria2 keeps per download (`header`,
/// `user-agent`, `referer`, `all-proxy`, `max-download-limit`, `split`) and the mirrors of the file. Logged
/// with the add and with each change; empty for tasks added without any.
public struct TaskOptions: Sendable, Equatable {
    /// Extra request headers, in the order given.
    public var headers: [HeaderField] = []
    public var userAgent: String?
    /// The `Referer` sent; `*` sends the task's own URL (aria2's convention). Without user information: a
    /// referer's `user:password` is kept apart, sealed (``refererUserinfo``).
    public var referer: String?
    /// The referer URL's `user:password` (as typed, percent-encoding kept), a credential: sealed, kept apart from
    /// ``referer``, put back into the `Referer` only for the request.
    public var refererUserinfo: HeaderValue?
    /// The proxy as a URL without user information (`http://proxy:3128`, `socks5h://host:1080`).
    public var proxy: String?
    /// The proxy's `user:password`, a credential: sealed, kept apart from ``proxy``.
    public var proxyUserinfo: HeaderValue?
    /// The `user:password` of the task's own URL (as typed in it, percent-encoding kept), a credential: the add
    /// takes it out of the URL and keeps it here, sealed, so the log and every output hold the URL without it.
    /// Sent only to the URL's own host (curl's login, not carried across a redirect to another host), never to a
    /// mirror.
    public var userinfo: HeaderValue?
    /// Bytes per second for this task's transfer, within the global limit; nil: none of its own.
    public var maxSpeed: Int64?
    /// Connections the transfer may use at once (aria2 `split`); nil: the ledger's default.
    public var connections: Int?
    /// Connections to one server (one URL of the task) at most (aria2 `max-connection-per-server`), in
    /// ``connectionPerServerRange``; nil: the downloader's (16).
    public var connectionsPerServer: Int?
    /// The smallest piece a transfer is split into, in bytes (aria2 `min-split-size`), in ``minSplitSizeRange``;
    /// nil: the downloader's (1 MiB). A file smaller than twice it stays on one connection.
    public var minSplitSize: Int64?
    /// Other URLs serving the same file; pieces are spread over the task's URL and these.
    public var mirrors: [String] = []
    /// The largest file this task may become (in ``DownloadList/maxSizeRange``); nil: the ledger's `max-size`.
    public var maxSize: Int64?

    /// What outputs show in place of a credential.
    public static let redaction = "[redacted]"
    /// The most connections one transfer may use (as aria2's `split`).
    public static let connectionRange = 1...64
    /// Connections to one server, as aria2 bounds `max-connection-per-server`.
    public static let connectionPerServerRange = 1...16
    /// The smallest piece, as aria2 bounds `min-split-size`: 1 MiB to 1 GiB.
    public static let minSplitSizeRange: ClosedRange<Int64> = (1 << 20)...(1 << 30)
    /// At most this many extra headers, mirrors.
    public static let maxHeaders = 64
    public static let maxMirrors = 64

    public init(
        headers: [HeaderField] = [], userAgent: String? = nil, referer: String? = nil, proxy: String? = nil,
        proxyUserinfo: HeaderValue? = nil, maxSpeed: Int64? = nil, connections: Int? = nil,
        connectionsPerServer: Int? = nil, minSplitSize: Int64? = nil, mirrors: [String] = []
    ) {
        self.headers = headers
        self.userAgent = userAgent
        self.referer = referer
        self.proxy = proxy
        self.proxyUserinfo = proxyUserinfo
        self.maxSpeed = maxSpeed
        self.connections = connections
        self.connectionsPerServer = connectionsPerServer
        self.minSplitSize = minSplitSize
        self.mirrors = mirrors
    }

    /// No option set: the task downloads as the ledger's defaults say.
    public var isEmpty: Bool { self == TaskOptions() }

    /// Whether any value is a credential (a credential header, the proxy's user information).
    public var hasCredentials: Bool {
        proxyUserinfo != nil || userinfo != nil || refererUserinfo != nil
            || headers.contains(where: \.isCredential)
    }

    /// Whether a credential is still in clear: the ledger seals it before the event is appended.
    public var hasPlainCredentials: Bool {
        if case .plain? = proxyUserinfo { return true }
        if case .plain? = userinfo { return true }
        if case .plain? = refererUserinfo { return true }
        return headers.contains { h in
            guard h.isCredential, case .plain = h.value else { return false }
            return true
        }
    }

    /// The proxy URL as outputs show it: `scheme://[redacted]@host:port` when it has user information.
    public var redactedProxy: String? {
        guard let proxy else { return nil }
        guard proxyUserinfo != nil, let (scheme, rest) = Validation.splitScheme(proxy) else { return proxy }
        return scheme + "://" + Self.redaction + "@" + rest
    }

    /// The referer as outputs show it: `scheme://[redacted]@host/…` when it has user information.
    public var redactedReferer: String? {
        guard let referer else { return nil }
        guard refererUserinfo != nil, let (scheme, rest) = Validation.splitScheme(referer) else {
            return referer
        }
        return scheme + "://" + Self.redaction + "@" + rest
    }

    /// The options as `key value` lines for `show` and `audit`, credentials redacted.
    public var redactedLines: [(key: String, value: String)] {
        var lines: [(key: String, value: String)] = headers.map { ("header", $0.redacted) }
        if let userAgent { lines.append(("user-agent", userAgent)) }
        if let referer = redactedReferer { lines.append(("referer", referer)) }
        if let proxy = redactedProxy { lines.append(("proxy", proxy)) }
        if userinfo != nil { lines.append(("login", Self.redaction)) }
        if let maxSpeed { lines.append(("max-speed", "\(maxSpeed) B/s")) }
        if let connections { lines.append(("connections", "\(connections)")) }
        if let connectionsPerServer { lines.append(("per-server", "\(connectionsPerServer)")) }
        if let minSplitSize { lines.append(("min-split", "\(minSplitSize) bytes")) }
        if let maxSize { lines.append(("max-size", "\(maxSize) bytes")) }
        lines += mirrors.map { ("mirror", $0) }
        return lines
    }
}
