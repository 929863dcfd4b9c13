/// Checks on user input that need no state.
public enum Validation {
    /// The longest URL taken, in bytes (a task's, a mirror's, a referer): far above what servers take (8 KiB is a
    /// common limit), far below what would make every later read of the log pay for one line of input.
    public static let maxURLBytes = 65_536

    /// A control character: C0, DEL and C1 (U+0080–U+009F, where U+009B is a terminal's CSI), as
    /// `FileNaming.isSafeName` and the terminal escaping count them.
    public static func isControl(_ scalar: Unicode.Scalar) -> Bool {
        scalar.value < 0x20 || (0x7F...0x9F).contains(scalar.value)
    }

    /// A bidirectional control: the Arabic letter mark, the left-to-right and right-to-left marks, the
    /// embeddings and overrides (U+202A–U+202E) and the isolates (U+2066–U+2069). In a name they make it display
    /// as another (`report\u{202E}txt.exe` shows as `reportexe.txt`); names from servers have them stripped
    /// (`FileNaming.sanitize`), names a user gives are refused.
    public static func isBidiControl(_ scalar: Unicode.Scalar) -> Bool {
        switch scalar.value {
        case 0x061C, 0x200E, 0x200F, 0x202A...0x202E, 0x2066...0x2069: true
        default: false
        }
    }

    /// A trimmed http(s) URL with a host and no spaces or control characters.
    /// - Throws: `LedgerError.invalidURL`.
    public static func url(_ raw: String) throws -> String {
        guard raw.utf8.count <= maxURLBytes else {
            throw LedgerError.invalidURL(
                redactingUserinfo(String(raw.prefix(80))) + "…", reason: "longer than 65,536 bytes")
        }
        // Most URLs (a list of a million) are printable ASCII: checked over their bytes, without a copy.
        if isPlainValidURL(raw) { return raw }
        // A refusal names the URL without its login, if it has one.
        do { return try checkedURL(raw) } catch LedgerError.invalidURL(let url, let reason) {
            throw LedgerError.invalidURL(redactingUserinfo(url), reason: reason)
        }
    }

    private static func checkedURL(_ raw: String) throws -> String {
        let url = trimmed(raw)
        let lower = url.lowercased()
        guard lower.hasPrefix("http://") || lower.hasPrefix("https://") else {
            throw LedgerError.invalidURL(
                raw, reason: url.contains("://") ? "only http and https" : "no http(s) scheme")
        }
        guard !url.unicodeScalars.contains(where: { $0.value == 0x20 || isControl($0) }) else {
            throw LedgerError.invalidURL(raw, reason: "contains spaces or control characters")
        }
        // Bytes that are not UTF-8 reach us already replaced by U+FFFD (a list file, argv, a JSON string):
        // fetching that would ask for another URL than the one given.
        guard !url.unicodeScalars.contains("\u{FFFD}") else {
            throw LedgerError.invalidURL(raw, reason: "not UTF-8 text")
        }
        let rest = url.drop { $0 != ":" }.dropFirst(3)
        var host = rest.prefix { $0 != "/" && $0 != "?" && $0 != "#" }
        if let at = host.lastIndex(of: "@") { host = host[host.index(after: at)...] }
        if host.hasPrefix("[") {
            guard host.contains("]") else { throw LedgerError.invalidURL(raw, reason: "bad IPv6 host") }
        } else {
            let name = host.prefix { $0 != ":" }
            guard !name.isEmpty else { throw LedgerError.invalidURL(raw, reason: "no host") }
            guard name.allSatisfy({ $0.isLetter || $0.isNumber || $0 == "." || $0 == "-" || $0 == "_" })
            else {
                throw LedgerError.invalidURL(raw, reason: "bad host")
            }
            let port = host.drop { $0 != ":" }.dropFirst()
            if host.contains(":"),
                port.isEmpty || !port.allSatisfy(\.isNumber) || Int(port).map({ $0 > 65535 }) != false
            {
                throw LedgerError.invalidURL(raw, reason: "bad port")
            }
        }
        return url
    }

    /// Whether `url` is printable ASCII (nothing to trim) and passes every check of `url(_:)`. False says only
    /// that the general path must decide (and give the reason).
    static func isPlainValidURL(_ url: String) -> Bool {
        var url = url
        return url.withUTF8 { b in
            guard b.allSatisfy({ $0 > 0x20 && $0 < 0x7F }) else { return false }
            let lower = { (i: Int) in i < b.count ? b[i] | 0x20 : 0 }
            guard lower(0) == UInt8(ascii: "h"), lower(1) == UInt8(ascii: "t"), lower(2) == UInt8(ascii: "t"),
                lower(3) == UInt8(ascii: "p")
            else { return false }
            let colon = lower(4) == UInt8(ascii: "s") ? 5 : 4
            guard colon + 2 < b.count, b[colon] == UInt8(ascii: ":"), b[colon + 1] == UInt8(ascii: "/"),
                b[colon + 2] == UInt8(ascii: "/")
            else { return false }
            var end = colon + 3
            while end < b.count, b[end] != UInt8(ascii: "/"), b[end] != UInt8(ascii: "?"),
                b[end] != UInt8(ascii: "#")
            {
                end += 1
            }
            var start = colon + 3
            if let at = b[start..<end].lastIndex(of: UInt8(ascii: "@")) { start = at + 1 }
            guard start < end, b[start] != UInt8(ascii: "[") else { return false }
            let portColon = b[start..<end].firstIndex(of: UInt8(ascii: ":")) ?? end
            guard portColon > start,
                b[start..<portColon].allSatisfy({ c in
                    let l = c | 0x20
                    return (l >= UInt8(ascii: "a") && l <= UInt8(ascii: "z")) || (c >= 0x30 && c <= 0x39)
                        || c == UInt8(ascii: ".") || c == UInt8(ascii: "-") || c == UInt8(ascii: "_")
                })
            else { return false }
            guard portColon < end else { return true }
            let port = b[(portColon + 1)..<end]
            guard !port.isEmpty, port.count <= 5, port.allSatisfy({ $0 >= 0x30 && $0 <= 0x39 }) else {
                return false
            }
            return port.reduce(0) { $0 * 10 + Int($1 - 0x30) } <= 65535
        }
    }

    /// The form of a URL that says which resource it names, for duplicate detection: the scheme and host in lower
    /// case, no default port (80 for http, 443 for https), `/` for an empty path, and no `#fragment` (never sent to a
    /// server: `c.pdf#x` is `c.pdf`). The URL itself is kept as typed; two URLs with one identity are one task.
    /// - Complexity: O(length); no copy when the URL is in that form already.
    public static func identity(_ url: String) -> String {
        var url = url
        if let hash = url.utf8.firstIndex(of: UInt8(ascii: "#")) { url = String(url[..<hash]) }
        if url.withUTF8(isIdentityForm) { return url }
        return url.withUTF8 { bytes in
            guard let colon = bytes.firstIndex(of: UInt8(ascii: ":")), colon + 2 < bytes.count,
                bytes[colon + 1] == UInt8(ascii: "/"), bytes[colon + 2] == UInt8(ascii: "/")
            else { return String(decoding: bytes, as: UTF8.self) }
            let start = colon + 3
            var end = start
            while end < bytes.count,
                ![UInt8(ascii: "/"), UInt8(ascii: "?"), UInt8(ascii: "#")].contains(bytes[end])
            {
                end += 1
            }
            let scheme = Array(bytes[..<colon]).map(lower)
            var authority = Array(bytes[start..<end])
            // The host (after any user info) in lower case; the user info is kept as typed.
            let at = authority.lastIndex(of: UInt8(ascii: "@")).map { $0 + 1 } ?? 0
            for i in at..<authority.count { authority[i] = lower(authority[i]) }
            let defaultPort: [UInt8] =
                scheme == Array("http".utf8)
                ? Array(":80".utf8) : scheme == Array("https".utf8) ? Array(":443".utf8) : []
            let hostEnd = authority[at...].lastIndex(of: UInt8(ascii: "]")) ?? at
            if let portColon = authority[hostEnd...].lastIndex(of: UInt8(ascii: ":")) {
                let port = Array(authority[portColon...])
                if port == [UInt8(ascii: ":")] || (!defaultPort.isEmpty && port == defaultPort) {
                    authority.removeSubrange(portColon...)
                }
            }
            var out = scheme + Array("://".utf8) + authority
            if end == bytes.count || bytes[end] != UInt8(ascii: "/") { out.append(UInt8(ascii: "/")) }
            out += bytes[end...]
            return out.elementsEqual(bytes)
                ? String(decoding: bytes, as: UTF8.self) : String(decoding: out, as: UTF8.self)
        }
    }

    /// Whether `identity` would give the URL back as it is: no capital in the scheme or the authority, no port,
    /// a path. (False only sends it the long way.)
    private static func isIdentityForm(_ bytes: UnsafeBufferPointer<UInt8>) -> Bool {
        guard let colon = bytes.firstIndex(of: UInt8(ascii: ":")), colon + 2 < bytes.count,
            bytes[colon + 1] == UInt8(ascii: "/"), bytes[colon + 2] == UInt8(ascii: "/")
        else { return false }
        var i = 0
        while i < bytes.count {
            let b = bytes[i]
            if b == UInt8(ascii: "/") && i > colon + 2 { return true }
            if b >= UInt8(ascii: "A") && b <= UInt8(ascii: "Z") { return false }
            if i > colon && (b == UInt8(ascii: ":") || b == UInt8(ascii: "?") || b == UInt8(ascii: "#")) {
                return false
            }
            i += 1
        }
        return false
    }

    private static func lower(_ b: UInt8) -> UInt8 {
        (UInt8(ascii: "A")...UInt8(ascii: "Z")).contains(b) ? b + 32 : b
    }

    /// A file or display name: one path component, not empty, no '..', no control characters, no bidirectional
    /// controls (``isBidiControl(_:)``), at most 255 bytes. Every name a user gives goes through it: `add`/`get
    /// --name`, `rename`, the UI's rename and the RPC's `out`.
    /// - Throws: `LedgerError.invalidName`.
    public static func name(_ raw: String) throws -> String {
        let name = raw
        guard !trimmed(name).isEmpty else { throw LedgerError.invalidName(raw, reason: "empty") }
        guard !name.contains("/"), !name.contains("\\") else {
            throw LedgerError.invalidName(raw, reason: "contains a path separator")
        }
        guard name != ".", name != ".." else { throw LedgerError.invalidName(raw, reason: "not a file name") }
        guard !name.contains("..") else { throw LedgerError.invalidName(raw, reason: "contains '..'") }
        guard !name.unicodeScalars.contains(where: isControl) else {
            throw LedgerError.invalidName(raw, reason: "contains control characters")
        }
        if let bidi = name.unicodeScalars.first(where: isBidiControl) {
            let hex = String(bidi.value, radix: 16, uppercase: true)
            let code = String(repeating: "0", count: max(4 - hex.count, 0)) + hex
            throw LedgerError.invalidName(
                raw,
                reason: "contains the bidirectional control U+\(code), which makes a name display as another")
        }
        guard name.utf8.count <= 255 else {
            throw LedgerError.invalidName(raw, reason: "longer than 255 bytes")
        }
        return name
    }

    /// A section title: not empty, one line, at most 200 bytes.
    public static func title(_ raw: String) throws -> String {
        let title = trimmed(raw)
        guard !title.isEmpty else { throw LedgerError.invalidTitle("empty") }
        guard !title.unicodeScalars.contains(where: isControl) else {
            throw LedgerError.invalidTitle("contains control characters")
        }
        guard title.utf8.count <= 200 else { throw LedgerError.invalidTitle("longer than 200 bytes") }
        return title
    }

    /// 64 hex digits, returned in lower case.
    public static func sha256(_ raw: String) throws -> String {
        let hex = trimmed(raw).lowercased()
        guard hex.utf8.count == 64, hex.utf8.allSatisfy({ (48...57).contains($0) || (97...102).contains($0) })
        else {
            throw LedgerError.invalidChecksum(raw)
        }
        return hex
    }

    static func trimmed(_ s: String) -> String {
        let scalars = s.unicodeScalars
        let isSpace: (Unicode.Scalar) -> Bool = { $0.properties.isWhitespace }
        guard let first = scalars.firstIndex(where: { !isSpace($0) }),
            let last = scalars.lastIndex(where: { !isSpace($0) })
        else { return "" }
        return String(scalars[first...last])
    }
}
