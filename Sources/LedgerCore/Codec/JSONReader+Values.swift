/// The reader as other modules use it: value by value, over bytes it borrows for the length of one call. The
/// front ends build their JSON trees with it (`log --json` shows each event's payload as stored), so the ledger's
/// payloads have one reader.
///
/// ```swift
/// let n = try JSONReader.read(Array(#"{"id":7}"#.utf8)) { r in
///     var id: Int64 = 0
///     try r.readObject { r, key in if key == "id" { id = try r.readInt() } else { try r.skipValue() } }
///     return id
/// }
/// ```
extension JSONReader {
    /// What the next value is, by its first byte.
    public enum Next: Sendable {
        case object, array, string, bool, null, number
    }

    /// Reads the one JSON document `bytes` hold through `body`; anything but white space after it is an error.
    /// - Throws: ``PayloadError`` where the bytes are not JSON as this reader reads it (integers only, no
    ///   fractions or exponents), or what `body` throws.
    public static func read<T>(_ bytes: [UInt8], _ body: (inout JSONReader) throws -> T) throws -> T {
        try bytes.withUnsafeBytes { buffer in
            var reader = JSONReader(buffer)
            let value = try body(&reader)
            guard reader.atEnd() else { throw reader.fail("more after the value") }
            return value
        }
    }

    /// The kind of the next value (nil at the end), read from its first byte without consuming it.
    public mutating func next() -> Next? {
        switch peek() {
        case nil: return nil
        case UInt8(ascii: "{"): return .object
        case UInt8(ascii: "["): return .array
        case UInt8(ascii: "\""): return .string
        case UInt8(ascii: "t"), UInt8(ascii: "f"): return .bool
        case UInt8(ascii: "n"): return .null
        default: return .number
        }
    }

    /// Calls `body` with each key of an object, in order, its escapes decoded as a string's; `body` must read or
    /// skip the value.
    public mutating func readObject(_ body: (inout JSONReader, String) throws -> Void) throws {
        try expect(UInt8(ascii: "{"))
        if peek() == UInt8(ascii: "}") { return try expect(UInt8(ascii: "}")) }
        while true {
            let key = try string()
            try expect(UInt8(ascii: ":"))
            try body(&self, key)
            guard let next = peek() else { throw fail("unterminated object") }
            guard next == UInt8(ascii: ",") else { return try expect(UInt8(ascii: "}")) }
            try expect(next)
        }
    }

    /// Calls `body` for each item of an array; `body` must read or skip it.
    public mutating func readArray(_ body: (inout JSONReader) throws -> Void) throws { try array(body) }

    /// A string, its escapes decoded.
    public mutating func readString() throws -> String { try string() }

    /// An integer that fits in 64 bits.
    public mutating func readInt() throws -> Int64 { try int() }

    /// `true` or `false`.
    public mutating func readBool() throws -> Bool { try bool() }

    /// `null`.
    public mutating func readNull() throws {
        guard null() else { throw fail("expected null") }
    }

    /// Skips one value of any kind.
    public mutating func skipValue() throws { try skip() }
}
