/// Turns untrusted names (from a server, a URL or a user) into safe single file names. Pure functions.
///
/// ```swift
/// FileNaming.sanitize("../../etc/passwd")                              // "passwd"
/// FileNaming.name(fromContentDisposition: "attachment; filename=\"a.txt\"")  // "a.txt"
/// Array(FileNaming.candidates(base: "a.tar.gz").prefix(2))             // ["a.tar.gz", "a (1).tar.gz"]
/// ```
public enum FileNaming {
    /// Longest file name most Linux file systems accept, in UTF-8 bytes.
    public static let maxNameBytes = 255

    /// A safe single path component made from `untrusted`, or nil if nothing usable is left.
    ///
    /// Keeps only the last component after `/` or `\`, drops control and bidi-override characters, leading
    /// dots and spaces, trailing dots and spaces, and bounds the result to 255 UTF-8 bytes keeping the extension.
    public static func sanitize(_ untrusted: String) -> String? {
        isPlainName(untrusted) ? untrusted : sanitizeInGeneral(untrusted)
    }

    /// ``sanitize(_:)`` without the shortcut for plain names.
    static func sanitizeInGeneral(_ untrusted: String) -> String? {
        let components = untrusted.replacing("\\", with: "/").split(
            separator: "/", omittingEmptySubsequences: true)
        guard let last = components.last else { return nil }
        var scalars = String.UnicodeScalarView()
        for scalar in last.unicodeScalars where !isUnsafe(scalar) {
            scalars.append(scalar)
        }
        var name = Substring(String(scalars))
        while let first = name.first, first == "." || first.isWhitespace { name.removeFirst() }
        while let end = name.last, end == "." || end.isWhitespace { name.removeLast() }
        guard !name.isEmpty else { return nil }
        let (stem, ext) = split(String(name))
        let result = bounded(stem: stem, suffix: "", ext: ext)
        return result.isEmpty ? nil : result
    }

    /// The file name a `Content-Disposition` header suggests, sanitized: `filename*=UTF-8''...` (percent-decoded)
    /// is preferred over `filename="..."`.
    public static func name(fromContentDisposition header: String) -> String? {
        var plain: String?
        var extended: String?
        for parameter in parameters(of: header) {
            guard let equals = parameter.firstIndex(of: "=") else { continue }
            let key = parameter[..<equals].trimmingSpaces.lowercased()
            let value = parameter[parameter.index(after: equals)...].trimmingSpaces
            if key == "filename*" {
                extended = decodeExtended(value)
            } else if key == "filename" {
                plain = unquote(value)
            }
        }
        if let extended, let name = sanitize(extended) { return name }
        if let plain, let name = sanitize(plain) { return name }
        return nil
    }

    /// The last path component of `url`, percent-decoded and sanitized; nil when the path has none.
    public static func name(fromURL url: String) -> String? {
        var rest = Substring(url)
        if let hash = rest.firstIndex(of: "#") { rest = rest[..<hash] }
        if let query = rest.firstIndex(of: "?") { rest = rest[..<query] }
        if let scheme = rest.firstRange(of: "://") {
            let afterScheme = rest[scheme.upperBound...]
            guard let slash = afterScheme.firstIndex(of: "/") else { return nil }
            rest = afterScheme[slash...]
        }
        guard let last = rest.split(separator: "/").last else { return nil }
        return sanitize(String(decoding: percentDecoded(last), as: UTF8.self))
    }

    /// Names to try in order for `base`: `"name.ext"`, `"name (1).ext"`, `"name (2).ext"`, ... (endless; each
    /// within 255 bytes). `"a.tar.gz"` gives `"a (1).tar.gz"`.
    public static func candidates(base: String) -> some Sequence<String> {
        let (stem, ext) = split(base)
        return sequence(state: 0) { (n: inout Int) -> String? in
            defer { n += 1 }
            return n == 0 ? base : bounded(stem: stem, suffix: " (\(n))", ext: ext)
        }
    }
}

extension FileNaming {
    /// Whether `name` may be used as a file name inside a download directory: what every name the ledger writes
    /// obeys (``sanitize(_:)``'s results and the names a user gives): one path component, 1 to 255 UTF-8 bytes, not
    /// `.` or `..`, no slash or backslash, no control character. Names read back from a ledger are checked with it before
    /// any file operation: the log may have been edited.
    public static func isSafeName(_ name: String) -> Bool {
        let bytes = name.utf8
        guard !bytes.isEmpty, bytes.count <= maxNameBytes, name != ".", name != ".." else { return false }
        return !name.unicodeScalars.contains {
            $0 == "/" || $0 == "\\" || $0.properties.generalCategory == .control
        }
    }

    /// Whether `path` may be used as a download directory: absolute, every component non-empty and neither `.`
    /// nor `..`, no control character. (Links in it are the user's choice and are followed.)
    public static func isSafeDirectory(_ path: String) -> Bool {
        // One pass over the bytes: every folder opening checks its path, a few per transfer. A control character
        // is a byte below 0x20 or 0x7F, or U+0080–U+009F (0xC2 then 0x80–0x9F: 0xC2 only ever leads a character).
        let slash = UInt8(ascii: "/")
        let utf8 = path.utf8
        guard utf8.first == slash, utf8.count < 4096 else { return false }
        var previous = slash
        var length = 0
        var dotsOnly = true
        for byte in utf8.dropFirst() {
            if byte < 0x20 || byte == 0x7F || (previous == 0xC2 && (0x80...0x9F).contains(byte)) {
                return false
            }
            previous = byte
            if byte == slash {
                // An empty component, `.` or `..`.
                guard length > 0, !(dotsOnly && length <= 2) else { return false }
                length = 0
                dotsOnly = true
            } else {
                length += 1
                dotsOnly = dotsOnly && byte == UInt8(ascii: ".")
            }
        }
        // Ends with a component, or with one slash after one (or is "/").
        return length == 0 || !(dotsOnly && length <= 2)
    }

    private static let compoundExtensions = [".tar.gz", ".tar.bz2", ".tar.xz", ".tar.zst", ".tar.lz"]
    private static let maxExtensionBytes = 32

    /// Whether `name` is already what ``sanitize(_:)`` would make of it, checked cheaply (most URLs end in such a
    /// name): 1 to 255 ASCII letters, digits and `-_.+~,=@`, not starting or ending with a dot. No separator, no
    /// control or space character, nothing to trim, nothing to shorten.
    static func isPlainName(_ name: String) -> Bool {
        let bytes = name.utf8
        guard let first = bytes.first, let last = bytes.last, bytes.count <= maxNameBytes,
            first != UInt8(ascii: "."), last != UInt8(ascii: ".")
        else { return false }
        return bytes.allSatisfy { byte in
            switch byte {
            case UInt8(ascii: "a")...UInt8(ascii: "z"), UInt8(ascii: "A")...UInt8(ascii: "Z"),
                UInt8(ascii: "0")...UInt8(ascii: "9"):
                return true
            case UInt8(ascii: "-"), UInt8(ascii: "_"), UInt8(ascii: "."), UInt8(ascii: "+"),
                UInt8(ascii: "~"),
                UInt8(ascii: ","), UInt8(ascii: "="), UInt8(ascii: "@"):
                return true
            default:
                return false
            }
        }
    }

    private static func isUnsafe(_ scalar: Unicode.Scalar) -> Bool {
        if scalar.properties.generalCategory == .control { return true }
        switch scalar.value {
        case 0x061C, 0x200E, 0x200F, 0x202A...0x202E, 0x2066...0x2069: return true
        default: return false
        }
    }

    /// Splits `"a.tar.gz"` into `("a", ".tar.gz")`, `"a.txt"` into `("a", ".txt")`, `"a"` into `("a", "")`.
    static func split(_ name: String) -> (stem: String, ext: String) {
        let lower = name.lowercased()
        for compound in compoundExtensions where lower.hasSuffix(compound) && lower.count > compound.count {
            let cut = name.index(name.endIndex, offsetBy: -compound.count)
            return (String(name[..<cut]), String(name[cut...]))
        }
        guard let dot = name.lastIndex(of: "."), dot != name.startIndex else { return (name, "") }
        let ext = name[dot...]
        guard ext.utf8.count <= maxExtensionBytes, !ext.contains(" ") else { return (name, "") }
        return (String(name[..<dot]), String(ext))
    }

    /// `stem + suffix + ext`, shortening `stem` (whole characters) to fit in ``maxNameBytes``.
    private static func bounded(stem: String, suffix: String, ext: String) -> String {
        var stem = Substring(stem)
        let budget = maxNameBytes - suffix.utf8.count - ext.utf8.count
        if budget <= 0 { return String((stem + suffix + ext).utf8Prefix(maxNameBytes)) }
        while stem.utf8.count > budget { stem.removeLast() }
        while let end = stem.last, end.isWhitespace { stem.removeLast() }
        return stem + suffix + ext
    }

    /// Splits header parameters on `;` outside double quotes.
    private static func parameters(of header: String) -> [Substring] {
        var result: [Substring] = []
        var start = header.startIndex
        var quoted = false
        var escaped = false
        var index = header.startIndex
        while index < header.endIndex {
            let c = header[index]
            if escaped {
                escaped = false
            } else if c == "\\" && quoted {
                escaped = true
            } else if c == "\"" {
                quoted.toggle()
            } else if c == ";" && !quoted {
                result.append(header[start..<index])
                start = header.index(after: index)
            }
            index = header.index(after: index)
        }
        result.append(header[start...])
        return result
    }

    private static func unquote(_ value: Substring) -> String {
        guard value.count >= 2, value.first == "\"", value.last == "\"" else { return String(value) }
        var result = ""
        var escaped = false
        for c in value.dropFirst().dropLast() {
            if !escaped && c == "\\" {
                escaped = true
                continue
            }
            escaped = false
            result.append(c)
        }
        return result
    }

    /// Decodes RFC 8187 `charset'language'percent-encoded` values (UTF-8 or ISO-8859-1).
    private static func decodeExtended(_ value: Substring) -> String? {
        let parts = value.split(separator: "'", maxSplits: 2, omittingEmptySubsequences: false)
        guard parts.count == 3 else { return nil }
        let bytes = percentDecoded(parts[2])
        switch parts[0].lowercased() {
        case "utf-8": return String(validating: bytes, as: UTF8.self)
        case "iso-8859-1", "latin1": return String(String.UnicodeScalarView(bytes.map { Unicode.Scalar($0) }))
        default: return nil
        }
    }

    static func percentDecoded(_ text: Substring) -> [UInt8] {
        let utf8 = Array(text.utf8)
        var bytes: [UInt8] = []
        bytes.reserveCapacity(utf8.count)
        var i = 0
        while i < utf8.count {
            if utf8[i] == UInt8(ascii: "%"), i + 2 < utf8.count,
                let high = hexValue(utf8[i + 1]), let low = hexValue(utf8[i + 2])
            {
                bytes.append(high << 4 | low)
                i += 3
            } else {
                bytes.append(utf8[i])
                i += 1
            }
        }
        return bytes
    }

    private static func hexValue(_ byte: UInt8) -> UInt8? {
        switch byte {
        case UInt8(ascii: "0")...UInt8(ascii: "9"): byte - UInt8(ascii: "0")
        case UInt8(ascii: "a")...UInt8(ascii: "f"): byte - UInt8(ascii: "a") + 10
        case UInt8(ascii: "A")...UInt8(ascii: "F"): byte - UInt8(ascii: "A") + 10
        default: nil
        }
    }
}

extension Substring {
    fileprivate var trimmingSpaces: Substring {
        var s = self
        while let c = s.first, c.isWhitespace { s.removeFirst() }
        while let c = s.last, c.isWhitespace { s.removeLast() }
        return s
    }
}

extension String {
    /// The longest prefix of whole characters within `limit` UTF-8 bytes.
    fileprivate func utf8Prefix(_ limit: Int) -> Substring {
        var s = Substring(self)
        while s.utf8.count > limit { s.removeLast() }
        return s
    }
}
