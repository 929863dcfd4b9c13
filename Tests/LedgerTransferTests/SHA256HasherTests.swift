import Foundation
import Testing

@testable import LedgerTransfer

/// The native SHA-256 engine (x86 SHA extensions, one or two chains at once) against FIPS 180-4's examples and
/// against OpenSSL, over every way the bytes can arrive: odd piece sizes, partial blocks, two files side by side.
@Suite struct SHA256HasherTests {
    static func digest(_ bytes: [UInt8], native: Bool) throws -> String {
        let hasher = try SHA256Hasher(native: native)
        bytes.withUnsafeBytes { hasher.update($0) }
        return hasher.finish()
    }

    /// The engines this machine runs: OpenSSL's always, the native one where the CPU has the SHA extensions.
    static var engines: [Bool] { SHA256Hasher.nativeAvailable ? [false, true] : [false] }

    @Test func knownDigests() throws {
        let examples: [(String, String)] = [
            ("", "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855"),
            ("abc", "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad"),
            (
                "abcdbcdecdefdefgefghfghighijhijkijkljklmklmnlmnomnopnopq",
                "248d6a61d20638b8e5c026930c3e6039a33ce45964ff2167f6ecedd419db06c1"
            ),
        ]
        for native in Self.engines {
            for (text, expected) in examples {
                #expect(
                    try Self.digest(Array(text.utf8), native: native) == expected, "native \(native): \(text)"
                )
            }
            let million = [UInt8](repeating: UInt8(ascii: "a"), count: 1_000_000)
            #expect(
                try Self.digest(million, native: native)
                    == "cdc76e5c9914fb9281a1c7e284d73e67f1809a48a497200e046d39ccc7112cd0")
        }
    }

    @Test(.enabled(if: SHA256Hasher.nativeAvailable))
    func nativeMatchesOpenSSLForEveryLengthAndSplit() throws {
        #expect(try SHA256Hasher().isNative)
        let data = HashWorkerTests.bytes(4_100, seed: 7)
        // Every length across the padding boundaries (55, 56, 63, 64...) and several blocks.
        for length in 0...300 {
            let message = Array(data[..<length])
            #expect(
                try Self.digest(message, native: true) == Self.digest(message, native: false),
                "length \(length)")
        }
        // Pieces of every size from 1 to 130 bytes, so partial blocks are completed across updates.
        for piece in 1...130 {
            let native = try SHA256Hasher(native: true)
            data.withUnsafeBytes { all in
                var offset = 0
                while offset < all.count {
                    let end = min(offset + piece, all.count)
                    native.update(UnsafeRawBufferPointer(rebasing: all[offset..<end]))
                    offset = end
                }
            }
            #expect(native.finish() == (try Self.digest(data, native: false)), "pieces of \(piece)")
        }
    }

    /// Two files hashed side by side in pieces of unequal, odd and block-sized lengths give each file's own digest,
    /// whichever engine each hasher runs.
    @Test(arguments: [(true, true), (true, false), (false, true), (false, false)])
    func twoStreamsSideBySide(nativeA: Bool, nativeB: Bool) throws {
        let useA = nativeA && SHA256Hasher.nativeAvailable
        let useB = nativeB && SHA256Hasher.nativeAvailable
        let a = HashWorkerTests.bytes(300_000, seed: 1)
        let b = HashWorkerTests.bytes(290_017, seed: 2)
        let hasherA = try SHA256Hasher(native: useA)
        let hasherB = try SHA256Hasher(native: useB)
        let piecesA = [262_144, 1, 63, 64, 5_000, 128, 32_600]
        let piecesB = [262_144, 64, 100, 27_709]
        var offsetA = 0
        var offsetB = 0
        a.withUnsafeBytes { allA in
            b.withUnsafeBytes { allB in
                for round in 0..<max(piecesA.count, piecesB.count) {
                    let endA = min(offsetA + (round < piecesA.count ? piecesA[round] : 0), allA.count)
                    let endB = min(offsetB + (round < piecesB.count ? piecesB[round] : 0), allB.count)
                    SHA256Hasher.update(
                        hasherA, UnsafeRawBufferPointer(rebasing: allA[offsetA..<endA]),
                        hasherB, UnsafeRawBufferPointer(rebasing: allB[offsetB..<endB]))
                    offsetA = endA
                    offsetB = endB
                }
            }
        }
        #expect(offsetA == a.count && offsetB == b.count)
        #expect(hasherA.finish() == (try Self.digest(a, native: false)))
        #expect(hasherB.finish() == (try Self.digest(b, native: false)))
    }
}
