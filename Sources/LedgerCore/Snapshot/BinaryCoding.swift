/// Compact binary writer for snapshots: zigzag LEB128 integers and length-prefixed UTF-8 strings.
///
/// With a sink, what is written goes to it in pieces of about `pieceSize` bytes (at the points where the writer
/// calls `flushIfFull`, then `finish`), instead of staying in `bytes`: an encoding hashed as it is written.
struct BinaryWriter {
    var bytes: [UInt8] = []
    var sink: ((UnsafeRawBufferPointer) -> Void)?
    /// Bytes handed to the sink so far.
    private(set) var flushed = 0

    /// Bytes written so far, those handed to the sink included: where the next one lies in the whole encoding.
    var position: Int { flushed + bytes.count }

    static let pieceSize = 1 << 16

    init(sink: ((UnsafeRawBufferPointer) -> Void)? = nil) { self.sink = sink }

    /// Hands the bytes written so far to the sink once they make a piece; without a sink, does nothing.
    @inline(__always)
    mutating func flushIfFull() {
        guard bytes.count >= Self.pieceSize, let sink else { return }
        bytes.withUnsafeBytes(sink)
        flushed += bytes.count
        bytes.removeAll(keepingCapacity: true)
    }

    /// Hands the rest to the sink.
    mutating func finish() {
        guard let sink else { return }
        bytes.withUnsafeBytes(sink)
        flushed += bytes.count
        bytes.removeAll(keepingCapacity: true)
    }

    /// `v` as 8 bytes, least significant first: a number read from a known place (the end of a snapshot).
    mutating func fixed64(_ v: Int) {
        withUnsafeBytes(of: UInt64(v).littleEndian) { bytes.append(contentsOf: $0) }
    }

    mutating func int(_ v: Int64) {
        var z = UInt64(bitPattern: (v << 1) ^ (v >> 63))
        while z >= 0x80 {
            bytes.append(UInt8(z & 0x7F) | 0x80)
            z >>= 7
        }
        bytes.append(UInt8(z))
    }

    mutating func int(_ v: Int) { int(Int64(v)) }
    mutating func bool(_ v: Bool) { bytes.append(v ? 1 : 0) }

    mutating func string(_ s: String) {
        int(s.utf8.count)
        bytes.append(contentsOf: s.utf8)
    }

    mutating func raw(_ b: [UInt8]) {
        int(b.count)
        bytes.append(contentsOf: b)
    }
}

/// Reads what `BinaryWriter` wrote, in place from bytes the caller keeps alive; any inconsistency throws, never
/// traps.
struct BinaryReader {
    let bytes: UnsafeRawBufferPointer
    var offset = 0

    struct Truncated: Error {}

    @inline(__always)
    mutating func int() throws -> Int64 {
        // One byte, the common case (flags, lengths, states, small counts): no loop. A snapshot of 100,000 tasks
        // is about 1.5 million of these read one after another.
        if offset < bytes.count {
            let b = bytes[offset]
            if b < 0x80 {
                offset += 1
                return Int64(b >> 1) ^ -Int64(b & 1)
            }
        }
        var z: UInt64 = 0
        var shift: UInt64 = 0
        while true {
            guard offset < bytes.count, shift < 64 else { throw Truncated() }
            let b = bytes[offset]
            offset += 1
            z |= UInt64(b & 0x7F) << shift
            if b < 0x80 { break }
            shift += 7
        }
        return Int64(bitPattern: z >> 1) ^ -Int64(bitPattern: z & 1)
    }

    @inline(__always)
    mutating func count() throws -> Int {
        let n = try int()
        guard n >= 0, n <= Int64(bytes.count - offset) * 8 + 64 else { throw Truncated() }
        return Int(n)
    }

    /// Room to reserve for `n` elements of at least `bytesEach` bytes each: no more than the bytes left can hold,
    /// whatever a damaged count says (a count is bounded by the bytes left only loosely, see ``count()``).
    func capacity(_ n: Int, bytesEach: Int) -> Int { min(n, (bytes.count - offset) / bytesEach + 1) }

    mutating func bool() throws -> Bool {
        guard offset < bytes.count else { throw Truncated() }
        defer { offset += 1 }
        return bytes[offset] != 0
    }

    mutating func string() throws -> String {
        String(decoding: try raw(), as: UTF8.self)
    }

    @inline(__always)
    mutating func raw() throws -> UnsafeRawBufferPointer {
        let n = try count()
        guard n <= bytes.count - offset else { throw Truncated() }
        defer { offset += n }
        return UnsafeRawBufferPointer(rebasing: bytes[offset..<offset + n])
    }

    /// What `BinaryWriter.fixed64` wrote at `at` (not moving `offset`), refused past the bytes or above `Int.max`.
    func fixed64(at: Int) throws -> Int {
        guard at >= 0, at <= bytes.count - 8 else { throw Truncated() }
        var v: UInt64 = 0
        for i in (0..<8).reversed() { v = v << 8 | UInt64(bytes[at + i]) }
        guard v <= UInt64(Int.max) else { throw Truncated() }
        return Int(v)
    }

    /// The next `n` bytes.
    @inline(__always)
    mutating func fixed(_ n: Int) throws -> UnsafeRawBufferPointer {
        guard n <= bytes.count - offset else { throw Truncated() }
        defer { offset += n }
        return UnsafeRawBufferPointer(rebasing: bytes[offset..<offset + n])
    }

}
