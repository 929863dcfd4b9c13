import LoopbackHTTP
import Testing

@Suite struct BodyTests {
    @Test func generatedBytesAreDeterministic() {
        let first = Body.generatedBytes(seed: 42, in: 0..<4096)
        #expect(Fingerprint(first) == Fingerprint(Body.generatedBytes(seed: 42, in: 0..<4096)))
        #expect(first != Body.generatedBytes(seed: 43, in: 0..<4096))
        #expect(Set(first).count > 200)
    }

    @Test func anyRangeAgreesWithTheWhole() {
        let body = Body.generated(size: 1000, seed: 5)
        let whole = body.allBytes
        #expect(whole.count == 1000)
        for (start, end) in [(0, 1), (3, 11), (7, 8), (8, 16), (13, 999), (999, 1000), (0, 1000)] {
            #expect(body.bytes(in: Int64(start)..<Int64(end)) == Array(whole[start..<end]))
        }
    }

    @Test func rangesAreClampedToTheBody() {
        let body = Body.generated(size: 10, seed: 1)
        #expect(Fingerprint(body.bytes(in: 5..<50)) == Fingerprint(Array(body.allBytes[5...])))
        #expect(body.bytes(in: 20..<30).isEmpty)
        #expect(Body.bytes([1, 2, 3]).bytes(in: 1..<9) == [2, 3])
        #expect(Body.generated(size: -4, seed: 1).count == 0)
    }

    @Test func farOffsetsAgreeAcrossAlignments() {
        let size: Int64 = 1 << 40
        let body = Body.generated(size: size, seed: 3)
        #expect(body.count == size)
        let window = body.bytes(in: size - 16..<size)
        #expect(Fingerprint(body.bytes(in: size - 9..<size)) == Fingerprint(Array(window.suffix(9))))
        #expect(Fingerprint(body.bytes(in: size - 15..<size - 2)) == Fingerprint(Array(window[1..<14])))
    }
}
