extension PostgresEventStore {
    /// Batches of at least this many events (with no vault change) are appended with COPY: a few more round trips
    /// than `append_events`, but the server reads the rows straight into the tables instead of building them from
    /// arrays.
    static let copyThreshold = 256
    /// Events chained and sent to the server per piece of a COPY.
    static let copyPiece = 1_000

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
            head.hash.withUnsafeBytes { hasher.restart(from: $0) }
            linkTasks.removeAll(keepingCapacity: true)
            linkSeqs.removeAll(keepingCapacity: true)
            var seq = head.seq
            // Chained and sent a piece at a time: the server stores one while the next is hashed.
            try connection.copyIn(
                "COPY events(seq, time, kind, version, tasks, payload, hash) FROM STDIN (FORMAT binary)"
            ) { send in
                var rows = PostgresCopyData(capacity: Self.copyPiece * 200)
                var start = events.startIndex
                while start < events.endIndex {
                    let end = min(start + Self.copyPiece, events.endIndex)
                    hasher.clear()
                    for event in events[start..<end] {
                        seq += 1
                        chainOne(event, seq: seq, time: commitTime)
                        let entry = hasher.entries[hasher.entries.count - 1]
                        rows.startRow(fields: 7)
                        rows.add(seq)
                        rows.add(commitTime)
                        rows.add(hasher.bytes(entry.kind))
                        rows.add(Int64(event.version))
                        rows.add(hasher.bytes(entry.tasks))
                        rows.add(hasher.bytes(entry.payload))
                        rows.add(hasher.bytes(entry.hash))
                    }
                    if end == events.endIndex { rows.finish() }
                    try send(&rows)
                    start = end
                }
            }
            try connection.copyIn("COPY event_tasks(task, seq) FROM STDIN (FORMAT binary)") { send in
                var links = PostgresCopyData(capacity: linkTasks.count * 30)
                for (task, seq) in zip(linkTasks, linkSeqs) {
                    links.startRow(fields: 2)
                    links.add(task)
                    links.add(seq)
                }
                links.finish()
                try send(&links)
            }
            let hash = Array(hasher.hash)
            var moved = PostgresParameters(seq, commitTime)
            moved.add(bytes: hash)
            moved.add(text: location.channel)
            moved.add(text: String(seq))
            try connection.execute(
                """
                WITH moved AS (UPDATE head SET seq = $1, time = $2, hash = $3 RETURNING seq)
                SELECT pg_notify($4, $5) FROM moved
                """, moved)
            knownHead = (seq, commitTime, hash)
            return seq
        }
    }
}
