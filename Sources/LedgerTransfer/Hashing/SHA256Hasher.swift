import CCrypto
import CSHA256

/// Incremental SHA-256.
///
/// On x86-64 CPUs with the SHA extensions it runs its own compression (`CSHA256`), which can hash two files at once
/// (``update(_:_:_:_:)``: about twice the throughput of one chain); elsewhere it uses OpenSSL's EVP interface.
final class SHA256Hasher {
    private enum Engine {
        case native(state: UnsafeMutablePointer<UInt32>, tail: UnsafeMutablePointer<UInt8>)
        case openSSL(OpaquePointer)
    }

    private let engine: Engine
    /// Bytes taken so far (native engine).
    private var length: UInt64 = 0
    /// Bytes waiting in `tail` for a whole block (native engine): `length % 64`.
    private var pending: Int { Int(length % 64) }

    /// Whether this CPU runs the native engine.
    static let nativeAvailable: Bool = dl_sha256_native_available() != 0

    /// - Parameter native: the engine to use; the native one only where ``nativeAvailable``. Tests compare both.
    init(native: Bool = SHA256Hasher.nativeAvailable) throws(TransferError) {
        #if arch(x86_64)
            if native && Self.nativeAvailable {
                let state = UnsafeMutablePointer<UInt32>.allocate(capacity: 8)
                state.initialize(from: Self.initialState, count: 8)
                let tail = UnsafeMutablePointer<UInt8>.allocate(capacity: 128)
                tail.initialize(repeating: 0, count: 128)
                engine = .native(state: state, tail: tail)
                return
            }
        #endif
        guard let context = EVP_MD_CTX_new() else { throw .fileSystem("cannot allocate a SHA-256 context") }
        guard EVP_DigestInit_ex(context, EVP_sha256(), nil) == 1 else {
            EVP_MD_CTX_free(context)
            throw .fileSystem("cannot start SHA-256")
        }
        engine = .openSSL(context)
    }

    deinit {
        switch engine {
        case .native(let state, let tail):
            state.deallocate()
            tail.deallocate()
        case .openSSL(let context):
            EVP_MD_CTX_free(context)
        }
    }

    /// Whether this hasher runs the native engine.
    var isNative: Bool {
        if case .native = engine { return true }
        return false
    }

    func update(_ bytes: UnsafeRawBufferPointer) {
        guard let base = bytes.baseAddress, !bytes.isEmpty else { return }
        switch engine {
        case .openSSL(let context):
            EVP_DigestUpdate(context, base, bytes.count)
        case .native(let state, let tail):
            var rest = bytes
            if pending > 0 {
                let take = min(64 - pending, rest.count)
                (tail + pending).update(from: base.assumingMemoryBound(to: UInt8.self), count: take)
                length += UInt64(take)
                rest = UnsafeRawBufferPointer(rebasing: rest[take...])
                guard pending == 0 else { return }
                Self.compress(state, UnsafeRawPointer(tail), blocks: 1)
            }
            let blocks = rest.count / 64
            if blocks > 0, let start = rest.baseAddress {
                Self.compress(state, start, blocks: blocks)
                length += UInt64(blocks * 64)
            }
            let left = rest.count - blocks * 64
            if left > 0, let start = rest.baseAddress {
                tail.update(from: (start + blocks * 64).assumingMemoryBound(to: UInt8.self), count: left)
                length += UInt64(left)
            }
        }
    }

    /// Updates `a` with `bytesA` and `b` with `bytesB` (two different hashers): the whole blocks both have in
    /// common are hashed side by side when both run the native engine and neither holds a partial block.
    static func update(
        _ a: SHA256Hasher, _ bytesA: UnsafeRawBufferPointer, _ b: SHA256Hasher,
        _ bytesB: UnsafeRawBufferPointer
    ) {
        precondition(a !== b, "one hasher cannot take two streams")
        var restA = bytesA
        var restB = bytesB
        #if arch(x86_64)
            if case .native(let stateA, _) = a.engine, case .native(let stateB, _) = b.engine,
                a.pending == 0, b.pending == 0, let baseA = bytesA.baseAddress, let baseB = bytesB.baseAddress
            {
                let blocks = min(bytesA.count, bytesB.count) / 64
                if blocks > 0 {
                    dl_sha256_native_blocks2(
                        stateA, baseA.assumingMemoryBound(to: UInt8.self), stateB,
                        baseB.assumingMemoryBound(to: UInt8.self), blocks)
                    a.length += UInt64(blocks * 64)
                    b.length += UInt64(blocks * 64)
                    restA = UnsafeRawBufferPointer(rebasing: bytesA[(blocks * 64)...])
                    restB = UnsafeRawBufferPointer(rebasing: bytesB[(blocks * 64)...])
                }
            }
        #endif
        a.update(restA)
        b.update(restB)
    }

    /// The digest as lowercase hex; the hasher must not be used afterwards.
    func finish() -> String {
        switch engine {
        case .openSSL(let context):
            var digest = [UInt8](repeating: 0, count: Int(EVP_MAX_MD_SIZE))
            var count: UInt32 = 0
            EVP_DigestFinal_ex(context, &digest, &count)
            return Self.hex(digest.prefix(Int(count)))
        case .native(let state, let tail):
            // The padding: 0x80, zeros, then the length in bits as a big-endian 64-bit number ending a block.
            let used = pending
            let blocks = used < 56 ? 1 : 2
            tail[used] = 0x80
            (tail + used + 1).update(repeating: 0, count: blocks * 64 - used - 1)
            let bits = length &* 8
            for index in 0..<8 {
                tail[blocks * 64 - 1 - index] = UInt8(truncatingIfNeeded: bits >> (8 * UInt64(index)))
            }
            Self.compress(state, UnsafeRawPointer(tail), blocks: blocks)
            var digest: [UInt8] = []
            digest.reserveCapacity(32)
            for index in 0..<8 {
                let word = state[index]
                digest += [UInt8(word >> 24), UInt8(truncatingIfNeeded: word >> 16)]
                digest += [UInt8(truncatingIfNeeded: word >> 8), UInt8(truncatingIfNeeded: word)]
            }
            return Self.hex(digest)
        }
    }

    private static func compress(_ state: UnsafeMutablePointer<UInt32>, _ data: UnsafeRawPointer, blocks: Int)
    {
        #if arch(x86_64)
            dl_sha256_native_blocks(state, data.assumingMemoryBound(to: UInt8.self), blocks)
        #else
            preconditionFailure("the native SHA-256 engine runs on x86-64 only")
        #endif
    }

    /// FIPS 180-4, 5.3.3.
    private static let initialState: [UInt32] = [
        0x6a09_e667, 0xbb67_ae85, 0x3c6e_f372, 0xa54f_f53a, 0x510e_527f, 0x9b05_688c, 0x1f83_d9ab,
        0x5be0_cd19,
    ]

    static func hex(_ bytes: some Sequence<UInt8>) -> String {
        let digits = Array("0123456789abcdef".utf8)
        var text: [UInt8] = []
        for byte in bytes {
            text.append(digits[Int(byte >> 4)])
            text.append(digits[Int(byte & 0xF)])
        }
        return String(decoding: text, as: UTF8.self)
    }
}
