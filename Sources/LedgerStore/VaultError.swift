import LedgerCore

/// Why a credential cannot be sealed or opened, in words a user can act on.
public enum VaultError: Error, Equatable, Sendable, CustomStringConvertible {
    /// The task's key is gone (the task was purged): the credential can never be opened again.
    case purged(task: TaskID)
    /// The authentication tag does not match: the sealed value, the task or the place it is used was changed,
    /// or the vault's key was replaced.
    case failedToOpen(task: TaskID, reason: String)
    /// The stored key or sealed value is not well formed.
    case malformed(String)
    /// OpenSSL failed (no random bytes, a cipher error).
    case crypto(String)

    public var description: String {
        switch self {
        case .purged(let task):
            "credential purged: task #\(task)'s vault key is gone, its credentials cannot be opened"
        case .failedToOpen(let task, let reason):
            "credential of task #\(task) does not open: \(reason) (the sealed value or the vault was altered)"
        case .malformed(let detail): "credential malformed: \(detail)"
        case .crypto(let detail): "credential sealing failed: \(detail)"
        }
    }

    /// The reason without the task, for a task's failure (shown as `credential: <reason>`).
    public var reason: String {
        switch self {
        case .purged: "purged (its vault key is gone)"
        case .failedToOpen(_, let reason):
            "does not open: \(reason); the sealed value or the vault was altered"
        case .malformed(let detail): "malformed: \(detail)"
        case .crypto(let detail): "sealing failed: \(detail)"
        }
    }
}
