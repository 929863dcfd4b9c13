import CSHA256
import Dispatch

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
        switch checkChain(seq: seq, eventHash: eventHash, digest: digest, chainHash: chainHash) {
        case .problem(let problem): return problem
        case .onChain(let sealedHash, let sealedDigest):
            let expected =
                digested
                ?? Self.digest(
                    reducerVersion: reducerVersion, seq: seq, eventHash: sealedHash,
                    tag: summary ? summaryTag : [],
                    bytes: bytes)
            return sealedDigest.elementsEqual(expected) ? nil : .digestMismatch
        }
    }

    /// The part of ``check(reducerVersion:seq:bytes:eventHash:digest:chainHash:summary:digested:)`` that reads
    /// no bytes: the seal is whole (an event hash and a digest of 32 bytes each), and its event hash is the
    /// chain's at `seq`. Gives the seal's two values when it is.
    static func checkChain(
        seq: Int64, eventHash: UnsafeRawBufferPointer?, digest: UnsafeRawBufferPointer?,
        chainHash: UnsafeRawBufferPointer?
    ) -> ChainCheck {
        guard let eventHash, let digest, eventHash.count == ChainHasher.digestLength,
            digest.count == ChainHasher.digestLength
        else { return .problem(.unsealed) }
        let onChain =
            seq == 0
            ? eventHash.elementsEqual(ChainHasher.zeroHash) : chainHash.map(eventHash.elementsEqual) ?? false
        return onChain ? .onChain(eventHash: eventHash, digest: digest) : .problem(.notOnChain)
    }

    /// What ``checkChain(seq:eventHash:digest:chainHash:)`` found.
    enum ChainCheck {
        /// The seal is whole and on the chain: its event hash and digest (the digest not yet compared).
        case onChain(eventHash: UnsafeRawBufferPointer, digest: UnsafeRawBufferPointer)
        case problem(Problem)
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
        private let context: UnsafeMutablePointer<dl_sha256_ctx>

        init(reducerVersion: Int, seq: Int64, eventHash: UnsafeRawBufferPointer, tag: [UInt8]) {
            var header = [UInt8]()
            header.reserveCapacity(16 + tag.count)
            for value in [UInt64(truncatingIfNeeded: reducerVersion), UInt64(bitPattern: seq)] {
                for shift in stride(from: 56, through: 0, by: -8) {
                    header.append(UInt8(truncatingIfNeeded: value >> shift))
                }
            }
            context = UnsafeMutablePointer<dl_sha256_ctx>.allocate(capacity: 1)
            context.initialize(to: dl_sha256_ctx())
            dl_sha256_init(context)
            dl_sha256_update(context, header, header.count)
            add(eventHash)
            dl_sha256_update(context, tag, tag.count)
        }

        deinit {
            context.deallocate()
        }

        /// Hashes the next piece.
        func add(_ piece: UnsafeRawBufferPointer) {
            guard let base = piece.baseAddress, !piece.isEmpty else { return }
            dl_sha256_update(context, base, piece.count)
        }

        /// The digest of everything added; call once.
        func finish() -> [UInt8] {
            var out = [UInt8](repeating: 0, count: ChainHasher.digestLength)
            dl_sha256_final(context, &out)
            return out
        }
    }

    /// A snapshot's digest taken on another thread while the caller reads the same bytes (a 5 MB snapshot's
    /// SHA-256 is 2.7 ms, about what decoding it takes): ``holds()`` waits for it and says whether it is the sealed
    /// one. The caller keeps the bytes valid until ``holds()`` has returned.
    ///
    /// The thread only reads the bytes and writes `matched` before it signals; `matched` is read after the wait.
    /// That discipline is what makes the `@unchecked Sendable` sound.
    final class DigestBeside: @unchecked Sendable {
        /// Snapshots smaller than this are hashed in line: handing the work over would cost more than it saves.
        static let threshold = 1 << 20

        private let done = DispatchSemaphore(value: 0)
        private var matched = false
        private var verdict: Bool?

        /// Starts the digest of `bytes` under `eventHash` (32 bytes), to be compared with `digest` (32 bytes).
        init(
            reducerVersion: Int, seq: Int64, eventHash: UnsafeRawBufferPointer,
            digest: UnsafeRawBufferPointer,
            bytes: UnsafeRawBufferPointer
        ) {
            let work = Work(
                reducerVersion: reducerVersion, seq: seq, eventHash: Array(eventHash),
                expected: Array(digest),
                bytes: bytes)
            // A queue of its own, serial: it runs on a thread of its own even while every thread of the global
            // queues waits (a blocked cooperative thread waiting in `holds()` for work queued behind itself).
            DispatchQueue(label: "DownloadLedger.snapshot-digest").async { [self] in
                let taken = work.eventHash.withUnsafeBytes {
                    SnapshotSeal.digest(
                        reducerVersion: work.reducerVersion, seq: work.seq, eventHash: $0, tag: [],
                        bytes: work.bytes)
                }
                matched = taken == work.expected
                done.signal()
            }
        }

        /// Whether the bytes are the sealed ones; waits for the digest the first time.
        func holds() -> Bool {
            if let verdict { return verdict }
            done.wait()
            verdict = matched
            return matched
        }

        /// What the other thread needs; the bytes stay the caller's, valid until ``holds()`` returns.
        private struct Work: @unchecked Sendable {
            let reducerVersion: Int
            let seq: Int64
            let eventHash: [UInt8]
            let expected: [UInt8]
            let bytes: UnsafeRawBufferPointer
        }
    }
}
