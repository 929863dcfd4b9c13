extension Validation {
    /// Whether `name` may be a downloader's host name (`--host-name`, ``Event/transferClaimed(id:host:leaseMs:expired:)``):
    /// 1 to 64 ASCII letters, digits, `.`, `-` or `_`.
    public static func isHostName(_ name: String) -> Bool {
        let bytes = name.utf8
        guard (1...64).contains(bytes.count) else { return false }
        return bytes.allSatisfy { b in
            (b >= 0x30 && b <= 0x39) || (b >= 0x41 && b <= 0x5A) || (b >= 0x61 && b <= 0x7A) || b == 0x2E
                || b == 0x2D || b == 0x5F
        }
    }

    /// A downloader's host name, checked (``isHostName(_:)``).
    /// - Throws: `LedgerError.invalidValue` naming the rule.
    public static func hostName(_ raw: String) throws -> String {
        guard isHostName(raw) else {
            let shown = raw.unicodeScalars.contains(where: isControl) ? "" : " '\(raw.prefix(80))'"
            throw LedgerError.invalidValue(
                "host name\(shown) must be 1 to 64 letters, digits, '.', '-' or '_'")
        }
        return raw
    }
}
