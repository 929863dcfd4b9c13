/// A credential as the log holds it: encrypted (AES-256-GCM) under the key of one task, kept in the ledger's
/// vault outside the event log. The plaintext never enters an event; only this does.
///
/// Its text form, what payloads and snapshots carry, is `sealed:v1:<task>:<nonce hex>:<ciphertext+tag hex>`:
/// the task whose vault key opens it, the 12-byte random nonce, and the ciphertext followed by the 16-byte GCM
/// tag. The hash chain covers that text like any payload byte, so the log verifies whether or not the key is
/// still there. LedgerCore only carries it (the reducer stays pure); LedgerStore seals and opens it.
///
/// ```swift
/// let sealed = SealedSecret(text: "sealed:v1:7:00112233445566778899aabb:…")
/// print(sealed)   // "<sealed>": never the ciphertext, never the secret
/// ```
public struct SealedSecret: Sendable, Hashable, CustomStringConvertible {
    /// The task whose vault key seals this value.
    public var keyTask: TaskID
    /// The GCM nonce (``nonceLength`` bytes, random per value).
    public var nonce: [UInt8]
    /// The ciphertext followed by the ``tagLength``-byte authentication tag.
    public var box: [UInt8]

    public static let nonceLength = 12
    public static let tagLength = 16
    /// What every output shows in place of a credential.
    public static let redacted = "<sealed>"
    static let prefix = "sealed:v1:"

    /// A sealed value from its parts.
    public init(keyTask: TaskID, nonce: [UInt8], box: [UInt8]) {
        self.keyTask = keyTask
        self.nonce = nonce
        self.box = box
    }

    /// Reads the text form; nil when `text` is not one (wrong prefix, task, lengths or hex digits).
    public init?(text: String) {
        guard text.hasPrefix(Self.prefix) else { return nil }
        let parts = text.dropFirst(Self.prefix.count).split(separator: ":", omittingEmptySubsequences: false)
        guard parts.count == 3, let task = TaskID(parts[0]), task > 0, String(task) == parts[0],
            let nonce = Self.bytes(hex: parts[1]), nonce.count == Self.nonceLength,
            let box = Self.bytes(hex: parts[2]), box.count >= Self.tagLength
        else { return nil }
        self.init(keyTask: task, nonce: nonce, box: box)
    }

    /// The text form that payloads and snapshots carry (opaque: it reveals only the secret's length).
    public var text: String {
        Self.prefix + String(keyTask) + ":" + Self.hex(nonce) + ":" + Self.hex(box)
    }

    /// Always ``redacted``: printing a sealed value never shows it.
    public var description: String { Self.redacted }

    /// Whether `text` looks like a sealed value (its prefix), for a decoder telling sealed from plain text.
    public static func isSealed(_ text: String) -> Bool { text.hasPrefix(prefix) }

    private static let digits = Array("0123456789abcdef".utf8)

    private static func hex(_ bytes: [UInt8]) -> String {
        var out = [UInt8]()
        out.reserveCapacity(bytes.count * 2)
        for byte in bytes {
            out.append(digits[Int(byte >> 4)])
            out.append(digits[Int(byte & 0x0f)])
        }
        return String(decoding: out, as: UTF8.self)
    }

    private static func bytes(hex text: Substring) -> [UInt8]? {
        let utf8 = Array(text.utf8)
        guard utf8.count % 2 == 0 else { return nil }
        func value(_ c: UInt8) -> UInt8? {
            switch c {
            case UInt8(ascii: "0")...UInt8(ascii: "9"): c - UInt8(ascii: "0")
            case UInt8(ascii: "a")...UInt8(ascii: "f"): c - UInt8(ascii: "a") + 10
            default: nil
            }
        }
        var out = [UInt8]()
        out.reserveCapacity(utf8.count / 2)
        var index = 0
        while index < utf8.count {
            guard let high = value(utf8[index]), let low = value(utf8[index + 1]) else { return nil }
            out.append(high << 4 | low)
            index += 2
        }
        return out
    }
}
