import CCrypto
import LedgerCore

/// The random 256-bit AES key that seals one task's credentials, kept in the ledger's `vault_keys` table, outside
/// the event log. A purge of the task deletes it: what it sealed can never be opened again.
public struct VaultKey: Sendable, Equatable {
    /// The task the key belongs to (``SealedSecret/keyTask`` names it).
    public let task: TaskID
    /// The key's 32 bytes.
    let bytes: [UInt8]

    /// The key length in bytes (AES-256).
    public static let length = 32

    /// A new key for `task` from OpenSSL's random generator.
    /// - Throws: `VaultError.crypto` when the generator fails (it is not seeded).
    public static func random(task: TaskID) throws(VaultError) -> VaultKey {
        VaultKey(task: task, bytes: try VaultCipher.randomBytes(length))
    }

    /// A key read back from the vault; nil when `bytes` are not 32 bytes long (a damaged row).
    init?(task: TaskID, stored bytes: [UInt8]) {
        guard bytes.count == Self.length else { return nil }
        self.init(task: task, bytes: bytes)
    }

    private init(task: TaskID, bytes: [UInt8]) {
        self.task = task
        self.bytes = bytes
    }

    /// Seals `plaintext` for the place `context` names (e.g. `header:authorization`): a value moved to another
    /// task, key or place does not open.
    /// - Throws: `VaultError.crypto` when OpenSSL fails.
    public func seal(_ plaintext: [UInt8], context: String) throws(VaultError) -> SealedSecret {
        try VaultCipher.seal(plaintext, key: self, context: context)
    }

    /// Opens what ``seal(_:context:)`` sealed with this key for `context`.
    /// - Throws: `VaultError.failedToOpen` when the tag does not match (the value, its task or its place was
    ///   changed, or another key sealed it), `.malformed` for a value sealed under another task's key.
    public func open(_ sealed: SealedSecret, context: String) throws(VaultError) -> [UInt8] {
        try VaultCipher.open(sealed, key: self, context: context)
    }
}
