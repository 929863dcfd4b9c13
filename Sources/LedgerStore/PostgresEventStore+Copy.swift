extension PostgresEventStore {
    /// Batches of at least this many events (with no vault change) are appended with COPY: a few more round trips
    /// than `append_events`, but the server reads the rows straight into the tables instead of building them from
    /// arrays.
    static let copyThreshold = 256

    /// Appends a big batch in one transaction: the counter row locked and checked, the rows and their audit links
    /// by binary COPY, the counter moved and the channel notified. The same rows and chain as `append_events`.
    /// - Throws: `StoreError.conflict(head:)` when the head is not `expectingHead` (nothing written).
    func appendByCopy(_ events: [NewEvent], expectingHead: Int64, time: Int64) throws -> Int64 {
        try connection.transaction {
            let row = try connection.execute("SELECT seq, time, hash FROM head FOR UPDATE")
            guard row.rowCount == 1 else {
                throw StoreError.corrupt(location.masked, "the counter row is missing")
            }
            let head = (seq: row.int64(0, 0), time: row.int64(0, 1), hash: Array(row.bytes(0, 2)))
            guard head.seq == expectingHead else {
                knownHead = nil
                throw StoreError.conflict(head: head.seq)
            }
            let commitTime = max(time, head.time)
            hashChain(events, after: head, time: commitTime)
            var rows = PostgresCopyData(capacity: hasher.entries.count * 200)
            var seq = head.seq
            for (entry, event) in zip(hasher.entries, events) {
                seq += 1
                rows.startRow(fields: 7)
                rows.add(seq)
                rows.add(commitTime)
                rows.add(hasher.bytes(entry.kind))
                rows.add(Int64(event.version))
                rows.add(hasher.bytes(entry.tasks))
                rows.add(hasher.bytes(entry.payload))
                rows.add(hasher.bytes(entry.hash))
            }
            rows.finish()
            try connection.copyIn(
                "COPY events(seq, time, kind, version, tasks, payload, hash) FROM STDIN (FORMAT binary)", rows
            )
            var links = PostgresCopyData(capacity: linkTasks.count * 30)
            for (task, seq) in zip(linkTasks, linkSeqs) {
                links.startRow(fields: 2)
                links.add(task)
                links.add(seq)
            }
            links.finish()
            try connection.copyIn("COPY event_tasks(task, seq) FROM STDIN (FORMAT binary)", links)
            let hash = Array(hasher.hash)
            var moved = PostgresParameters(seq, commitTime)
            moved.add(bytes: hash)
            try connection.execute("UPDATE head SET seq = $1, time = $2, hash = $3", moved)
            var notice = PostgresParameters()
            notice.add(text: location.channel)
            notice.add(text: String(seq))
            try connection.execute("SELECT pg_notify($1, $2)", notice)
            knownHead = (seq, commitTime, hash)
            return seq
        }
    }
}
