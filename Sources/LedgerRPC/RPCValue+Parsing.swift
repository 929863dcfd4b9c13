import Foundation
import LedgerFrontEnd

/// The RPC reads requests with Foundation's decoder: on a listening port no parser of the project's own (the
/// ledger's payload reader takes integers only, and trusts what its writer wrote).
extension JSONValue {
    /// The deepest nesting of arrays and objects a parsed document may have. aria2's requests nest four levels
    /// (a batch, a call, its parameters, an option object); Foundation's decoder slows down sharply with depth
    /// (a 108 KB body nested 450 deep took seconds), so deeper text is refused before it is decoded.
    public static let maxDepth = 64

    /// Parses JSON text with Foundation's decoder (no parser of our own on a listening port).
    /// - Returns: nil when the bytes are not one JSON document, or nest deeper than ``maxDepth``.
    public static func parse(_ bytes: [UInt8]) -> RPCValue? {
        guard !bytes.withUnsafeBytes({ nests($0, deeperThan: maxDepth) }) else { return nil }
        return decode(Data(bytes))
    }

    /// Parses JSON text; nil when it is not one JSON document, or nests deeper than ``maxDepth``.
    public static func parse(_ data: Data) -> RPCValue? {
        guard !data.withUnsafeBytes({ nests($0, deeperThan: maxDepth) }) else { return nil }
        return decode(data)
    }

    /// Parses JSON text whose depth was already checked (``nests(_:deeperThan:)``): the one pass of
    /// `Aria2Service.read(_:)` over a body it bounded itself.
    static func decode(_ data: Data) -> RPCValue? {
        try? JSONDecoder().decode(Decoded.self, from: data).value
    }

    /// Whether JSON text opens more than `limit` arrays or objects inside each other, counted in one pass over
    /// the bytes (brackets inside strings do not count). It does not check that the text is JSON: it only bounds
    /// what the decoder is given, and stops at the first level past `limit`.
    public static func nests(_ bytes: UnsafeRawBufferPointer, deeperThan limit: Int) -> Bool {
        var depth = 0
        var inString = false
        var escaped = false
        for byte in bytes {
            if inString {
                if escaped {
                    escaped = false
                } else if byte == UInt8(ascii: "\\") {
                    escaped = true
                } else if byte == UInt8(ascii: "\"") {
                    inString = false
                }
                continue
            }
            switch byte {
            case UInt8(ascii: "\""): inString = true
            case UInt8(ascii: "["), UInt8(ascii: "{"):
                depth += 1
                if depth > limit { return true }
            case UInt8(ascii: "]"), UInt8(ascii: "}"):
                depth -= 1
            default: break
            }
        }
        return false
    }

    /// A `Decodable` wrapper: each JSON type to its case, integers that fit in 64 bits as `.int`.
    private struct Decoded: Decodable {
        var value: RPCValue

        struct Key: CodingKey {
            var stringValue: String
            var intValue: Int? { nil }
            init(stringValue: String) { self.stringValue = stringValue }
            init?(intValue: Int) { nil }
        }

        init(from decoder: Decoder) throws {
            if var items = try? decoder.unkeyedContainer() {
                var values: [RPCValue] = []
                while !items.isAtEnd { values.append(try items.decode(Decoded.self).value) }
                value = .array(values)
                return
            }
            if let object = try? decoder.container(keyedBy: Key.self) {
                var fields: [(String, RPCValue)] = []
                for key in object.allKeys.sorted(by: { $0.stringValue < $1.stringValue }) {
                    fields.append((key.stringValue, try object.decode(Decoded.self, forKey: key).value))
                }
                value = .object(fields)
                return
            }
            let single = try decoder.singleValueContainer()
            if single.decodeNil() {
                value = .null
            } else if let b = try? single.decode(Bool.self) {
                value = .bool(b)
            } else if let i = try? single.decode(Int64.self) {
                value = .int(i)
            } else if let d = try? single.decode(Double.self) {
                value = .double(d)
            } else {
                value = .string(try single.decode(String.self))
            }
        }
    }
}
