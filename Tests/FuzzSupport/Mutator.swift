import Foundation

/// Damages valid encodings the ways a tampered log can (seeded: every run damages them the same way): bits
/// flipped, bytes set to values that mean something to a decoder, cut short, bytes inserted, spans repeated or
/// removed, length and count fields set to 0, huge or negative, nesting piled up, UTF-8 broken, numbers too large.
public struct Mutator {
    public var rng: SplitMix64

    public init(seed: UInt64) { rng = SplitMix64(seed: seed) }

    /// How many mutations each decoder's fuzz test runs: `DLEDGER_FUZZ_ITERATIONS` when set (far more, by hand),
    /// else `standard` (a few seconds in `swift test`).
    public static func iterations(_ standard: Int) -> Int {
        ProcessInfo.processInfo.environment["DLEDGER_FUZZ_ITERATIONS"].flatMap(Int.init) ?? standard
    }

    /// Bytes a decoder gives a meaning to: quotes, escapes, brackets, digits, signs, LEB128 continuation bits,
    /// broken UTF-8 lead and continuation bytes.
    static let special: [UInt8] = [
        0x00, 0x01, 0x7F, 0x80, 0xFF, 0xC0, 0xC3, 0xE2, 0xED, 0xF4, 0xF8, 0x22, 0x5C, 0x7B, 0x7D, 0x5B, 0x5D,
        0x3A, 0x2C, 0x2D, 0x30, 0x39, 0x75, 0x6E, 0x74, 0x1B, 0x0A,
    ]

    /// Fragments spliced in: JSON numbers out of range, nesting, escapes that do not read, LEB128 numbers that
    /// mean 0, -1, the largest and the smallest, an unterminated one.
    static let fragments: [[UInt8]] = [
        Array("99999999999999999999".utf8), Array("-9223372036854775808".utf8), Array("-".utf8),
        Array("1e999".utf8), Array("-0".utf8), Array("null".utf8), Array("true".utf8), Array("\"\"".utf8),
        Array(String(repeating: "[", count: 200).utf8), Array(String(repeating: "{\"a\":", count: 100).utf8),
        Array(#"\ud800"#.utf8), Array(#"\udc00\u"#.utf8), Array(#"\uD83D\uDE00"#.utf8), Array(#"\u12"#.utf8),
        [0xED, 0xA0, 0x80], [0xC3], [0xF0, 0x9F, 0x98], [0xFF, 0xFE],
        [0x00], [0x01], [0x7F], [0xFF, 0xFF, 0xFF, 0xFF, 0x0F],
        [0xFE, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0x01],
        [0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0x01], [0x80, 0x80, 0x80],
        Array(repeating: 0xFF, count: 12),
        Array("sealed:v1:".utf8), Array("sealed:v1:1:00:".utf8), Array("\u{1B}[200~".utf8),
    ]

    /// `bytes` with one to four mutations.
    public mutating func mutate(_ bytes: [UInt8]) -> [UInt8] {
        var b = bytes
        for _ in 0...rng.below(4) { mutateOnce(&b) }
        return b
    }

    private mutating func mutateOnce(_ b: inout [UInt8]) {
        let at = rng.below(b.count + 1)
        switch rng.below(10) {
        case 0 where !b.isEmpty: b[rng.below(b.count)] ^= 1 << UInt8(rng.below(8))
        case 1 where !b.isEmpty: b[rng.below(b.count)] = rng.pick(Self.special)
        case 2 where !b.isEmpty: b[rng.below(b.count)] = UInt8(truncatingIfNeeded: rng.next())
        case 3: b.removeSubrange(rng.below(b.count + 1)...)
        case 4: b.insert(contentsOf: (0...rng.below(4)).map { _ in rng.pick(Self.special) }, at: at)
        case 5 where !b.isEmpty:
            let span = spanAt(b)
            b.insert(contentsOf: b[span], at: rng.below(b.count + 1))
        case 6 where !b.isEmpty: b.removeSubrange(spanAt(b))
        case 7 where !b.isEmpty:
            // A fragment in place of what was there.
            let span = spanAt(b)
            b.replaceSubrange(
                span.lowerBound..<min(b.count, span.lowerBound + 1 + rng.below(3)), with: fragment())
        case 8: b.insert(contentsOf: fragment(), at: at)
        default:
            // A digit run made longer: a number out of range.
            if let i = b.indices.filter({ (0x30...0x39).contains(b[$0]) }).randomElement(using: &rng) {
                b.insert(contentsOf: Array(repeating: 0x39, count: 1 + rng.below(24)), at: i)
            } else if !b.isEmpty {
                b[rng.below(b.count)] = 0xFF
            }
        }
    }

    private mutating func fragment() -> [UInt8] { rng.pick(Self.fragments) }

    private mutating func spanAt(_ b: [UInt8]) -> Range<Int> {
        let start = rng.below(b.count)
        return start..<min(b.count, start + 1 + rng.below(rng.chance(0.8) ? 8 : 64))
    }

    /// Calls `body` with `bytes` in memory of exactly their size (freed after): a read past the end is a read
    /// outside the allocation, which AddressSanitizer reports.
    public static func exact<R>(_ bytes: [UInt8], _ body: (UnsafeRawBufferPointer) throws -> R) rethrows -> R
    {
        let memory = UnsafeMutableRawBufferPointer.allocate(byteCount: max(bytes.count, 1), alignment: 1)
        defer { memory.deallocate() }
        bytes.withUnsafeBytes { memory.copyMemory(from: $0) }
        return try body(UnsafeRawBufferPointer(rebasing: memory[0..<bytes.count]))
    }
}
