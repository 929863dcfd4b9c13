import Foundation

extension LedgerLog {
    /// One task's audit trail and the task as the list holds it now (``LedgerLog/audit(_:)``).
    public struct TaskAudit: Sendable {
        /// Every event that named the task, checked against the projection's count of them.
        public var trail: AuditTrail
        /// The task now; nil when it is gone (purged, deleted at once, its add undone) or never was.
        public var task: DownloadTask?
        /// Its place in the manual list (section, index); nil when it is in the to-delete list or gone.
        public var location: (section: Int, index: Int)?
        /// Whether it is in the to-delete list.
        public var isTrashed: Bool
    }

    /// One task's audit trail and where the task is now, without projecting every task: the latest snapshot is
    /// read with only this task whole (the others as their id and state), then the events after it are folded
    /// in, so the sections, the to-delete list, the count of the task's events (which the audit index must
    /// match, as ``Ledger/auditTrail(_:)`` checks it) and the task itself are exactly the full projection's.
    /// - Complexity: reading the snapshot past every task, and the events since it; no task but this one is built.
    ///
    /// With `outliningAdds` (what the audit in words needs), each add of the trail is read for this task's sake: its
    /// entry holds only this task, and the trail's ``Ledger/AuditTrail/outlines`` say the whole add (its ids by
    /// group, where they went, their options), with no string made for any other task
    /// (``Entry/decode(kind:payload:keepingOnly:)``). Without it every entry is the event as logged (`--json`).
    public func audit(_ id: TaskID, outliningAdds: Bool = false) throws -> TaskAudit {
        try locked { store in
            // As of the head now. The fold reads only the tasks its events name: the others are not kept at all
            // (none at all when the snapshot is at the head).
            let head = try store.head()
            // The tasks named after the snapshot, asked once it is found: it is read (and its seal checked) once.
            var (list, tail) = try Self.startingPointReadingAhead(
                store, atOrBefore: head, through: head, reader: nil, keepingOnly: id,
                namesAfter: { try store.tasksNamed(after: $0, through: head) })
            // Looked at, never undone on: no undo history is worked out.
            try Self.fold(store, into: &list, through: head, keepingUndo: false, tail: tail)
            let trail = try Self.auditTrail(
                id, in: store, head: list.head, counted: list.eventCounts[id], outliningAdds: outliningAdds)
            return TaskAudit(
                trail: trail, task: list.tasks[id], location: list.location(of: id),
                isTrashed: list.isTrashed(id))
        }
    }
}
