/// The positional parameters of one call (the `token:` secret already taken off), read with type checks that
/// answer -32602 naming the position, as aria2 names it.
public struct RPCParams: Sendable {
    public var values: [RPCValue]

    public init(_ values: [RPCValue]) { self.values = values }

    public var count: Int { values.count }

    /// The value at `i`, nil when absent or JSON null.
    public subscript(i: Int) -> RPCValue? {
        guard values.indices.contains(i) else { return nil }
        if case .null = values[i] { return nil }
        return values[i]
    }

    private func wrongType(_ i: Int) -> RPCError {
        .invalidParams("The parameter at \(i) has wrong type.")
    }

    /// A required string.
    public func string(_ i: Int) throws -> String {
        guard let v = self[i] else { throw RPCError.invalidParams("The parameter at \(i) is missing.") }
        guard case .string(let s) = v else { throw wrongType(i) }
        return s
    }

    /// A required integer in `range` (aria2 clients send numbers, some send digit strings: both are taken).
    public func int(_ i: Int, in range: ClosedRange<Int64> = Int64(Int32.min)...Int64(Int32.max)) throws
        -> Int64
    {
        guard let v = self[i] else { throw RPCError.invalidParams("The parameter at \(i) is missing.") }
        return try Self.integer(v, range: range) ?? { throw wrongType(i) }()
    }

    /// An optional integer in `range`.
    public func optionalInt(_ i: Int, in range: ClosedRange<Int64>) throws -> Int64? {
        guard let v = self[i] else { return nil }
        return try Self.integer(v, range: range) ?? { throw wrongType(i) }()
    }

    static func integer(_ v: RPCValue, range: ClosedRange<Int64>) -> Int64? {
        switch v {
        case .int(let n): return range.contains(n) ? n : nil
        case .string(let s): return Int64(s).flatMap { range.contains($0) ? $0 : nil }
        default: return nil
        }
    }

    /// An optional array of strings (`keys`, `uris`).
    public func strings(_ i: Int) throws -> [String]? {
        guard let v = self[i] else { return nil }
        guard case .array(let items) = v else { throw wrongType(i) }
        return try items.map {
            guard case .string(let s) = $0 else { throw wrongType(i) }
            return s
        }
    }

    /// An optional object whose values are strings or arrays of strings (aria2's options); numbers and booleans
    /// are taken as their text, as aria2 does.
    public func options(_ i: Int) throws -> [(String, RPCValue)]? {
        guard let v = self[i] else { return nil }
        guard case .object(let fields) = v else { throw wrongType(i) }
        return fields
    }
}
