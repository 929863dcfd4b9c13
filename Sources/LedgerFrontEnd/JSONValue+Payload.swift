import LedgerCore

extension JSONValue {
    /// The deepest nesting of arrays and objects a payload may have: a tampered payload nested deeper is refused
    /// instead of recursing until the stack overflows (no writer makes one).
    public static let maxPayloadDepth = 64

    /// Reads a ledger payload (`Entry.encodedPayload()`) with LedgerCore's ``JSONReader``, the reader replay uses,
    /// keeping key order: `log --json` shows each event's fields exactly as the log stores them.
    ///
    /// Nil for bytes that reader refuses (a fraction, an exponent, a lone surrogate, text after the value) or that
    /// nest deeper than ``maxPayloadDepth``; the caller then shows something else.
    public init?(payload bytes: [UInt8]) {
        guard let value = try? JSONReader.read(bytes, { try Self.read(&$0, depth: 0) }) else { return nil }
        self = value
    }

    private static func read(_ r: inout JSONReader, depth: Int) throws -> JSONValue {
        guard depth < maxPayloadDepth else {
            throw InputError("nested deeper than \(maxPayloadDepth) levels")
        }
        switch r.next() {
        case .object?:
            var fields: [(String, JSONValue)] = []
            try r.readObject { r, key in fields.append((key, try read(&r, depth: depth + 1))) }
            return .object(fields)
        case .array?:
            var items: [JSONValue] = []
            try r.readArray { r in items.append(try read(&r, depth: depth + 1)) }
            return .array(items)
        case .string?: return .string(try r.readString())
        case .bool?: return .bool(try r.readBool())
        case .null?:
            try r.readNull()
            return .null
        case .number?: return .int(try r.readInt())
        case nil: throw InputError("no value")
        }
    }
}
