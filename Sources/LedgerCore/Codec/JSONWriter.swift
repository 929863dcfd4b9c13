/// Writes compact JSON into a byte buffer, in the order fields are given: the canonical payload form.
struct JSONWriter {
    private(set) var bytes: [UInt8] = []
    private var needsComma: [Bool] = []

    init(capacity: Int = 128) {
        bytes.reserveCapacity(capacity)
    }

    mutating func beginObject() {
        separate()
        bytes.append(UInt8(ascii: "{"))
        needsComma.append(false)
    }

    mutating func endObject() {
        bytes.append(UInt8(ascii: "}"))
        needsComma.removeLast()
    }

    mutating func beginArray(_ key: StaticString? = nil) {
        if let key { self.key(key) }
        separate()
        bytes.append(UInt8(ascii: "["))
        needsComma.append(false)
    }

    mutating func endArray() {
        bytes.append(UInt8(ascii: "]"))
        needsComma.removeLast()
    }

    mutating func key(_ key: StaticString) {
        separate()
        bytes.append(UInt8(ascii: "\""))
        key.withUTF8Buffer { bytes.append(contentsOf: $0) }
        bytes.append(UInt8(ascii: "\""))
        bytes.append(UInt8(ascii: ":"))
        needsComma[needsComma.count - 1] = false
    }

    mutating func field(_ key: StaticString, _ value: Int64) {
        self.key(key)
        int(value)
    }

    mutating func field(_ key: StaticString, _ value: Int) { field(key, Int64(value)) }

    mutating func field(_ key: StaticString, _ value: String) {
        self.key(key)
        string(value)
    }

    mutating func field(_ key: StaticString, _ value: Bool) {
        self.key(key)
        separate()
        bytes.append(contentsOf: value ? Array("true".utf8) : Array("false".utf8))
    }

    /// Writes the field only when the value is present: absent and null read back alike.
    mutating func field(_ key: StaticString, _ value: String?) {
        if let value { field(key, value) }
    }

    mutating func field(_ key: StaticString, _ value: Int64?) {
        if let value { field(key, value) }
    }

    mutating func field(_ key: StaticString, ids: [TaskID]) {
        beginArray(key)
        for id in ids { int(id) }
        endArray()
    }

    mutating func field(_ key: StaticString, strings: [String]) {
        beginArray(key)
        for s in strings { string(s) }
        endArray()
    }

    mutating func int(_ value: Int64) {
        separate()
        if value == 0 {
            bytes.append(UInt8(ascii: "0"))
            return
        }
        var magnitude = value.magnitude
        if value < 0 { bytes.append(UInt8(ascii: "-")) }
        var divisor: UInt64 = 1
        while magnitude / divisor >= 10 { divisor *= 10 }
        while divisor > 0 {
            bytes.append(UInt8(ascii: "0") + UInt8(magnitude / divisor))
            magnitude %= divisor
            divisor /= 10
        }
    }

    mutating func string(_ value: String) {
        separate()
        bytes.append(UInt8(ascii: "\""))
        for byte in value.utf8 {
            switch byte {
            case UInt8(ascii: "\""): bytes.append(contentsOf: [92, 34])
            case UInt8(ascii: "\\"): bytes.append(contentsOf: [92, 92])
            case 0x0A: bytes.append(contentsOf: [92, UInt8(ascii: "n")])
            case 0x0D: bytes.append(contentsOf: [92, UInt8(ascii: "r")])
            case 0x09: bytes.append(contentsOf: [92, UInt8(ascii: "t")])
            case 0..<0x20:
                let hex = Array("0123456789abcdef".utf8)
                bytes.append(contentsOf: [
                    92, UInt8(ascii: "u"), 48, 48, hex[Int(byte >> 4)], hex[Int(byte & 15)],
                ])
            default: bytes.append(byte)
            }
        }
        bytes.append(UInt8(ascii: "\""))
    }

    private mutating func separate() {
        guard !needsComma.isEmpty else { return }
        if needsComma[needsComma.count - 1] {
            bytes.append(UInt8(ascii: ","))
        } else {
            needsComma[needsComma.count - 1] = true
        }
    }
}
