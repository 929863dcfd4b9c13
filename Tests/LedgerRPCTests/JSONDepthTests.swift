import Foundation
import LedgerRPC
import Testing

/// What a listening port parses: JSON deeper than ``RPCValue/maxDepth`` is refused before Foundation decodes it,
/// brackets inside strings do not count, and no body, however mangled, traps or goes unanswered.
@Suite struct JSONDepthTests {
    static func arrays(_ depth: Int) -> String {
        String(repeating: "[", count: depth) + "1" + String(repeating: "]", count: depth)
    }

    static func objects(_ depth: Int) -> String {
        String(repeating: #"{"a":"#, count: depth) + "1" + String(repeating: "}", count: depth)
    }

    @Test(arguments: [1, 2, 63, 64, 65, 66, 450, 5000])
    func nestingUpToTheLimitParsesAndDeeperIsRefused(depth: Int) {
        for text in [Self.arrays(depth), Self.objects(depth)] {
            let bytes = Array(text.utf8)
            #expect((RPCValue.parse(bytes) != nil) == (depth <= RPCValue.maxDepth), "depth \(depth)")
            #expect(bytes.withUnsafeBytes { RPCValue.nests($0, deeperThan: 64) } == (depth > 64))
        }
    }

    @Test func bracketsInsideStringsAndEscapesDoNotCount() throws {
        let brackets = String(repeating: "[{", count: 200)
        let text = #"{"a":"\#(brackets)","b":"\"[[[\\","c":["x\"]]]]"]}"#
        let value = try #require(RPCValue.parse(Array(text.utf8)))
        #expect(value["a"]?.stringValue == brackets)
        #expect(value["b"]?.stringValue == #""[[[\"#)
    }

    /// Random documents of known depth (strings full of brackets, quotes and escapes among them): the scan agrees
    /// with the depth they were built with, and those within the limit decode as Foundation reads them.
    @Test func randomDocumentsOfKnownDepth() throws {
        var rng = SplitMix(seed: 26)
        for _ in 0..<400 {
            let depth = Int.random(in: 0...90, using: &rng)
            let text = Self.document(depth: depth, using: &rng)
            let bytes = Array(text.utf8)
            #expect(bytes.withUnsafeBytes { RPCValue.nests($0, deeperThan: 64) } == (depth > 64), "\(text)")
            let parsed = RPCValue.parse(bytes)
            #expect((parsed != nil) == (depth <= 64), "\(text)")
            if let parsed {
                let again = try #require(RPCValue.parse(parsed.bytes()))
                #expect(again == parsed)
            }
        }
    }

    /// Bytes of a real request mangled at random (cut, bytes changed, brackets added): the service answers each
    /// with one JSON reply, a result or an error, and never traps.
    @Test func mangledBodiesAreAnsweredWithJSON() throws {
        let h = try RPCHarness(listen: false)
        let seed = Array(
            #"[{"jsonrpc":"2.0","id":"a\"[","method":"aria2.tellActive","params":[["gid",{"x":[1,2.5e3]}]]}]"#
                .utf8)
        var rng = SplitMix(seed: 6455)
        let alphabet = Array(#"[]{}",:\ 0123456789aeflnrstu-+.eE"#.utf8)
        for _ in 0..<2000 {
            var body = seed
            for _ in 0..<Int.random(in: 1...6, using: &rng) {
                let at = Int.random(in: 0..<max(1, body.count), using: &rng)
                switch Int.random(in: 0..<4, using: &rng) {
                case 0: if at < body.count { body[at] = alphabet.randomElement(using: &rng)! }
                case 1: body.insert(contentsOf: Array(repeating: UInt8(ascii: "["), count: 70), at: at)
                case 2: body = Array(body.prefix(at))
                default: body.insert(UInt8.random(in: 0...255, using: &rng), at: at)
                }
            }
            let reply = h.service.reply(to: body)
            #expect((try? JSONSerialization.jsonObject(with: Data(reply.bytes))) != nil, "\(body)")
        }
    }

    static func document(depth: Int, using rng: inout SplitMix) -> String {
        if depth == 0 { return leaf(using: &rng) }
        let inner = document(depth: depth - 1, using: &rng)
        var items = [inner]
        for _ in 0..<Int.random(in: 0...2, using: &rng) { items.append(leaf(using: &rng)) }
        items.shuffle(using: &rng)
        if Bool.random(using: &rng) { return "[" + items.joined(separator: ",") + "]" }
        return "{" + items.enumerated().map { #""k\#($0.offset)":\#($0.element)"# }.joined(separator: ",")
            + "}"
    }

    static func leaf(using rng: inout SplitMix) -> String {
        switch Int.random(in: 0..<4, using: &rng) {
        case 0: return String(Int.random(in: -1000...1000, using: &rng))
        case 1: return ["true", "false", "null"].randomElement(using: &rng)!
        case 2: return #""[[{\"]}\\""#
        default: return #""\#(String(repeating: "{[", count: Int.random(in: 0...40, using: &rng)))""#
        }
    }
}

/// A seeded generator, so a failure repeats.
struct SplitMix: RandomNumberGenerator {
    var state: UInt64
    init(seed: UInt64) { state = seed }
    mutating func next() -> UInt64 {
        state &+= 0x9E37_79B9_7F4A_7C15
        var z = state
        z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
        z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
        return z ^ (z >> 31)
    }
}
