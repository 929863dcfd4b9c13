extension Validation {
    /// Headers the downloader itself sets for ranges and bodies: a task may not send its own.
    static let reservedHeaders: Set<String> = ["range", "if-range", "content-length", "transfer-encoding"]

    /// A header line `Name: value`: the name an HTTP token of at most 256 bytes, the value at most 8 KiB with no
    /// control character but tab (no CR, LF or NUL can split a request). The value is trimmed of spaces and tabs.
    /// - Throws: `LedgerError.invalidValue` naming the problem.
    public static func header(_ line: String) throws -> HeaderField {
        guard let colon = line.firstIndex(of: ":") else {
            throw LedgerError.invalidValue("not a header '\(printable(line))': give it as 'Name: value'")
        }
        let name = String(line[..<colon])
        var value = Substring(line[line.index(after: colon)...])
        while let c = value.first, c == " " || c == "\t" { value.removeFirst() }
        while let c = value.last, c == " " || c == "\t" { value.removeLast() }
        let field = HeaderField(name: name, value: .plain(String(value)))
        try check(field)
        return field
    }

    /// Checks a header as ``header(_:)`` describes (a sealed value's text is the vault's, not checked here).
    static func check(_ field: HeaderField) throws {
        let name = field.name
        guard !name.isEmpty else { throw LedgerError.invalidValue("a header needs a name before ':'") }
        guard name.utf8.count <= 256 else {
            throw LedgerError.invalidValue(
                "header name longer than 256 bytes: '\(printable(name).prefix(40))…'")
        }
        guard name.utf8.allSatisfy(isTokenByte) else {
            throw LedgerError.invalidValue(
                "bad header name '\(printable(name))': letters, digits and !#$%&'*+-.^_`|~ only")
        }
        guard !reservedHeaders.contains(name.lowercased()) else {
            throw LedgerError.invalidValue("the downloader sets '\(name)' itself: it cannot be given")
        }
        guard case .plain(let value) = field.value else { return }
        guard value.utf8.count <= 8192 else {
            throw LedgerError.invalidValue("the value of header '\(name)' is longer than 8192 bytes")
        }
        guard !value.unicodeScalars.contains(where: { ($0.value < 0x20 && $0 != "\t") || $0.value == 0x7F })
        else {
            throw LedgerError.invalidValue(
                "the value of header '\(name)' contains control characters (CR, LF, NUL…)")
        }
    }

    private static func isTokenByte(_ b: UInt8) -> Bool {
        switch b {
        case UInt8(ascii: "a")...UInt8(ascii: "z"), UInt8(ascii: "A")...UInt8(ascii: "Z"),
            UInt8(ascii: "0")...UInt8(ascii: "9"):
            return true
        default:
            return Array("!#$%&'*+-.^_`|~".utf8).contains(b)
        }
    }

    /// Proxy schemes libcurl speaks.
    public static let proxySchemes = ["http", "https", "socks4", "socks4a", "socks5", "socks5h"]

    /// A proxy URL: one of ``proxySchemes``, a host, an optional port, nothing after it but `/`. Returns the URL
    /// without user information, and the user information (`user:password`, a credential) apart.
    /// - Throws: `LedgerError.invalidValue` naming the problem.
    public static func proxy(_ raw: String) throws -> (url: String, userinfo: String?) {
        let text = trimmed(raw)
        guard let (rawScheme, afterScheme) = splitScheme(text) else {
            throw LedgerError.invalidValue(
                "not a proxy URL: '\(printable(text))' (give scheme://host:port, e.g. http://proxy:3128)")
        }
        let scheme = rawScheme.lowercased()
        guard proxySchemes.contains(scheme) else {
            throw LedgerError.invalidValue(
                "proxy scheme '\(printable(scheme))' is not supported (\(proxySchemes.joined(separator: ", ")))"
            )
        }
        var rest = afterScheme
        if rest.hasSuffix("/") { rest.removeLast() }
        guard !rest.contains("/"), !rest.contains("?"), !rest.contains("#") else {
            throw LedgerError.invalidValue("a proxy URL has no path: '\(printable(redactingUserinfo(text)))'")
        }
        var userinfo: String?
        if let at = rest.lastIndex(of: "@") {
            userinfo = String(rest[..<at])
            rest = rest[rest.index(after: at)...]
        }
        // The host and port are checked as a download URL's are.
        do { _ = try url("http://" + rest + "/") } catch LedgerError.invalidURL(_, let reason) {
            throw LedgerError.invalidValue("bad proxy URL '\(printable(redactingUserinfo(text)))': \(reason)")
        }
        if let userinfo, !isWellFormedUserinfo(userinfo) {
            throw LedgerError.invalidValue("bad user information in the proxy URL")
        }
        return ("\(scheme)://\(rest)", userinfo)
    }

    /// A task URL (already checked by ``url(_:)``) without its user information, and that information as typed
    /// (`user:password`, percent-encoding kept): the part of the authority before its last `@`. A URL without
    /// one comes back as it is.
    /// - Throws: `LedgerError.invalidURL` (the URL shown redacted) for user information that is empty, longer
    ///   than 1,024 bytes, or holds spaces or control characters.
    public static func splitUserinfo(_ url: String) throws -> (url: String, userinfo: String?) {
        guard url.utf8.contains(UInt8(ascii: "@")), let (scheme, rest) = splitScheme(url) else {
            return (url, nil)
        }
        let authorityEnd = rest.firstIndex { $0 == "/" || $0 == "?" || $0 == "#" } ?? rest.endIndex
        guard let at = rest[..<authorityEnd].lastIndex(of: "@") else { return (url, nil) }
        let userinfo = String(rest[..<at])
        guard isWellFormedUserinfo(userinfo) else {
            throw LedgerError.invalidURL(redactingUserinfo(url), reason: "bad user information")
        }
        return (scheme + "://" + rest[rest.index(after: at)...], userinfo)
    }

    /// User information (of a proxy URL or a task's URL) a ledger keeps: not empty, at most 1,024 bytes, no
    /// spaces or control characters.
    static func isWellFormedUserinfo(_ userinfo: String) -> Bool {
        !userinfo.isEmpty && userinfo.utf8.count <= 1024
            && !userinfo.unicodeScalars.contains { $0.value <= 0x20 || $0.value == 0x7F }
    }

    /// A URL with any user information replaced by `[redacted]`, for outputs and error messages.
    public static func redactingUserinfo(_ url: String) -> String {
        // Everything up to the last '@' goes, even past a '/': a password may hold one.
        guard let (scheme, rest) = splitScheme(url), let at = rest.lastIndex(of: "@") else { return url }
        return scheme + "://" + TaskOptions.redaction + rest[at...]
    }

    /// The scheme and what follows `://`, or nil when there is no `://`.
    public static func splitScheme(_ url: String) -> (scheme: Substring, rest: Substring)? {
        guard let colon = url.firstIndex(of: ":"), url[colon...].hasPrefix("://") else { return nil }
        return (url[..<colon], url[url.index(colon, offsetBy: 3)...])
    }

    /// Text safe to echo in a one-line error: control characters as `?`, at most 200 characters.
    static func printable(_ s: some StringProtocol) -> String {
        String(
            String.UnicodeScalarView(
                s.unicodeScalars.prefix(200).map { $0.value < 0x20 || $0.value == 0x7F ? "?" : $0 }))
    }

    /// A user agent: not empty, at most 1024 bytes, no control characters.
    public static func userAgent(_ raw: String) throws -> String {
        let ua = trimmed(raw)
        guard !ua.isEmpty else { throw LedgerError.invalidValue("the user agent is empty") }
        guard ua.utf8.count <= 1024 else {
            throw LedgerError.invalidValue("the user agent is longer than 1024 bytes")
        }
        guard !ua.unicodeScalars.contains(where: Validation.isControl) else {
            throw LedgerError.invalidValue("the user agent contains control characters")
        }
        return ua
    }

    /// A referer: an http(s) URL, or `*` for the task's own URL. A refusal names it without its user information.
    public static func referer(_ raw: String) throws -> String {
        let text = trimmed(raw)
        if text == "*" { return text }
        do { return try url(text) } catch LedgerError.invalidURL(_, let reason) {
            throw LedgerError.invalidValue(
                "bad referer '\(printable(redactingUserinfo(text)))': \(reason) (or '*' for the task's URL)")
        }
    }

    /// A referer (checked by ``referer(_:)``) without its user information, and that information as typed.
    /// - Throws: `LedgerError.invalidValue` (the referer shown redacted) for user information that is empty,
    ///   longer than 1,024 bytes, or holds spaces or control characters.
    public static func splitReferer(_ referer: String) throws -> (url: String, userinfo: String?) {
        guard referer != "*" else { return (referer, nil) }
        do { return try splitUserinfo(referer) } catch LedgerError.invalidURL(let shown, let reason) {
            throw LedgerError.invalidValue("bad referer '\(printable(shown))': \(reason)")
        }
    }
}

extension TaskOptions {
    /// The options checked, as an add or a change may log them: every header, the user agent, referer, proxy
    /// and mirrors well-formed, the numbers in range (a speed of 0 is none). A proxy URL's user information goes
    /// to ``proxyUserinfo``. Credentials given in clear stay `plain` here: the ledger seals them (its vault)
    /// before the event is appended, so the log never holds one in clear.
    /// - Throws: `LedgerError.invalidValue` with a one-line reason.
    public func validated() throws -> TaskOptions {
        var o = self
        guard headers.count <= Self.maxHeaders else {
            throw LedgerError.invalidValue("at most \(Self.maxHeaders) headers, not \(headers.count)")
        }
        for h in headers {
            try Validation.check(h)
        }
        o.userAgent = try userAgent.map(Validation.userAgent)
        o.referer = try referer.map(Validation.referer)
        // A referer's user:password is a credential: kept apart, sealed by the ledger, as a proxy's is.
        if let referer = o.referer, case let (url, userinfo?) = try Validation.splitReferer(referer) {
            guard refererUserinfo == nil else {
                throw LedgerError.invalidValue("the referer's user information is given twice")
            }
            o.referer = url
            o.refererUserinfo = .plain(userinfo)
        } else if refererUserinfo != nil && (o.referer == nil || o.referer == "*") {
            throw LedgerError.invalidValue("user information for a referer, but no referer URL")
        }
        if let proxy {
            let (url, userinfo) = try Validation.proxy(proxy)
            if let userinfo {
                guard proxyUserinfo == nil else {
                    throw LedgerError.invalidValue("the proxy's user information is given twice")
                }
                o.proxyUserinfo = .plain(userinfo)
            }
            o.proxy = url
        } else if proxyUserinfo != nil {
            throw LedgerError.invalidValue("user information for a proxy, but no proxy")
        }
        if let maxSpeed {
            guard (0...1_000_000_000_000_000).contains(maxSpeed) else {
                throw LedgerError.invalidValue("a task's speed limit must be 0 to 10^15 B/s, not \(maxSpeed)")
            }
            o.maxSpeed = maxSpeed == 0 ? nil : maxSpeed
        }
        if let maxSize {
            guard maxSize == 0 || DownloadList.maxSizeRange.contains(maxSize) else {
                throw LedgerError.invalidValue("a task's max-size must be 1 KB to 1 EB, not \(maxSize)")
            }
            o.maxSize = maxSize == 0 ? nil : maxSize
        }
        if let connections, !Self.connectionRange.contains(connections) {
            throw LedgerError.invalidValue("connections must be 1 to 64, not \(connections)")
        }
        if let connectionsPerServer, !Self.connectionPerServerRange.contains(connectionsPerServer) {
            throw LedgerError.invalidValue(
                "connections per server must be 1 to 16, not \(connectionsPerServer)")
        }
        if let minSplitSize, !Self.minSplitSizeRange.contains(minSplitSize) {
            throw LedgerError.invalidValue("min-split-size must be 1 MiB to 1 GiB, not \(minSplitSize) bytes")
        }
        guard mirrors.count <= Self.maxMirrors else {
            throw LedgerError.invalidValue("at most \(Self.maxMirrors) mirrors, not \(mirrors.count)")
        }
        var seen: Set<String> = []
        o.mirrors = try mirrors.map { raw in
            let url: String
            do { url = try Validation.url(raw) } catch LedgerError.invalidURL(_, let reason) {
                throw LedgerError.invalidValue("bad mirror '\(Validation.printable(raw))': \(reason)")
            }
            guard try Validation.splitUserinfo(url).userinfo == nil else {
                throw LedgerError.invalidValue(
                    "mirror \(Validation.redactingUserinfo(url)) has a user:password: only the task's own URL"
                        + " keeps a login (sealed); give the mirror without it")
            }
            guard seen.insert(Validation.identity(url)).inserted else {
                throw LedgerError.invalidValue("mirror given twice: \(url)")
            }
            return url
        }
        return o
    }
}
