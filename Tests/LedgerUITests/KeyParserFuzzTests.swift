import FuzzSupport
import LedgerUI
import Testing

/// `KeyParser` fed what a terminal (or a program writing to it) can send: keys, UTF-8 whole and broken, escape
/// sequences known and not, bracketed pastes closed and not, random bytes, cut into reads anywhere. It never traps
/// or hangs, gives the same keys however the bytes are cut, and gives text exactly as typed or pasted.
@Suite struct KeyParserFuzzTests {
    static let pasteStart = Array("\u{1B}[200~".utf8)
    static let pasteEnd = Array("\u{1B}[201~".utf8)

    /// One piece of terminal input.
    static func piece(_ rng: inout SplitMix64) -> [UInt8] {
        switch rng.below(12) {
        case 0: return [UInt8(0x20 + rng.below(0x5F))]
        case 1: return [UInt8(rng.below(0x20))]
        case 2: return Array(String(scalar(&rng)).utf8)
        case 3: return [rng.pick([0x80, 0xBF, 0xC0, 0xC3, 0xE2, 0xED, 0xF0, 0xF4, 0xF8, 0xFF] as [UInt8])]
        case 4:
            // A CSI sequence: parameters, then a final byte (known or not), or cut before it.
            let params = (0..<rng.below(6)).map { _ in UInt8(0x30 + rng.below(0x10)) }
            let final: [UInt8] = rng.chance(0.9) ? [UInt8(0x40 + rng.below(0x3F))] : []
            return [0x1B, 0x5B] + params + final
        case 5: return [0x1B, 0x4F, UInt8(rng.below(256))]
        case 6: return [0x1B]
        case 7: return pasteStart
        case 8: return pasteEnd
        case 9:
            return Array(
                "\u{1B}[\(rng.pick(["1", "3", "4", "5", "6", "7", "8", "200", "201", "99999999999"]))~".utf8)
        default: return (0..<1 + rng.below(8)).map { _ in UInt8(truncatingIfNeeded: rng.next()) }
        }
    }

    /// A printable scalar (not a control character).
    static func scalar(_ rng: inout SplitMix64) -> Unicode.Scalar {
        while true {
            let ranges: [ClosedRange<UInt32>] = [
                0x20...0x7E, 0xA0...0x7FF, 0x800...0xD7FF, 0xE000...0xFFFD, 0x10000...0x10FFFF,
            ]
            let range = rng.pick(ranges)
            if let s = Unicode.Scalar(
                range.lowerBound + UInt32(rng.below(Int(range.upperBound - range.lowerBound) + 1)))
            {
                return s
            }
        }
    }

    /// The keys of `bytes` fed in one read, or in reads cut at random (seeded), then flushed.
    static func keys(_ bytes: [UInt8], cutting seed: UInt64? = nil) -> [Key] {
        var rng = SplitMix64(seed: seed ?? 0)
        var parser = KeyParser()
        var keys: [Key] = []
        var at = 0
        while at < bytes.count {
            let n = seed == nil ? bytes.count : 1 + rng.below(9)
            keys += parser.feed(Array(bytes[at..<min(bytes.count, at + n)]))
            at += n
        }
        keys += parser.flush()
        #expect(!parser.hasPending)
        return keys
    }

    @Test(.timeLimit(.minutes(5))) func anyInputGivesTheSameKeysHoweverItIsCut() {
        var rng = SplitMix64(seed: 0x4B_E75)
        for _ in 0..<Mutator.iterations(3_000) {
            let bytes = (0..<rng.below(40)).flatMap { _ in Self.piece(&rng) }
            let once = Self.keys(bytes)
            #expect(Self.keys(bytes, cutting: rng.next()) == once, "\(bytes)")
            for key in once {
                if case .char(let c) = key {
                    #expect(c.unicodeScalars.allSatisfy { $0.value >= 0x20 && $0.value != 0x7F })
                }
            }
        }
    }

    /// Found by the fuzz test: a typed U+FFFD (the replacement character itself) was dropped, taken for broken
    /// UTF-8; and a byte that starts no character (0xF8) waited for three more, so that a flush dropped the key
    /// typed after it. Broken UTF-8 is dropped, byte by byte, and what follows it read at once.
    @Test func aTypedReplacementCharacterIsKeptAndBrokenUTF8Dropped() {
        var p = KeyParser()
        #expect(p.feed(Array("a\u{FFFD}b".utf8)) == [.char("a"), .char("\u{FFFD}"), .char("b")])
        #expect(
            p.feed([0xC3, 0x41, 0xED, 0xA0, 0x80, 0x42, 0xF8, 0x43]) == [.char("A"), .char("B"), .char("C")])
        #expect(p.feed([0xF0, 0x9F]).isEmpty && p.hasPending)
        #expect(p.feed([0x44]) == [.char("D")])
        #expect(!p.hasPending)
    }

    @Test func typedTextIsEveryCharacterAndPastedTextIsOnePaste() {
        var rng = SplitMix64(seed: 0x7E_C7)
        for _ in 0..<Mutator.iterations(1_000) {
            let scalars = (0..<1 + rng.below(20)).map { _ in Self.scalar(&rng) }
            let text = Array(String(String.UnicodeScalarView(scalars)).utf8)
            #expect(Self.keys(text, cutting: rng.next()) == scalars.map { .char(Character($0)) })
            // A paste holds any bytes but its end marker: newlines, escapes, broken UTF-8.
            let inside = (0..<rng.below(10)).flatMap { _ in Self.piece(&rng) }.split(separator: 0x1B).joined(
                separator: [0x1C] as [UInt8])
            let pasted = Array(inside)
            #expect(
                Self.keys(Self.pasteStart + pasted + Self.pasteEnd, cutting: rng.next())
                    == [.paste(String(decoding: pasted, as: UTF8.self))])
        }
    }
}
