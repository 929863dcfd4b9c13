/// Checks on user input that need no state.
public enum Validation {
    /// A trimmed http(s) URL with a host and no spaces or control characters.
    /// - Throws: `LedgerError.invalidURL`.
    public static func url(_ raw: String) throws -> String {
        let url = trimmed(raw)
        let lower = url.lowercased()
        guard lower.hasPrefix("http://") || lower.hasPrefix("https://") else {
            throw LedgerError.invalidURL(
                raw, reason: url.contains("://") ? "only http and https" : "no http(s) scheme")
        }
        guard !url.unicodeScalars.contains(where: { $0.value <= 0x20 || $0.value == 0x7F }) else {
            throw LedgerError.invalidURL(raw, reason: "contains spaces or control characters")
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

    /// A file or display name: one path component, not empty, no '..', no control characters, at most 255 bytes.
    /// - Throws: `LedgerError.invalidName`.
    public static func name(_ raw: String) throws -> String {
        let name = raw
        guard !trimmed(name).isEmpty else { throw LedgerError.invalidName(raw, reason: "empty") }
        guard !name.contains("/"), !name.contains("\\") else {
            throw LedgerError.invalidName(raw, reason: "contains a path separator")
        }
        guard name != ".", name != ".." else { throw LedgerError.invalidName(raw, reason: "not a file name") }
        guard !name.contains("..") else { throw LedgerError.invalidName(raw, reason: "contains '..'") }
        guard !name.unicodeScalars.contains(where: { $0.value < 0x20 || $0.value == 0x7F }) else {
            throw LedgerError.invalidName(raw, reason: "contains control characters")
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
        guard !title.unicodeScalars.contains(where: { $0.value < 0x20 || $0.value == 0x7F }) else {
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
