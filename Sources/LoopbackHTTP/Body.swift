/// The content of a ``Resource``: literal bytes, or deterministic pseudo-random bytes computed on the fly.
///
/// A generated body of any size costs no memory: each 8-byte word is a pure function of the seed and the
/// word's index, so any range can be produced independently and two ranges always agree with the whole.
///
/// ```swift
/// let body = Body.generated(size: 1 << 30, seed: 7)
/// let tail = body.bytes(in: (1 << 30) - 16..<(1 << 30))   // the last 16 bytes, as the server sends them
/// ```
public enum Body: Sendable, Equatable {
    /// These exact bytes.
    case bytes([UInt8])
    /// `size` bytes of a pseudo-random stream determined by `seed`.
    case generated(size: Int64, seed: UInt64)

    /// The number of bytes in the body.
    public var count: Int64 {
        switch self {
        case .bytes(let bytes): Int64(bytes.count)
        case .generated(let size, _): max(0, size)
        }
    }

    /// The bytes of `range`, clamped to the body.
    /// - Complexity: O(range.count).
    public func bytes(in range: Range<Int64>) -> [UInt8] {
        let clamped = range.clamped(to: 0..<count)
        guard !clamped.isEmpty else { return [] }
        switch self {
        case .bytes(let bytes):
            return Array(bytes[Int(clamped.lowerBound)..<Int(clamped.upperBound)])
        case .generated(_, let seed):
            return Body.generatedBytes(seed: seed, in: clamped)
        }
    }

    /// The whole body in memory: only for sizes a test can afford.
    public var allBytes: [UInt8] { bytes(in: 0..<count) }

    /// The bytes at offsets `range` of the endless stream that `.generated(size:seed:)` takes its content from.
    /// - Precondition: `range.lowerBound >= 0`.
    /// - Complexity: O(range.count).
    public static func generatedBytes(seed: UInt64, in range: Range<Int64>) -> [UInt8] {
        precondition(range.lowerBound >= 0, "offsets are never negative")
        var result = [UInt8](repeating: 0, count: range.count)
        result.withUnsafeMutableBytes { fillGenerated(seed: seed, from: range.lowerBound, into: $0) }
        return result
    }

    /// Writes the body's bytes starting at `offset` into `buffer` (as many as fit and exist); returns how many.
    func copy(from offset: Int64, into buffer: UnsafeMutableRawBufferPointer) -> Int {
        let available = max(0, count - offset)
        let length = Int(min(Int64(buffer.count), available))
        guard length > 0 else { return 0 }
        let target = UnsafeMutableRawBufferPointer(rebasing: buffer[0..<length])
        switch self {
        case .bytes(let bytes):
            bytes.withUnsafeBytes { source in
                target.copyMemory(
                    from: UnsafeRawBufferPointer(rebasing: source[Int(offset)..<Int(offset) + length]))
            }
        case .generated(_, let seed):
            Body.fillGenerated(seed: seed, from: offset, into: target)
        }
        return length
    }

    /// Fills `buffer` with the stream of `seed` from `offset` on: a partial first word, whole words stored
    /// directly (the hot path when streaming), then a partial last word.
    static func fillGenerated(seed: UInt64, from offset: Int64, into buffer: UnsafeMutableRawBufferPointer) {
        guard let base = buffer.baseAddress else { return }
        var word = UInt64(offset) / 8
        var position = 0
        let skip = Int(UInt64(offset) % 8)
        if skip != 0 {
            position = copyPart(of: mix(seed: seed, word: word), skipping: skip, into: buffer, at: 0)
            word += 1
        }
        while buffer.count - position >= 8 {
            base.storeBytes(
                of: mix(seed: seed, word: word).littleEndian, toByteOffset: position, as: UInt64.self)
            position += 8
            word += 1
        }
        if position < buffer.count {
            _ = copyPart(of: mix(seed: seed, word: word), skipping: 0, into: buffer, at: position)
        }
    }

    /// Copies the little-endian bytes of `value` after the first `skip` into `buffer` at `position`, as many as
    /// fit; returns the position after them.
    private static func copyPart(
        of value: UInt64, skipping skip: Int, into buffer: UnsafeMutableRawBufferPointer, at position: Int
    ) -> Int {
        withUnsafeBytes(of: value.littleEndian) { bytes in
            let take = min(8 - skip, buffer.count - position)
            for index in 0..<take {
                buffer[position + index] = bytes[skip + index]
            }
            return position + take
        }
    }

    /// SplitMix64's finaliser over the word index offset by the seed: fast, stateless, well spread.
    private static func mix(seed: UInt64, word: UInt64) -> UInt64 {
        var z = seed &+ (word &+ 1) &* 0x9E37_79B9_7F4A_7C15
        z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
        z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
        return z ^ (z >> 31)
    }
}
