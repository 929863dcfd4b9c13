/// A JSON value as the RPC reads and writes it. Objects keep their key order, so replies are stable.
public enum RPCValue: Sendable, Equatable {
    case null
    case bool(Bool)
    case int(Int64)
    case double(Double)
    case string(String)
    case array([RPCValue])
    case object([(String, RPCValue)])

    public static func == (a: RPCValue, b: RPCValue) -> Bool {
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

    /// A number as aria2 sends every number: a decimal string.
    public static func number(_ n: Int64) -> RPCValue { .string(String(n)) }

    /// The value of `key` in an object (nil for other values or a missing key).
    public subscript(key: String) -> RPCValue? {
        guard case .object(let fields) = self else { return nil }
        return fields.first { $0.0 == key }?.1
    }

    public var stringValue: String? {
        if case .string(let s) = self { return s }
        return nil
    }

    public var arrayValue: [RPCValue]? {
        if case .array(let a) = self { return a }
        return nil
    }

    /// The keys of an object, in order.
    public var keys: [String]? {
        if case .object(let fields) = self { return fields.map(\.0) }
        return nil
    }

    /// Compact JSON text, `/` not escaped.
    public func rendered() -> String {
        var out = ""
        write(into: &out)
        return out
    }

    /// Compact JSON bytes.
    public func bytes() -> [UInt8] { Array(rendered().utf8) }

    private func write(into out: inout String) {
        switch self {
        case .null: out += "null"
        case .bool(let b): out += b ? "true" : "false"
        case .int(let i): out += String(i)
        case .double(let d): out += d.isFinite ? String(d) : "null"
        case .string(let s): Self.quote(s, into: &out)
        case .array(let items):
            out += "["
            for (i, item) in items.enumerated() {
                if i > 0 { out += "," }
                item.write(into: &out)
            }
            out += "]"
        case .object(let fields):
            out += "{"
            for (i, field) in fields.enumerated() {
                if i > 0 { out += "," }
                Self.quote(field.0, into: &out)
                out += ":"
                field.1.write(into: &out)
            }
            out += "}"
        }
    }

    private static func quote(_ s: String, into out: inout String) {
        out += "\""
        var plain = true
        for u in s.utf8 where u < 0x20 || u == 0x22 || u == 0x5C {
            plain = false
            break
        }
        if plain {
            out += s
        } else {
            for scalar in s.unicodeScalars {
                switch scalar {
                case "\"": out += "\\\""
                case "\\": out += "\\\\"
                case "\n": out += "\\n"
                case "\r": out += "\\r"
                case "\t": out += "\\t"
                default:
                    if scalar.value < 0x20 {
                        let hex = String(scalar.value, radix: 16)
                        out += "\\u" + String(repeating: "0", count: 4 - hex.count) + hex
                    } else {
                        out.unicodeScalars.append(scalar)
                    }
                }
            }
        }
        out += "\""
    }
}
