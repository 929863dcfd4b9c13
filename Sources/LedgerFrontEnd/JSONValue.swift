/// A JSON value: the one type every front end writes and reads as a tree (`ls --json`, `log --json`, the RPC's
/// requests and replies). Objects keep their key order, so output is stable and documented field by field.
///
/// ```swift
/// let reply = JSONValue.obj(["id": .int(1), "result": .string("OK")])
/// reply.rendered()  // {"id":1,"result":"OK"}
/// ```
///
/// Strings are escaped by one rule (``needsEscape(_:)``), whoever writes them.
public enum JSONValue: Sendable, Equatable {
    case null
    case bool(Bool)
    /// An integer; the RPC's readers take one that fits in 64 bits as this, not as a double.
    case int(Int64)
    /// A number with a fraction or an exponent (written as `null` when not finite).
    case double(Double)
    case string(String)
    case array([JSONValue])
    /// An object's members in their order (a key may repeat; the subscript finds the first).
    case object([(String, JSONValue)])

    /// Equal values: objects with the same keys in the same order, doubles by value.
    public static func == (a: JSONValue, b: JSONValue) -> Bool {
        switch (a, b) {
        case (.null, .null): return true
        case (.bool(let x), .bool(let y)): return x == y
        case (.int(let x), .int(let y)): return x == y
        case (.double(let x), .double(let y)): return x == y
        case (.string(let x), .string(let y)): return x == y
        case (.array(let x), .array(let y)): return x == y
        case (.object(let x), .object(let y)):
            return x.count == y.count && zip(x, y).allSatisfy { $0.0 == $1.0 && $0.1 == $1.1 }
        default: return false
        }
    }

    /// An object from key/value pairs, in order.
    public static func obj(_ pairs: KeyValuePairs<String, JSONValue>) -> JSONValue {
        .object(pairs.map { ($0.key, $0.value) })
    }

    /// An integer from an `Int`.
    public static func int(_ v: Int) -> JSONValue { .int(Int64(v)) }

    /// A string, or null.
    public static func opt(_ v: String?) -> JSONValue { v.map(JSONValue.string) ?? .null }

    /// An integer, or null.
    public static func opt(_ v: Int64?) -> JSONValue { v.map(JSONValue.int) ?? .null }

    /// An array of task ids.
    public static func ids(_ ids: [Int64]) -> JSONValue { .array(ids.map(JSONValue.int)) }

    /// A number as aria2 sends every number: a decimal string.
    public static func number(_ n: Int64) -> JSONValue { .string(String(n)) }

    /// The value of `key` in an object (nil for other values or a missing key).
    public subscript(key: String) -> JSONValue? {
        guard case .object(let fields) = self else { return nil }
        return fields.first { $0.0 == key }?.1
    }

    /// The string, when this is one.
    public var stringValue: String? {
        if case .string(let s) = self { return s }
        return nil
    }

    /// The items, when this is an array.
    public var arrayValue: [JSONValue]? {
        if case .array(let a) = self { return a }
        return nil
    }

    /// The keys of an object, in order.
    public var keys: [String]? {
        if case .object(let fields) = self { return fields.map(\.0) }
        return nil
    }

    /// Compact (one line, `/` not escaped) or indented by two spaces.
    public func rendered(pretty: Bool = false) -> String {
        var out = ""
        write(into: &out, pretty: pretty, depth: 0, flush: nil)
        return out
    }

    /// Compact JSON bytes.
    public func bytes() -> [UInt8] { Array(rendered().utf8) }

    /// Renders in pieces of about `chunk` bytes handed to `flush` (then reused): a document of tens of MB is
    /// never held whole.
    public func stream(pretty: Bool, chunk: Int = 1 << 18, _ flush: (String) -> Void) {
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
    public func write(into out: inout String, pretty: Bool, depth: Int, flush: ((inout String) -> Void)?) {
        switch self {
        case .null: out += "null"
        case .bool(let b): out += b ? "true" : "false"
        case .int(let i): out += String(i)
        case .double(let d): out += d.isFinite ? String(d) : "null"
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
                Self.quote(field.0, into: &out)
                out += pretty ? ": " : ":"
                field.1.write(into: &out, pretty: pretty, depth: depth + 1, flush: flush)
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
}
