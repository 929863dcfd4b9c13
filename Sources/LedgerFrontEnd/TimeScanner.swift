/// Steps through a time's characters (ASCII only: anything else fails to match).
struct TimeScanner {
    let bytes: [UInt8]
    var at = 0

    init(_ text: String) { bytes = Array(text.utf8) }

    var atEnd: Bool { at == bytes.count }
    var peek: Character? { atEnd ? nil : Character(Unicode.Scalar(bytes[at])) }

    /// Consumes `c` if it is next.
    mutating func take(_ c: Character) -> Bool {
        guard peek == c else { return false }
        at += 1
        return true
    }

    /// Exactly `count` digits, or nil (consuming nothing).
    mutating func digits(exactly count: Int) -> Int64? {
        guard at + count <= bytes.count, bytes[at..<at + count].allSatisfy(Self.isDigit) else { return nil }
        defer { at += count }
        return bytes[at..<at + count].reduce(0) { $0 * 10 + Int64($1 - 0x30) }
    }

    /// One to `max` digits, all that follow (nil when none, or more than `max`).
    mutating func digits(max: Int) -> Int64? {
        var end = at
        while end < bytes.count, Self.isDigit(bytes[end]) { end += 1 }
        guard end > at, end - at <= max else { return nil }
        return digits(exactly: end - at)
    }

    /// Fractional seconds after the `.`, as milliseconds (digits beyond the third are dropped).
    mutating func fraction(_ raw: String) throws(InputError) -> Int64 {
        var end = at
        while end < bytes.count, Self.isDigit(bytes[end]) { end += 1 }
        guard end > at else { throw InputError("not a time: '\(raw)' (digits must follow the '.')") }
        let kept = bytes[at..<min(end, at + 3)].reduce(0) { $0 * 10 + Int64($1 - 0x30) }
        let scale: Int64 = [100, 10, 1][min(end - at, 3) - 1]
        at = end
        return kept * scale
    }

    private static func isDigit(_ b: UInt8) -> Bool { (0x30...0x39).contains(b) }
}
