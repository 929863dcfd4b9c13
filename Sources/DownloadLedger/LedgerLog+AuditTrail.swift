import Foundation

extension LedgerLog {
    /// A task's audit trail, and where it was read from.
    public struct AuditTrail: Sendable {
        public var entries: [LoggedEntry]
        /// False when the audit index disagreed with the log (rows removed or slipped in) and the trail was
        /// read from the events themselves: `verify` names the damage.
        public var fromIndex: Bool
        /// When the trail was read outlining its adds (``LedgerLog/audit(_:outliningAdds:)``): each add's outline
        /// by the seq it was logged at. Its entry then holds only the audited task; the outline says the whole add.
        public var outlines: [Int64: AddOutline] = [:]
    }

    /// The trail of `id` read through the audit index when it agrees with a projection at `head` that counted
    /// `counted` events naming the task; else read from the events themselves. The events are decoded where they
    /// lie; with `outliningAdds`, each add for this task's sake (``Entry/decode(kind:payload:keepingOnly:)``).
    static func auditTrail(
        _ id: TaskID, in store: EventStore, head: Int64, counted: Int, outliningAdds: Bool = false
    ) throws -> AuditTrail {
        let indexed = try trail(id, in: store, head: head, indexed: true, outliningAdds: outliningAdds)
        if indexed.upToHead == counted, indexed.allListIt {
            if let failure = indexed.failure { throw failure }
            return AuditTrail(entries: indexed.entries, fromIndex: true, outlines: indexed.outlines)
        }
        // The index is not to be trusted: whatever it led to is dropped, an unreadable event included.
        let listed = try trail(id, in: store, head: head, indexed: false, outliningAdds: outliningAdds)
        if let failure = listed.failure { throw failure }
        return AuditTrail(entries: listed.entries, fromIndex: false, outlines: listed.outlines)
    }

    /// The events of one way of finding a task's trail, decoded, with what the agreement check needs.
    private struct FoundTrail {
        var entries: [LoggedEntry] = []
        var outlines: [Int64: AddOutline] = [:]
        /// How many of them are at or before the projection's head.
        var upToHead = 0
        /// Whether each lists the task among its own tasks.
        var allListIt = true
        /// The first event that did not decode.
        var failure: LedgerOpenError?
    }

    private static func trail(
        _ id: TaskID, in store: EventStore, head: Int64, indexed: Bool, outliningAdds: Bool
    ) throws -> FoundTrail {
        var found = FoundTrail()
        var failed: Int64?
        // The adds whose payload the scan left out (they have an add index): where each goes in the trail.
        var leftOut: [(at: Int, seq: Int64, time: Int64, kind: [UInt8])] = []
        try store.scan(touching: id, indexed: indexed, leavingOutIndexedAdds: outliningAdds) {
            view, listsTask, isLeftOut in
            if view.seq <= head { found.upToHead += 1 }
            if !listsTask { found.allListIt = false }
            guard found.failure == nil else { return }
            if isLeftOut {
                leftOut.append((found.entries.count, view.seq, view.time, Array(view.kind)))
                found.entries.append(LoggedEntry(seq: view.seq, time: view.time, entry: Self.leftOutAdd))
                return
            }
            do {
                if outliningAdds {
                    let (entry, outline) = try Entry.decode(
                        kind: view.kind, payload: view.payload, keepingOnly: id)
                    found.outlines[view.seq] = outline
                    found.entries.append(LoggedEntry(seq: view.seq, time: view.time, entry: entry))
                } else {
                    let entry = try Entry.decode(kind: view.kind, payload: view.payload)
                    found.entries.append(LoggedEntry(seq: view.seq, time: view.time, entry: entry))
                }
            } catch {
                found.failure = .unreadableEvent(seq: view.seq, detail: "\(error)")
                failed = view.seq
            }
        }
        for add in leftOut where add.seq < failed ?? .max {
            do {
                let (entry, outline) = try Self.taskOfAdd(id, at: add.seq, kind: add.kind, in: store)
                found.outlines[add.seq] = outline
                found.entries[add.at] = LoggedEntry(seq: add.seq, time: add.time, entry: entry)
            } catch {
                // The first event that does not read is the one named, as when every payload is read in order.
                found.failure =
                    error as? LedgerOpenError ?? .unreadableEvent(seq: add.seq, detail: "\(error)")
                break
            }
        }
        return found
    }

    /// Stands in the trail for an add read after the scan (never returned).
    private static let leftOutAdd = Entry(.tasksAdded(tasks: [], section: 0, index: 0, newSectionTitle: nil))

    /// Task `id`'s entry in the add at `seq` and the add's outline, read through the add's index (that task's part
    /// of the payload alone) when it holds and what it reads is what was indexed; else from the whole payload.
    /// - Throws: what ``Entry/decode(kind:payload:keepingOnly:)`` throws for the whole payload.
    static func taskOfAdd(_ id: TaskID, at seq: Int64, kind: [UInt8], in store: EventStore) throws -> (
        Entry, AddOutline?
    ) {
        let indexed =
            try store.withAddIndex(seq: seq) { bytes, length, piece -> (entry: Entry, outline: AddOutline)? in
                guard let index = try? AddIndex(encoded: bytes), index.payloadLength == length else {
                    return nil
                }
                return kind.withUnsafeBytes { index.entry(kind: $0, for: id, piece: piece) }
            } ?? nil
        if let indexed { return (indexed.entry, indexed.outline) }
        guard let stored = try store.events(after: seq - 1, through: seq, limit: 1).first, stored.seq == seq
        else { throw LedgerOpenError.unreadableEvent(seq: seq, detail: "it is no longer in the log") }
        return try kind.withUnsafeBytes { kind in
            try stored.payload.withUnsafeBytes { try Entry.decode(kind: kind, payload: $0, keepingOnly: id) }
        }
    }
}
