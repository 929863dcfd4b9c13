import Foundation
import LedgerCore

/// Claims of a shared ledger's tasks by a downloader's host (``Event/transferClaimed(id:host:leaseMs:expired:)``).
extension Ledger {
    /// Appends, in one transaction, a claim by `host` of each of `ids` it may take now
    /// (``DownloadList/claims(of:by:at:renewing:)``), decided on the list at the head they are appended after: when
    /// another writer got there first, the claims are decided again on the new list, so a task another host just
    /// claimed is not taken.
    /// - Parameter renewing: renew claims `host` holds (a running transfer's) rather than take new ones.
    /// - Returns: the tasks claimed, in the order given, and the seq of the last claim (nil when none).
    /// - Throws: `StoreError`.
    public func claim(_ ids: [TaskID], host: String, renewing: Bool = false) throws -> (
        won: [TaskID], last: Int64?
    ) {
        try core.withLock { state in
            guard !state.isReadOnly else { throw StoreError.readOnly }
            let claimed = try state.claim(ids, host: host, renewing: renewing)
            if claimed.last != nil { notify(state) }
            return claimed
        }
    }
}

extension Ledger.State {
    /// ``Ledger/claim(_:host:renewing:)`` with the mutex held.
    mutating func claim(_ ids: [TaskID], host: String, renewing: Bool) throws -> (won: [TaskID], last: Int64?)
    {
        while true {
            try fold()
            let now = clock()
            let events = list.claims(of: ids, by: host, at: now, renewing: renewing)
            guard !events.isEmpty else { return ([], nil) }
            try useFactDurability(true)
            do {
                let seq = try store.append(
                    events.map { Ledger.newEvent(Entry($0)) }, expectingHead: list.head, time: now)
                try fold()
                lastToken = (try? store.changeToken()) ?? lastToken
                try saveSnapshotIfDue()
                return (events.flatMap(\.taskIDs), seq)
            } catch StoreError.conflict {
                continue
            }
        }
    }
}
