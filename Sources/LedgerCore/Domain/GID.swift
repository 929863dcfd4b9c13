/// aria2's download ids: 16 lowercase hex digits. Ours are a fixed bijection of the task id, so a task keeps its
/// GID for life (across restarts and in every process) and a GID maps back to the id without a table.
public enum GID {
    private static let a: UInt64 = 0x9E37_79B9_7F4A_7C15
    private static let b: UInt64 = 0xBF58_476D_1CE4_E5B9
    private static let aInverse = inverse(a)
    private static let bInverse = inverse(b)

    /// The GID of a task.
    public static func of(_ id: TaskID) -> String {
        var x = UInt64(bitPattern: id) &* a
        x ^= x >> 32
        x = x &* b
        x ^= x >> 29
        let hex = String(x, radix: 16)
        return String(repeating: "0", count: 16 - hex.count) + hex
    }

    /// The task id of a full 16-digit GID, or nil when it is not 16 hex digits or names no possible task.
    public static func id(of gid: String) -> TaskID? {
        guard gid.utf8.count == 16, var x = UInt64(gid, radix: 16) else { return nil }
        x ^= x >> 29 ^ x >> 58
        x = x &* bInverse
        x ^= x >> 32
        let id = Int64(bitPattern: x &* aInverse)
        return id > 0 ? id : nil
    }

    /// Whether the text can be (a prefix of) a GID: 1 to 16 hex digits.
    public static func isWellFormed(_ text: String) -> Bool {
        !text.isEmpty && text.utf8.count <= 16
            && text.utf8.allSatisfy {
                (0x30...0x39).contains($0) || (0x61...0x66).contains($0) || (0x41...0x46).contains($0)
            }
    }

    /// The multiplicative inverse of an odd number modulo 2^64 (Newton's iteration doubles the correct bits).
    private static func inverse(_ n: UInt64) -> UInt64 {
        var x = n
        for _ in 0..<6 { x = x &* (2 &- n &* x) }
        return x
    }
}
