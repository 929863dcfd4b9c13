import Foundation
import LedgerRPC

/// Which requests the endpoint takes, judged from their headers before anything is read or run: no web page
/// drives the server unless the user allowed its origin, and no request arrives under a name an attacker controls
/// (DNS rebinding). A value: `RPCAdmissionTests` judge headers without a socket.
///
/// - `Origin` `http(s)://…`: admitted only when listed (`--rpc-allow-origin`), with `--rpc-allow-origin-all`, or
///   when it is the server's own (`http://` and the `Host`: no page comes from there).
/// - `Origin` `chrome-extension://`, `moz-extension://`, `safari-web-extension://`: admitted (the token is still
///   needed), as aria2c admits browser extensions.
/// - `Origin` `null` (a `file://` page, a sandboxed frame, a redirect) or any other scheme: refused unless
///   `--rpc-allow-origin-all`.
/// - No `Origin` (curl, aria2p, native front ends): admitted, unless the browser says the request came from
///   another site (`Sec-Fetch-Site: cross-site`/`same-site`, a `<script>` or `<img>`), whose `Referer` must then
///   be an allowed origin.
/// - `Host` must be a loopback name or address (`localhost`, `127.0.0.1`, `[::1]`, any port), one of
///   ``hostNames``, or, when listening on every address, an IP address. Absent is admitted (no browser omits it).
///
/// ```swift
/// let admission = RPCAdmission(origins: ["https://ariang.example"])
/// admission.check(origin: "http://evil.example", host: "127.0.0.1:6800")   // .refuse(…)
/// ```
public struct RPCAdmission: Sendable, Equatable {
    /// What to do with a request.
    public enum Verdict: Sendable, Equatable {
        /// Take it; `allowOrigin` is the `Access-Control-Allow-Origin` to answer with (nil: none).
        case admit(allowOrigin: String?)
        /// Refuse it (HTTP 403) with this one-line reason.
        case refuse(String)
    }

    /// `--rpc-allow-origin-all`: every origin, answered with `Access-Control-Allow-Origin: *` as aria2 does.
    public var allowOriginAll: Bool
    /// The allowed web origins, each `scheme://host[:port]` as browsers send them (see ``origin(of:)``).
    public private(set) var origins: Set<String>
    /// Names the server may be reached by besides loopback ones, lower-case.
    public private(set) var hostNames: Set<String>
    /// Whether any IP address is a valid `Host` (listening on every address: an address is never rebound).
    public var anyAddress: Bool

    /// The schemes of browser extensions' origins.
    static let extensionSchemes: Set<String> = ["chrome-extension", "moz-extension", "safari-web-extension"]
    static let loopbackNames: Set<String> = ["localhost", "127.0.0.1", "[::1]"]

    /// - Parameters:
    ///   - origins: URLs of pages allowed to call (their origin is taken: `https://h/x` allows `https://h`);
    ///     one that is not an `http`/`https` URL is ignored (``origin(of:)`` tells which, for the CLI's check).
    ///   - hostNames: names besides loopback ones that the server answers to.
    ///   - anyAddress: whether any IP address is a valid `Host`.
    public init(
        allowOriginAll: Bool = false, origins: [String] = [], hostNames: [String] = [],
        anyAddress: Bool = false
    ) {
        self.allowOriginAll = allowOriginAll
        self.origins = Set(origins.compactMap(Self.origin(of:)))
        self.hostNames = Set(hostNames.map { Self.bareName($0.lowercased()) })
        self.anyAddress = anyAddress
    }

    /// Judges a request by its `Origin`, `Host`, `Sec-Fetch-Site` and `Referer` headers (nil when absent).
    public func check(
        origin: String?, host: String?, fetchSite: String? = nil, referer: String? = nil
    ) -> Verdict {
        if let host, !isValidHost(host) {
            return .refuse("Host '\(host)' is not a name of this server (DNS rebinding?)")
        }
        guard let origin else {
            guard let fetchSite, ["cross-site", "same-site"].contains(fetchSite.lowercased()), !allowOriginAll
            else { return .admit(allowOrigin: nil) }
            if let referer, let from = Self.origin(of: referer), origins.contains(from) {
                return .admit(allowOrigin: nil)
            }
            return .refuse(
                "a request from another site's page is not allowed (dledger serve --rpc-allow-origin)")
        }
        if allowOriginAll { return .admit(allowOrigin: "*") }
        let scheme = origin.prefix { $0 != ":" }.lowercased()
        if Self.extensionSchemes.contains(scheme) && origin.dropFirst(scheme.count).hasPrefix("://") {
            return .admit(allowOrigin: origin)
        }
        if let normal = Self.origin(of: origin) {
            // The server's own origin (a client such as Python's websocket-client sends it): no page is served
            // from it, and the Host it names was checked above.
            let own = host.flatMap { Self.origin(of: "http://" + $0) }
            if origins.contains(normal) || normal == own { return .admit(allowOrigin: origin) }
        }
        return .refuse("origin '\(origin)' is not allowed (dledger serve --rpc-allow-origin URL)")
    }

    /// The origin (`scheme://host[:port]`, lower-case, the scheme's default port left out) of an `http` or
    /// `https` URL; nil for anything else (`null`, `file://`, a URL with user information, a bad port).
    public static func origin(of url: String) -> String? {
        guard let colon = url.firstIndex(of: ":"), url[colon...].hasPrefix("://") else { return nil }
        let scheme = url[..<colon].lowercased()
        guard scheme == "http" || scheme == "https" else { return nil }
        let rest = url[url.index(colon, offsetBy: 3)...]
        let authority = rest.prefix { $0 != "/" && $0 != "?" && $0 != "#" }.lowercased()
        guard !authority.isEmpty, !authority.contains("@"),
            let (name, port) = Self.split(authority), !name.isEmpty
        else { return nil }
        let defaultPort = scheme == "http" ? 80 : 443
        if let port, port != defaultPort { return "\(scheme)://\(name):\(port)" }
        return "\(scheme)://\(name)"
    }

    /// Whether `host` (a `Host` header) names this server.
    func isValidHost(_ host: String) -> Bool {
        guard let (name, _) = Self.split(host.lowercased()) else { return false }
        let bare = Self.bareName(name)
        if Self.loopbackNames.contains(bare) || hostNames.contains(bare) { return true }
        return anyAddress && Self.isAddress(bare)
    }

    /// A name without the final dot of a fully qualified one (`localhost.` is `localhost`).
    static func bareName(_ name: String) -> String {
        name.hasSuffix(".") && name.count > 1 ? String(name.dropLast()) : name
    }

    /// `name[:port]` or `[v6]:port` split; nil when the port is not a number from 1 to 65535 or the brackets
    /// are unbalanced.
    static func split(_ authority: String) -> (name: String, port: Int?)? {
        var name = Substring(authority)
        var portText: Substring?
        if authority.hasPrefix("[") {
            guard let close = authority.firstIndex(of: "]") else { return nil }
            name = authority[...close]
            let after = authority[authority.index(after: close)...]
            if !after.isEmpty {
                guard after.hasPrefix(":") else { return nil }
                portText = after.dropFirst()
            }
        } else if let colon = authority.lastIndex(of: ":") {
            name = authority[..<colon]
            portText = authority[authority.index(after: colon)...]
            if name.contains(":") { return nil }
        }
        guard let portText else { return (String(name), nil) }
        guard portText.count <= 5, portText.allSatisfy(\.isASCII), let port = Int(portText),
            (1...65535).contains(port)
        else { return nil }
        return (String(name), port)
    }

    /// Whether `name` is an IPv4 address or a bracketed IPv6 one.
    static func isAddress(_ name: String) -> Bool {
        var v4 = in_addr()
        var v6 = in6_addr()
        if inet_pton(AF_INET, name, &v4) == 1 { return true }
        guard name.hasPrefix("["), name.hasSuffix("]") else { return false }
        return inet_pton(AF_INET6, String(name.dropFirst().dropLast()), &v6) == 1
    }

    /// The token a GET's `params` (base64 of a JSON array) carries as its first element, `"token:…"`, without the
    /// prefix; nil when there is none. Read without parsing the JSON: the array's first string, unescaped, so a
    /// JSONP request is checked on the socket thread at the cost of a base64 decode.
    public static func token(base64Params: String?) -> [UInt8]? {
        guard var text = base64Params, !text.isEmpty, text.utf8.count <= 1 << 16 else { return nil }
        text = text.replacingOccurrences(of: " ", with: "+").replacingOccurrences(of: "-", with: "+")
            .replacingOccurrences(of: "_", with: "/")
        if text.utf8.count % 4 != 0 { text += String(repeating: "=", count: 4 - text.utf8.count % 4) }
        guard let data = Data(base64Encoded: text) else { return nil }
        let bytes = [UInt8](data)
        let blank: Set<UInt8> = [0x20, 0x09, 0x0A, 0x0D]
        var i = 0
        func skipBlank() { while i < bytes.count && blank.contains(bytes[i]) { i += 1 } }
        skipBlank()
        guard i < bytes.count, bytes[i] == UInt8(ascii: "[") else { return nil }
        i += 1
        skipBlank()
        guard i < bytes.count, bytes[i] == UInt8(ascii: "\"") else { return nil }
        i += 1
        guard let end = bytes[i...].firstIndex(of: UInt8(ascii: "\"")) else { return nil }
        let string = bytes[i..<end]
        let prefix = Array("token:".utf8)
        guard !string.contains(UInt8(ascii: "\\")), string.starts(with: prefix) else { return nil }
        return Array(string.dropFirst(prefix.count))
    }

    /// The body of a refusal: a JSON-RPC error in aria2's shape (code 1).
    static func refusal(_ message: String) -> [UInt8] {
        RPCValue.object([
            ("id", .null), ("jsonrpc", .string("2.0")),
            ("error", .object([("code", .int(1)), ("message", .string(message))])),
        ]).bytes()
    }
}
