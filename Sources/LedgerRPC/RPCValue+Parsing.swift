import Foundation

extension RPCValue {
    /// Parses JSON text with Foundation's decoder (no parser of our own on a listening port).
    /// - Returns: nil when the bytes are not one JSON document.
    public static func parse(_ bytes: [UInt8]) -> RPCValue? {
        parse(Data(bytes))
    }

    /// Parses JSON text; nil when it is not one JSON document.
    public static func parse(_ data: Data) -> RPCValue? {
        try? JSONDecoder().decode(Decoded.self, from: data).value
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
