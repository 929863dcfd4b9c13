extension SQLiteEventStore {
    /// The event at `seq` when its link in the hash chain holds: its row hashes, after the hash of the event before
    /// it, to the hash it is stored with. Nil when there is no such event, or its row was changed (a damaged log:
    /// what undo would read back from it is not what was logged).
    /// - Complexity: two rows read, one SHA-256 over the event.
    public func linkedEvent(at seq: Int64) throws -> StoredEvent? {
        let rows = try events(after: seq - 2, through: seq, limit: 2)
        guard let event = rows.last, event.seq == seq else { return nil }
        let hasher = ChainHasher()
        if seq > 1 {
            guard rows.count == 2, rows[0].seq == seq - 1 else { return nil }
            rows[0].hash.withUnsafeBytes { hasher.restart(from: $0) }
        } else {
            hasher.restart(from: nil)
        }
        Array(event.kind.utf8).withUnsafeBytes { kind in
            event.payload.withUnsafeBytes { payload in
                hasher.chain(
                    seq: seq, time: event.time, kind: kind, version: event.version, tasks: event.tasks,
                    payload: payload)
            }
        }
        return hasher.hash.elementsEqual(event.hash) ? event : nil
    }
}
