import CSHA256
import Foundation
import Testing

/// CSHA256's incremental SHA-256 (`dl_sha256_*`), which the ledger's hash chain and snapshot seals use instead of
/// OpenSSL: FIPS 180-4's examples and OpenSSL's digests, over every length across the padding boundaries and every
/// way of cutting the bytes, with the portable compression and (where the CPU has it) the native one. A chain hash
/// that differed by one bit would make every existing ledger fail `verify`.
@Suite struct SHA256StreamTests {
    /// The engines this machine runs: the portable one always, the native one where the CPU has the SHA extensions.
    static var engines: [Int32] { dl_sha256_native_available() != 0 ? [0, 1] : [0] }

    static func digest(_ bytes: [UInt8], native: Int32, piece: Int = .max) -> String {
        var context = dl_sha256_ctx()
        dl_sha256_init_engine(&context, native)
        var offset = 0
        while offset < bytes.count {
            let end = min(offset + min(piece, bytes.count - offset), bytes.count)
            bytes[offset..<end].withUnsafeBytes { dl_sha256_update(&context, $0.baseAddress!, $0.count) }
            offset = end
        }
        var out = [UInt8](repeating: 0, count: 32)
        dl_sha256_final(&context, &out)
        return out.map { String(format: "%02x", $0) }.joined()
    }

    /// OpenSSL's digest of the same bytes, through the transfer engine's OpenSSL path.
    static func reference(_ bytes: [UInt8]) throws -> String {
        try SHA256HasherTests.digest(bytes, native: false)
    }

    @Test(arguments: engines)
    func knownDigests(native: Int32) {
        let examples: [(String, String)] = [
            ("", "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855"),
            ("abc", "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad"),
            (
                "abcdbcdecdefdefgefghfghighijhijkijkljklmklmnlmnomnopnopq",
                "248d6a61d20638b8e5c026930c3e6039a33ce45964ff2167f6ecedd419db06c1"
            ),
        ]
        for (text, expected) in examples {
            #expect(Self.digest(Array(text.utf8), native: native) == expected, "\(text)")
        }
        let million = [UInt8](repeating: UInt8(ascii: "a"), count: 1_000_000)
        #expect(
            Self.digest(million, native: native, piece: 4_099)
                == "cdc76e5c9914fb9281a1c7e284d73e67f1809a48a497200e046d39ccc7112cd0")
    }

    @Test(arguments: engines)
    func matchesOpenSSLForEveryLengthAndEveryCut(native: Int32) throws {
        let data = HashWorkerTests.bytes(4_100, seed: 11)
        // Every length across the padding boundaries (55, 56, 63, 64, 119, 120...) and several blocks.
        for length in 0...300 {
            let message = Array(data[..<length])
            #expect(Self.digest(message, native: native) == (try Self.reference(message)), "length \(length)")
        }
        // Pieces of every size from 1 to 130 bytes: a partial block completed across updates, whole blocks after.
        let expected = try Self.reference(data)
        for piece in 1...130 {
            #expect(Self.digest(data, native: native, piece: piece) == expected, "pieces of \(piece)")
        }
    }

    /// The engine asked for is the one used: the native one only where the CPU has it.
    @Test func nativeOnlyWhereAvailable() {
        var context = dl_sha256_ctx()
        dl_sha256_init_engine(&context, 0)
        #expect(context.native == 0)
        dl_sha256_init_engine(&context, 1)
        #expect(context.native == dl_sha256_native_available())
        dl_sha256_init(&context)
        #expect(context.native == dl_sha256_native_available())
    }
}
