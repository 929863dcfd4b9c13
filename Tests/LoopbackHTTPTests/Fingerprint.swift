/// A short stand-in for a large byte array in expectations: comparing arrays of megabytes directly makes a
/// failing `#expect` compute an enormous diff.
struct Fingerprint: Equatable, CustomStringConvertible {
    var count: Int
    var hash: UInt64

    init(_ bytes: some Collection<UInt8>) {
        var hash: UInt64 = 0xCBF2_9CE4_8422_2325
        for byte in bytes {
            hash = (hash ^ UInt64(byte)) &* 0x0000_0100_0000_01B3
        }
        self.count = bytes.count
        self.hash = hash
    }

    var description: String { "\(count) bytes, FNV-1a \(String(hash, radix: 16))" }
}
