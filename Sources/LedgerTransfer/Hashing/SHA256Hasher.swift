import CCrypto
import CSHA256

/// Incremental SHA-256.
///
/// On x86-64 CPUs with the SHA extensions it runs CSHA256's stream (`dl_sha256_*`, the same the ledger's hash chain
/// uses), which can hash two files at once (``update(_:_:_:_:)``: about twice the throughput of one chain);
/// elsewhere it uses OpenSSL's EVP interface, whose assembly beats CSHA256's portable compression on large files.
final class SHA256Hasher {
    private enum Engine {
        case native(UnsafeMutablePointer<dl_sha256_ctx>)
        case openSSL(OpaquePointer)
    }

    private let engine: Engine

    /// Whether this CPU runs the native engine.
    static let nativeAvailable: Bool = dl_sha256_native_available() != 0

    /// - Parameter native: the engine to use; the native one only where ``nativeAvailable``. Tests compare both.
    init(native: Bool = SHA256Hasher.nativeAvailable) throws(TransferError) {
        if native && Self.nativeAvailable {
            let context = UnsafeMutablePointer<dl_sha256_ctx>.allocate(capacity: 1)
            context.initialize(to: dl_sha256_ctx())
            dl_sha256_init_engine(context, 1)
            engine = .native(context)
            return
        }
        guard let context = EVP_MD_CTX_new() else { throw .fileSystem("cannot allocate a SHA-256 context") }
        guard EVP_DigestInit_ex(context, EVP_sha256(), nil) == 1 else {
            EVP_MD_CTX_free(context)
            throw .fileSystem("cannot start SHA-256")
        }
        engine = .openSSL(context)
    }

    deinit {
        switch engine {
        case .native(let context): context.deallocate()
        case .openSSL(let context): EVP_MD_CTX_free(context)
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
        case .openSSL(let context): EVP_DigestUpdate(context, base, bytes.count)
        case .native(let context): dl_sha256_update(context, base, bytes.count)
        }
    }

    /// Updates `a` with `bytesA` and `b` with `bytesB` (two different hashers): the whole blocks both have in
    /// common are hashed side by side when both run the native engine and neither holds a partial block
    /// (`dl_sha256_update2`).
    static func update(
        _ a: SHA256Hasher, _ bytesA: UnsafeRawBufferPointer, _ b: SHA256Hasher,
        _ bytesB: UnsafeRawBufferPointer
    ) {
        precondition(a !== b, "one hasher cannot take two streams")
        guard case .native(let contextA) = a.engine, case .native(let contextB) = b.engine,
            let baseA = bytesA.baseAddress, let baseB = bytesB.baseAddress
        else {
            a.update(bytesA)
            b.update(bytesB)
            return
        }
        dl_sha256_update2(contextA, baseA, bytesA.count, contextB, baseB, bytesB.count)
    }

    /// The digest as lowercase hex; the hasher must not be used afterwards.
    func finish() -> String {
        switch engine {
        case .openSSL(let context):
            var digest = [UInt8](repeating: 0, count: Int(EVP_MAX_MD_SIZE))
            var count: UInt32 = 0
            EVP_DigestFinal_ex(context, &digest, &count)
            return Self.hex(digest.prefix(Int(count)))
        case .native(let context):
            var digest = [UInt8](repeating: 0, count: 32)
            dl_sha256_final(context, &digest)
            return Self.hex(digest)
        }
    }

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
