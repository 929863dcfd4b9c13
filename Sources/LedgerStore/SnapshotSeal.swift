import CCrypto

/// What ties a snapshot to the hash chain: the hash of the event it was taken at, and a digest of the snapshot
/// itself over that hash, its seq and its reducer version.
///
/// `digest = SHA-256(reducer_version (8 bytes BE) ‖ seq (8 BE) ‖ event_hash ‖ bytes)`. A snapshot whose
/// `event_hash` is not the chain's hash at its seq (taken from another log, or the log was rewritten) or whose
/// digest does not match its bytes (edited) is not loaded. Like the chain itself, the digest is not keyed: it
/// shows an edit by anyone who did not also recompute it, and `verify` compares the snapshot with a replay.
struct SnapshotSeal: Equatable {
    var eventHash: [UInt8]
    var digest: [UInt8]

    /// Why a stored snapshot is not loaded.
    enum Problem: Equatable, CustomStringConvertible {
        /// The chain has no event at the snapshot's seq, or its hash there is another.
        case notOnChain
        /// The snapshot's bytes (or seq, or version) are not the ones that were sealed.
        case digestMismatch
        /// No seal: the row was not written by this build's `saveSnapshot`.
        case unsealed

        var description: String {
            switch self {
            case .notOnChain: "it was not taken on this log (the event hash it records is not the chain's)"
            case .digestMismatch: "its bytes were changed after it was saved (digest mismatch)"
            case .unsealed: "it has no seal (event hash and digest)"
            }
        }
    }

    /// Seals `bytes` taken at `seq`, whose event hash is `eventHash`.
    init(reducerVersion: Int, seq: Int64, eventHash: UnsafeRawBufferPointer, bytes: UnsafeRawBufferPointer) {
        self.eventHash = Array(eventHash)
        self.digest = Self.digest(
            reducerVersion: reducerVersion, seq: seq, eventHash: eventHash, tag: [], bytes: bytes)
    }

    /// The digest of a snapshot's summary: like the snapshot's, over the summary, with the word "summary" before
    /// it (a summary's bytes and digest moved into the snapshot's columns are no sealed snapshot).
    static func summaryDigest(
        reducerVersion: Int, seq: Int64, eventHash: UnsafeRawBufferPointer, summary: UnsafeRawBufferPointer
    ) -> [UInt8] {
        digest(
            reducerVersion: reducerVersion, seq: seq, eventHash: eventHash, tag: summaryTag, bytes: summary)
    }

    private static let summaryTag = Array("summary".utf8)

    /// Checks a stored snapshot (or, with `summary`, its summary in `bytes`): `chainHash` is the chain's hash at
    /// `seq` (nil when there is none). `digested`: the digest of `bytes` over `eventHash`, already taken as they
    /// arrived (``Digester``), so that the bytes are not read again.
    static func check(
        reducerVersion: Int, seq: Int64, bytes: UnsafeRawBufferPointer, eventHash: UnsafeRawBufferPointer?,
        digest: UnsafeRawBufferPointer?, chainHash: UnsafeRawBufferPointer?, summary: Bool = false,
        digested: [UInt8]? = nil
    ) -> Problem? {
        guard let eventHash, let digest, eventHash.count == ChainHasher.digestLength,
            digest.count == ChainHasher.digestLength
        else { return .unsealed }
        let onChain =
            seq == 0
            ? eventHash.elementsEqual(ChainHasher.zeroHash) : chainHash.map(eventHash.elementsEqual) ?? false
        guard onChain else { return .notOnChain }
        let expected =
            digested
            ?? Self.digest(
                reducerVersion: reducerVersion, seq: seq, eventHash: eventHash,
                tag: summary ? summaryTag : [],
                bytes: bytes)
        return digest.elementsEqual(expected) ? nil : .digestMismatch
    }

    static func digest(
        reducerVersion: Int, seq: Int64, eventHash: UnsafeRawBufferPointer, tag: [UInt8],
        bytes: UnsafeRawBufferPointer
    ) -> [UInt8] {
        digest(reducerVersion: reducerVersion, seq: seq, eventHash: eventHash, tag: tag) { $0(bytes) }
    }

    /// The digest of bytes that `pieces` hands over one piece after another (an encoding hashed as it is written,
    /// never held whole): the same as `digest(…bytes:)` of their concatenation.
    static func digest(
        reducerVersion: Int, seq: Int64, eventHash: UnsafeRawBufferPointer, tag: [UInt8],
        pieces: (_ piece: (UnsafeRawBufferPointer) -> Void) -> Void
    ) -> [UInt8] {
        let digester = Digester(reducerVersion: reducerVersion, seq: seq, eventHash: eventHash, tag: tag)
        pieces { digester.add($0) }
        return digester.finish()
    }

    /// A digest taken over bytes handed over one piece after another, in order (an encoding hashed as it is
    /// written, a snapshot hashed as its pieces arrive): ``finish()`` is `digest(…bytes:)` of their concatenation.
    final class Digester {
        private let context: OpaquePointer
        private let sha256: OpaquePointer
        private var ok: Bool

        init(reducerVersion: Int, seq: Int64, eventHash: UnsafeRawBufferPointer, tag: [UInt8]) {
            var header = [UInt8]()
            header.reserveCapacity(16 + tag.count)
            for value in [UInt64(truncatingIfNeeded: reducerVersion), UInt64(bitPattern: seq)] {
                for shift in stride(from: 56, through: 0, by: -8) {
                    header.append(UInt8(truncatingIfNeeded: value >> shift))
                }
            }
            guard let context = EVP_MD_CTX_new(), let sha256 = EVP_MD_fetch(nil, "SHA256", nil) else {
                preconditionFailure("OpenSSL cannot provide SHA-256")
            }
            self.context = context
            self.sha256 = sha256
            ok =
                EVP_DigestInit_ex2(context, sha256, nil) == 1
                && EVP_DigestUpdate(context, header, header.count) == 1
                && EVP_DigestUpdate(context, eventHash.baseAddress, eventHash.count) == 1
                && EVP_DigestUpdate(context, tag, tag.count) == 1
        }

        deinit {
            EVP_MD_CTX_free(context)
            EVP_MD_free(sha256)
        }

        /// Hashes the next piece.
        func add(_ piece: UnsafeRawBufferPointer) {
            ok = ok && EVP_DigestUpdate(context, piece.baseAddress, piece.count) == 1
        }

        /// The digest of everything added; call once.
        func finish() -> [UInt8] {
            var out = [UInt8](repeating: 0, count: ChainHasher.digestLength)
            ok =
                ok
                && out.withUnsafeMutableBufferPointer {
                    EVP_DigestFinal_ex(context, $0.baseAddress, nil) == 1
                }
            precondition(ok, "OpenSSL SHA-256 failed")
            return out
        }
    }
}
