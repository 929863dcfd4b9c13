/// A JSON value whose objects keep their key order, so output is stable and documented field by field.
enum JSON: Equatable {
    case null
    case bool(Bool)
    case int(Int64)
    case string(String)
    case array([JSON])
    case object([Field])

    struct Field: Equatable {
        var key: String
        var value: JSON
    }

    /// An object from key/value pairs, in order.
    static func obj(_ pairs: KeyValuePairs<String, JSON>) -> JSON {
        .object(pairs.map { Field(key: $0.key, value: $0.value) })
    }

    static func int(_ v: Int) -> JSON { .int(Int64(v)) }

    static func opt(_ v: String?) -> JSON { v.map(JSON.string) ?? .null }

    static func opt(_ v: Int64?) -> JSON { v.map(JSON.int) ?? .null }

    static func ids(_ ids: [Int64]) -> JSON { .array(ids.map(JSON.int)) }

    /// Compact (one line) or indented by two spaces.
    func rendered(pretty: Bool = false) -> String {
        var out = ""
        write(into: &out, pretty: pretty, depth: 0, flush: nil)
        return out
    }

    /// Renders in pieces of about `chunk` bytes handed to `flush` (then reused): a document of tens of MB is
    /// never held whole.
    func stream(pretty: Bool, chunk: Int = 1 << 18, _ flush: (String) -> Void) {
        var out = ""
        out.reserveCapacity(chunk + 4096)
        withoutActuallyEscaping(flush) { flush in
            write(into: &out, pretty: pretty, depth: 0) { full in
                guard full.utf8.count >= chunk else { return }
                flush(full)
                full.removeAll(keepingCapacity: true)
            }
            flush(out)
        }
    }

    /// Appends the value as it stands at `depth` (the indentation of its members is `depth + 1`); `flush` is offered
    /// the text after each array item.
    func write(into out: inout String, pretty: Bool, depth: Int, flush: ((inout String) -> Void)?) {
        switch self {
        case .null: out += "null"
        case .bool(let b): out += b ? "true" : "false"
        case .int(let i): out += String(i)
        case .string(let s): Self.quote(s, into: &out)
        case .array(let items):
            guard !items.isEmpty else { return out += "[]" }
            let (pad, close) = Self.padding(pretty, depth)
            out += "["
            for (i, item) in items.enumerated() {
                if i > 0 { out += "," }
                out += pad
                item.write(into: &out, pretty: pretty, depth: depth + 1, flush: flush)
                flush?(&out)
            }
            out += close
            out += "]"
        case .object(let fields):
            guard !fields.isEmpty else { return out += "{}" }
            let (pad, close) = Self.padding(pretty, depth)
            out += "{"
            for (i, field) in fields.enumerated() {
                if i > 0 { out += "," }
                out += pad
                Self.quote(field.key, into: &out)
                out += pretty ? ": " : ":"
                field.value.write(into: &out, pretty: pretty, depth: depth + 1, flush: flush)
            }
            out += close
            out += "}"
        }
    }

    /// The line break and indentation before a member, and before the closing bracket.
    private static func padding(_ pretty: Bool, _ depth: Int) -> (String, String) {
        guard pretty else { return ("", "") }
        return (
            "\n" + String(repeating: "  ", count: depth + 1), "\n" + String(repeating: "  ", count: depth)
        )
    }

    static func quote(_ s: String, into out: inout String) {
        out += "\""
        // Most strings need no escape: append them whole. (0xC2 and 0xE2 lead the C1 controls and the bidi
        // controls, escaped below.)
        if !s.utf8.contains(where: {
            $0 < 0x20 || $0 == 0x7F || $0 == UInt8(ascii: "\"") || $0 == UInt8(ascii: "\\") || $0 == 0xC2
                || $0 == 0xE2
        }) {
            out += s
            out += "\""
            return
        }
        for scalar in s.unicodeScalars {
            switch scalar {
            case "\"": out += "\\\""
            case "\\": out += "\\\\"
            case "\n": out += "\\n"
            case "\r": out += "\\r"
            case "\t": out += "\\t"
            // Controls, C1 controls and the bidi embeddings, overrides and isolates (a file name from a server
            // must not reorder or recolour the terminal that shows this JSON).
            case _
            where scalar.value < 0x20 || (0x7F...0x9F).contains(scalar.value)
                || (0x202A...0x202E).contains(scalar.value) || (0x2066...0x2069).contains(scalar.value):
                let hex = String(scalar.value, radix: 16)
                out += "\\u" + String(repeating: "0", count: 4 - hex.count) + hex
            default: out.unicodeScalars.append(scalar)
            }
        }
        out += "\""
    }
}
