import CCrypto
import LedgerCore

/// AES-256-GCM through OpenSSL's libcrypto (EVP), with a random 96-bit nonce per value.
///
/// The additional authenticated data binds a value to its key's task and to its place:
/// `"dledger vault v1" ‖ 0x00 ‖ task (8 bytes BE) ‖ context (UTF-8)`. A value copied under another task, or from
/// a `Cookie` header into an `Authorization` one, fails its tag like an edited one.
enum VaultCipher {
    static let domain = Array("dledger vault v1".utf8) + [0]

    /// `count` bytes from OpenSSL's CSPRNG.
    static func randomBytes(_ count: Int) throws(VaultError) -> [UInt8] {
        var bytes = [UInt8](repeating: 0, count: count)
        guard RAND_bytes(&bytes, Int32(count)) == 1 else {
            throw VaultError.crypto("OpenSSL's random generator failed")
        }
        return bytes
    }

    static func seal(_ plaintext: [UInt8], key: VaultKey, context: String) throws(VaultError)
        -> SealedSecret
    {
        let nonce = try randomBytes(SealedSecret.nonceLength)
        let box = try run(
            encrypt: true, input: plaintext, key: key, nonce: nonce,
            aad: aad(task: key.task, context: context)
        )
        return SealedSecret(keyTask: key.task, nonce: nonce, box: box)
    }

    static func open(_ sealed: SealedSecret, key: VaultKey, context: String) throws(VaultError) -> [UInt8] {
        guard sealed.keyTask == key.task else {
            throw VaultError.malformed("sealed with task #\(sealed.keyTask)'s key, not #\(key.task)'s")
        }
        guard sealed.nonce.count == SealedSecret.nonceLength, sealed.box.count >= SealedSecret.tagLength
        else {
            throw VaultError.malformed("nonce or tag of the wrong length")
        }
        return try run(
            encrypt: false, input: sealed.box, key: key, nonce: sealed.nonce,
            aad: aad(task: key.task, context: context))
    }

    private static func aad(task: TaskID, context: String) -> [UInt8] {
        var out = domain
        for shift in stride(from: 56, through: 0, by: -8) {
            out.append(UInt8(truncatingIfNeeded: task >> shift))
        }
        out += Array(context.utf8)
        return out
    }

    /// Encrypts `input` to ciphertext ‖ tag, or decrypts ciphertext ‖ tag to the plaintext, checking the tag.
    static func run(
        encrypt: Bool, input: [UInt8], key: VaultKey, nonce: [UInt8], aad: [UInt8]
    ) throws(VaultError) -> [UInt8] {
        guard let context = EVP_CIPHER_CTX_new() else { throw VaultError.crypto("no cipher context") }
        defer { EVP_CIPHER_CTX_free(context) }
        let tagLength = SealedSecret.tagLength
        let body = encrypt ? input[...] : input.dropLast(tagLength)
        var tag = encrypt ? [UInt8](repeating: 0, count: tagLength) : Array(input.suffix(tagLength))
        var output = [UInt8](repeating: 0, count: body.count + tagLength)
        var written: Int32 = 0
        var ok = key.bytes.withUnsafeBufferPointer { keyBytes in
            nonce.withUnsafeBufferPointer { nonceBytes in
                EVP_CipherInit_ex(
                    context, EVP_aes_256_gcm(), nil, keyBytes.baseAddress, nonceBytes.baseAddress,
                    encrypt ? 1 : 0) == 1
            }
        }
        ok = ok && EVP_CipherUpdate(context, nil, &written, aad, Int32(aad.count)) == 1
        var produced = 0
        if ok && !body.isEmpty {
            ok = body.withUnsafeBufferPointer { bytes in
                output.withUnsafeMutableBufferPointer { out in
                    let status = EVP_CipherUpdate(
                        context, out.baseAddress, &written, bytes.baseAddress, Int32(bytes.count))
                    produced = Int(written)
                    return status == 1
                }
            }
        }
        guard ok else { throw VaultError.crypto("AES-256-GCM could not start") }
        if !encrypt {
            guard EVP_CIPHER_CTX_ctrl(context, EVP_CTRL_AEAD_SET_TAG, Int32(tagLength), &tag) == 1 else {
                throw VaultError.crypto("the GCM tag could not be set")
            }
        }
        let finished = output.withUnsafeMutableBufferPointer { out in
            EVP_CipherFinal_ex(context, out.baseAddress! + produced, &written) == 1
        }
        guard finished else {
            if encrypt { throw VaultError.crypto("AES-256-GCM failed") }
            output.withUnsafeMutableBytes { OPENSSL_cleanse($0.baseAddress, $0.count) }
            throw VaultError.failedToOpen(task: key.task, reason: "authentication failed (GCM tag mismatch)")
        }
        produced += Int(written)
        guard encrypt else { return Array(output.prefix(produced)) }
        guard EVP_CIPHER_CTX_ctrl(context, EVP_CTRL_AEAD_GET_TAG, Int32(tagLength), &tag) == 1 else {
            throw VaultError.crypto("the GCM tag could not be read")
        }
        return Array(output.prefix(produced)) + tag
    }
}
