/// A payload that is not the JSON this ledger writes.
public struct PayloadError: Error, Sendable, Equatable, CustomStringConvertible {
    public var message: String
    public var offset: Int

    public var description: String { "bad event payload at byte \(offset): \(message)" }
}

/// Reads JSON straight from borrowed bytes, without building a tree: the replay hot path. Other modules read
/// through ``read(_:_:)`` (`JSONReader+Values.swift`).
public struct JSONReader {
    private let base: UnsafePointer<UInt8>
    private let end: Int
    private(set) var offset = 0
    /// How many values `skip` is inside: a payload nested deeper than `maxSkipDepth` (no writer makes one; a
    /// tampered row can) is an error, not a recursion until the stack overflows.
    private var skipDepth = 0
    static let maxSkipDepth = 64

    init(_ buffer: UnsafeRawBufferPointer) {
        // An empty buffer may have no base address; with `end == 0` the pointer is never read.
        base = buffer.baseAddress?.assumingMemoryBound(to: UInt8.self) ?? UnsafePointer(bitPattern: 1)!
        end = buffer.count
    }

    func fail(_ message: String) -> PayloadError { PayloadError(message: message, offset: offset) }

    private mutating func skipSpace() {
        while offset < end {
            switch base[offset] {
            case 0x20, 0x0A, 0x0D, 0x09: offset += 1
            default: return
            }
        }
    }

    mutating func expect(_ byte: UInt8) throws {
        skipSpace()
        guard offset < end, base[offset] == byte else {
            throw fail("expected '\(Character(Unicode.Scalar(byte)))'")
        }
        offset += 1
    }

    mutating func peek() -> UInt8? {
        skipSpace()
        return offset < end ? base[offset] : nil
    }

    /// Calls `body` with each key of an object; `body` must read or skip the value.
    mutating func object(_ body: (inout JSONReader, UnsafeBufferPointer<UInt8>) throws -> Void) throws {
        try expect(UInt8(ascii: "{"))
        if peek() == UInt8(ascii: "}") {
            offset += 1
            return
        }
        while true {
            let key = try rawString()
            try expect(UInt8(ascii: ":"))
            try body(&self, key)
            skipSpace()
            guard offset < end else { throw fail("unterminated object") }
            if base[offset] == UInt8(ascii: ",") {
                offset += 1
                continue
            }
            try expect(UInt8(ascii: "}"))
            return
        }
    }

    /// Calls `body` for each element of an array.
    mutating func array(_ body: (inout JSONReader) throws -> Void) throws {
        try expect(UInt8(ascii: "["))
        if peek() == UInt8(ascii: "]") {
            offset += 1
            return
        }
        while true {
            try body(&self)
            skipSpace()
            guard offset < end else { throw fail("unterminated array") }
            if base[offset] == UInt8(ascii: ",") {
                offset += 1
                continue
            }
            try expect(UInt8(ascii: "]"))
            return
        }
    }

    mutating func int() throws -> Int64 {
        skipSpace()
        var negative = false
        if offset < end, base[offset] == UInt8(ascii: "-") {
            negative = true
            offset += 1
        }
        let start = offset
        // Accumulated with the number's own sign, so that Int64.min (whose magnitude Int64 cannot hold) reads back.
        var value: Int64 = 0
        while offset < end, base[offset] >= 48, base[offset] <= 57 {
            let digit = Int64(base[offset] - 48)
            let (m, o1) = value.multipliedReportingOverflow(by: 10)
            let (a, o2) = negative ? m.subtractingReportingOverflow(digit) : m.addingReportingOverflow(digit)
            if o1 || o2 { throw fail("integer too large") }
            value = a
            offset += 1
        }
        if offset == start { throw fail("expected an integer") }
        return value
    }

    mutating func bool() throws -> Bool {
        skipSpace()
        if match("true") { return true }
        if match("false") { return false }
        throw fail("expected a boolean")
    }

    /// True (and consumed) when the next value is null.
    mutating func null() -> Bool {
        skipSpace()
        return match("null")
    }

    private mutating func match(_ word: StaticString) -> Bool {
        let n = word.utf8CodeUnitCount
        guard offset + n <= end else { return false }
        let p = word.utf8Start
        for i in 0..<n where base[offset + i] != p[i] { return false }
        offset += n
        return true
    }

    mutating func string() throws -> String {
        skipSpace()
        guard offset < end, base[offset] == UInt8(ascii: "\"") else { throw fail("expected a string") }
        offset += 1
        let start = offset
        while offset < end {
            let b = base[offset]
            if b == UInt8(ascii: "\"") {
                let s = String(
                    decoding: UnsafeBufferPointer(start: base + start, count: offset - start), as: UTF8.self)
                offset += 1
                return s
            }
            if b == UInt8(ascii: "\\") {
                offset = start
                return try escapedString()
            }
            offset += 1
        }
        throw fail("unterminated string")
    }

    /// A string equal to `previous` is `previous` itself (no new string is allocated for it); any other becomes the
    /// new `previous`. Only a `previous` without a backslash or a quote is matched byte for byte (its JSON is
    /// those bytes).
    mutating func string(reusing previous: inout String) throws -> String {
        skipSpace()
        if offset < end, base[offset] == UInt8(ascii: "\"") {
            let equal = previous.utf8.withContiguousStorageIfAvailable { p -> Bool in
                let start = offset + 1
                guard !p.isEmpty, start + p.count < end, base[start + p.count] == UInt8(ascii: "\""),
                    !p.contains(where: { $0 == UInt8(ascii: "\\") || $0 == UInt8(ascii: "\"") })
                else { return false }
                return UnsafeBufferPointer(start: base + start, count: p.count).elementsEqual(p)
            }
            if equal == true {
                offset += previous.utf8.count + 2
                return previous
            }
        }
        previous = try string()
        return previous
    }

    private mutating func escapedString() throws -> String {
        var out: [UInt8] = []
        while offset < end {
            let b = base[offset]
            offset += 1
            if b == UInt8(ascii: "\"") { return String(decoding: out, as: UTF8.self) }
            guard b == UInt8(ascii: "\\") else {
                out.append(b)
                continue
            }
            guard offset < end else { break }
            let e = base[offset]
            offset += 1
            switch e {
            case UInt8(ascii: "n"): out.append(0x0A)
            case UInt8(ascii: "r"): out.append(0x0D)
            case UInt8(ascii: "t"): out.append(0x09)
            case UInt8(ascii: "b"): out.append(0x08)
            case UInt8(ascii: "f"): out.append(0x0C)
            case UInt8(ascii: "u"):
                let scalar = try hex4()
                var code = scalar
                if (0xD800..<0xDC00).contains(scalar), match("\\u") {
                    let low = try lowSurrogate()
                    code = 0x10000 + ((scalar - 0xD800) << 10) + (low - 0xDC00)
                }
                let s = String(Unicode.Scalar(code) ?? "\u{FFFD}")
                out.append(contentsOf: s.utf8)
            default: out.append(e)
            }
        }
        throw fail("unterminated string")
    }

    /// The second half of a surrogate pair: anything else after a high surrogate is refused (a tampered payload),
    /// never left to overflow the arithmetic that joins the two.
    private mutating func lowSurrogate() throws -> UInt32 {
        let low = try hex4()
        guard (0xDC00..<0xE000).contains(low) else { throw fail("bad surrogate pair") }
        return low
    }

    /// Reads past a string exactly as ``string()`` reads it, refusing what it refuses (an unterminated string, a bad
    /// `\u` escape or surrogate pair), without making it: returns the offset of its opening quote, from which
    /// ``string(at:)`` reads it when it turns out to be wanted.
    mutating func skipString() throws -> Int {
        skipSpace()
        guard offset < end, base[offset] == UInt8(ascii: "\"") else { throw fail("expected a string") }
        let start = offset
        offset += 1
        while offset < end {
            skipPlainBytes()
            guard offset < end else { break }
            let b = base[offset]
            offset += 1
            if b == UInt8(ascii: "\"") { return start }
            guard b == UInt8(ascii: "\\") else { continue }
            guard offset < end else { break }
            let e = base[offset]
            offset += 1
            if e == UInt8(ascii: "u"), (0xD800..<0xDC00).contains(try hex4()), match("\\u") {
                _ = try lowSurrogate()
            }
        }
        throw fail("unterminated string")
    }

    /// Moves past the bytes of a string that are neither a quote nor a backslash, eight at a time (a big add's URLs
    /// are read past, not made): stops at the first word that holds one, for the byte loop to read.
    @inline(__always)
    private mutating func skipPlainBytes() {
        let ones: UInt64 = 0x0101_0101_0101_0101
        let highs: UInt64 = 0x8080_8080_8080_8080
        let raw = UnsafeRawPointer(base)
        while offset + 8 <= end {
            let word = UInt64(littleEndian: raw.loadUnaligned(fromByteOffset: offset, as: UInt64.self))
            // A byte of `quote` (`backslash`) is zero where `word` holds a quote (a backslash): the test for a zero byte.
            let quote = word ^ (ones &* UInt64(UInt8(ascii: "\"")))
            let backslash = word ^ (ones &* UInt64(UInt8(ascii: "\\")))
            let zero = ((quote &- ones) & ~quote | (backslash &- ones) & ~backslash) & highs
            if zero != 0 { return }
            offset += 8
        }
    }

    /// The string whose opening quote is at `start` (an offset ``skipString()`` returned).
    func string(at start: Int) throws -> String {
        var copy = self
        copy.offset = start
        return try copy.string()
    }

    private mutating func hex4() throws -> UInt32 {
        guard offset + 4 <= end else { throw fail("bad \\u escape") }
        var v: UInt32 = 0
        for _ in 0..<4 {
            let c = base[offset]
            offset += 1
            v <<= 4
            switch c {
            case 48...57: v |= UInt32(c - 48)
            case 65...70: v |= UInt32(c - 55)
            case 97...102: v |= UInt32(c - 87)
            default: throw fail("bad \\u escape")
            }
        }
        return v
    }

    /// The raw bytes of a string without escapes (keys): no allocation.
    private mutating func rawString() throws -> UnsafeBufferPointer<UInt8> {
        skipSpace()
        guard offset < end, base[offset] == UInt8(ascii: "\"") else { throw fail("expected a key") }
        offset += 1
        let start = offset
        while offset < end, base[offset] != UInt8(ascii: "\"") { offset += 1 }
        guard offset < end else { throw fail("unterminated key") }
        defer { offset += 1 }
        return UnsafeBufferPointer(start: base + start, count: offset - start)
    }

    /// Skips any value (unknown keys from newer writers are ignored).
    mutating func skip() throws {
        guard skipDepth < Self.maxSkipDepth else {
            throw fail("nested deeper than \(Self.maxSkipDepth) levels")
        }
        skipDepth += 1
        defer { skipDepth -= 1 }
        switch peek() {
        case UInt8(ascii: "{"): try object { r, _ in try r.skip() }
        case UInt8(ascii: "["): try array { r in try r.skip() }
        case UInt8(ascii: "\""): _ = try skipString()
        case UInt8(ascii: "t"), UInt8(ascii: "f"): _ = try bool()
        case UInt8(ascii: "n"): _ = null()
        default: _ = try int()
        }
    }

    func atEnd() -> Bool {
        var copy = self
        copy.skipSpace()
        return copy.offset >= copy.end
    }
}

extension UnsafeBufferPointer where Element == UInt8 {
    /// Compares with an ASCII literal without allocating.
    @inline(__always)
    func equals(_ literal: StaticString) -> Bool {
        let n = literal.utf8CodeUnitCount
        guard count == n else { return false }
        let p = literal.utf8Start
        for i in 0..<n where self[i] != p[i] { return false }
        return true
    }
}
