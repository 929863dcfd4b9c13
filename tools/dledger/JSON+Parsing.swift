extension JSON {
    /// Parses the ledger's canonical payloads (objects, arrays, strings, integers, booleans, null), keeping key
    /// order, so `log --json` shows each event's fields exactly as the log stores them.
    /// - Returns: nil for anything else (the caller then shows the raw text).
    static func parse(_ bytes: [UInt8]) -> JSON? {
        var parser = Parser(bytes: bytes)
        guard let value = parser.value() else { return nil }
        parser.skipSpace()
        return parser.at == bytes.count ? value : nil
    }

    private struct Parser {
        let bytes: [UInt8]
        var at = 0
        /// Arrays and objects open around the current value: a tampered payload nested deeper than `maxDepth`
        /// is refused (nil) instead of recursing until the stack overflows.
        var depth = 0
        static let maxDepth = 64

        mutating func skipSpace() {
            while at < bytes.count, [0x20, 0x0A, 0x0D, 0x09].contains(bytes[at]) { at += 1 }
        }

        mutating func value() -> JSON? {
            skipSpace()
            guard at < bytes.count, depth < Self.maxDepth else { return nil }
            depth += 1
            defer { depth -= 1 }
            switch bytes[at] {
            case UInt8(ascii: "{"): return object()
            case UInt8(ascii: "["): return array()
            case UInt8(ascii: "\""): return string().map(JSON.string)
            case UInt8(ascii: "t"): return literal("true", .bool(true))
            case UInt8(ascii: "f"): return literal("false", .bool(false))
            case UInt8(ascii: "n"): return literal("null", .null)
            default: return number()
            }
        }

        mutating func literal(_ word: String, _ value: JSON) -> JSON? {
            let w = Array(word.utf8)
            guard at + w.count <= bytes.count, Array(bytes[at..<at + w.count]) == w else { return nil }
            at += w.count
            return value
        }

        mutating func number() -> JSON? {
            let start = at
            if at < bytes.count, bytes[at] == UInt8(ascii: "-") { at += 1 }
            while at < bytes.count, (48...57).contains(bytes[at]) { at += 1 }
            return Int64(String(decoding: bytes[start..<at], as: UTF8.self)).map(JSON.int)
        }

        mutating func string() -> String? {
            at += 1
            var out: [UInt8] = []
            while at < bytes.count {
                let b = bytes[at]
                at += 1
                if b == UInt8(ascii: "\"") { return String(decoding: out, as: UTF8.self) }
                guard b == UInt8(ascii: "\\") else {
                    out.append(b)
                    continue
                }
                guard at < bytes.count else { return nil }
                let e = bytes[at]
                at += 1
                switch e {
                case UInt8(ascii: "n"): out.append(0x0A)
                case UInt8(ascii: "r"): out.append(0x0D)
                case UInt8(ascii: "t"): out.append(0x09)
                case UInt8(ascii: "b"): out.append(0x08)
                case UInt8(ascii: "f"): out.append(0x0C)
                case UInt8(ascii: "u"):
                    guard at + 4 <= bytes.count,
                        let v = UInt32(String(decoding: bytes[at..<at + 4], as: UTF8.self), radix: 16)
                    else { return nil }
                    at += 4
                    out.append(
                        contentsOf: Array(String(Unicode.Scalar(v).map(Character.init) ?? "\u{FFFD}").utf8))
                default: out.append(e)
                }
            }
            return nil
        }

        mutating func array() -> JSON? {
            at += 1
            var items: [JSON] = []
            skipSpace()
            if at < bytes.count, bytes[at] == UInt8(ascii: "]") {
                at += 1
                return .array(items)
            }
            while true {
                guard let v = value() else { return nil }
                items.append(v)
                skipSpace()
                guard at < bytes.count else { return nil }
                at += 1
                if bytes[at - 1] == UInt8(ascii: "]") { return .array(items) }
                guard bytes[at - 1] == UInt8(ascii: ",") else { return nil }
            }
        }

        mutating func object() -> JSON? {
            at += 1
            var fields: [Field] = []
            skipSpace()
            if at < bytes.count, bytes[at] == UInt8(ascii: "}") {
                at += 1
                return .object(fields)
            }
            while true {
                skipSpace()
                guard at < bytes.count, bytes[at] == UInt8(ascii: "\""), let key = string() else {
                    return nil
                }
                skipSpace()
                guard at < bytes.count, bytes[at] == UInt8(ascii: ":") else { return nil }
                at += 1
                guard let v = value() else { return nil }
                fields.append(Field(key: key, value: v))
                skipSpace()
                guard at < bytes.count else { return nil }
                at += 1
                if bytes[at - 1] == UInt8(ascii: "}") { return .object(fields) }
                guard bytes[at - 1] == UInt8(ascii: ",") else { return nil }
            }
        }
    }
}
