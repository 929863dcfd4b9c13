import LedgerCore

/// What an append does to the vault in its own transaction: keys stored for tasks whose credentials the events
/// seal, and keys deleted for tasks the events purge. The log and its keys therefore never disagree: an append
/// refused or rolled back leaves no key behind, and a purge committed leaves none.
public struct VaultChange: Sendable, Equatable {
    /// Keys to store (new tasks with credentials).
    public var added: [VaultKey]
    /// Tasks whose keys are deleted (purged: gone for good).
    public var removed: [TaskID]

    public init(added: [VaultKey] = [], removed: [TaskID] = []) {
        self.added = added
        self.removed = removed
    }

    /// Nothing to do.
    public static let none = VaultChange()

    /// Whether the change does nothing.
    public var isEmpty: Bool { added.isEmpty && removed.isEmpty }
}
