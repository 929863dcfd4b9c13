import CSQLite

extension SQLiteEventStore {
    static let selectColumns = "SELECT seq, time, kind, version, tasks, payload, hash FROM events"

    public func scan(after: Int64, through: Int64?, _ body: (RawEventView) throws -> Void) throws {
        let statement = try translatingErrors {
            let statement = try db.cachedStatement(
                "SELECT seq, time, kind, payload FROM events WHERE seq > ? AND seq <= ? ORDER BY seq")
            try statement.bind(after, at: 1)
            try statement.bind(through ?? Int64.max, at: 2)
            return statement
        }
        defer { statement.reset() }
        let handle = statement.handle
        while try translatingErrors({ try statement.step() }) {
            let kind = sqlite3_column_blob(handle, 2)
            let kindCount = Int(sqlite3_column_bytes(handle, 2))
            let payload = sqlite3_column_blob(handle, 3)
            let payloadCount = Int(sqlite3_column_bytes(handle, 3))
            try body(
                RawEventView(
                    seq: sqlite3_column_int64(handle, 0), time: sqlite3_column_int64(handle, 1),
                    kind: UnsafeRawBufferPointer(start: kind, count: kindCount),
                    payload: UnsafeRawBufferPointer(start: payload, count: payloadCount)))
        }
    }

    public func events(after: Int64, through: Int64?, limit: Int?) throws -> [StoredEvent] {
        try translatingErrors {
            let statement = try db.cachedStatement(
                Self.selectColumns + " WHERE seq > ? AND seq <= ? ORDER BY seq LIMIT ?")
            try statement.bind(after, at: 1)
            try statement.bind(through ?? Int64.max, at: 2)
            try statement.bind(Int64(limit ?? -1), at: 3)
            return try collect(statement)
        }
    }

    public func events(touching task: Int64) throws -> [StoredEvent] {
        try translatingErrors {
            let statement = try db.cachedStatement(
                Self.selectColumns + " WHERE seq IN (SELECT seq FROM event_tasks WHERE task = ?) ORDER BY seq"
            )
            try statement.bind(task, at: 1)
            return try collect(statement)
        }
    }

    public func events(listing task: Int64) throws -> [StoredEvent] {
        try translatingErrors {
            // The tasks column is "7,8": the id with commas around it matches whole ids only.
            let statement = try db.cachedStatement(
                Self.selectColumns + " WHERE instr(',' || tasks || ',', ?) > 0 ORDER BY seq")
            try statement.bind(",\(task),", at: 1)
            return try collect(statement)
        }
    }

    public func scan(
        touching task: Int64, indexed: Bool, _ body: (_ event: RawEventView, _ listsTask: Bool) throws -> Void
    ) throws {
        try scan(touching: task, indexed: indexed, leavingOutIndexedAdds: false) { view, lists, _ in
            try body(view, lists)
        }
    }

    public func scan(
        touching task: Int64, indexed: Bool, leavingOutIndexedAdds: Bool,
        _ body: (_ event: RawEventView, _ listsTask: Bool, _ leftOut: Bool) throws -> Void
    ) throws {
        // An add with an index is not read (the CASE reads the payload only for the others).
        let leavingOut = leavingOutIndexedAdds && hasAddIndex
        let columns =
            leavingOut
            ? "SELECT seq, time, kind, CASE WHEN seq IN (SELECT seq FROM add_index) THEN NULL ELSE payload END,"
                + " tasks, seq IN (SELECT seq FROM add_index) FROM events"
            : "SELECT seq, time, kind, payload, tasks, 0 FROM events"
        // An add of 100,000 tasks spans thousands of overflow pages: read through a memory map, as a snapshot is
        // (one copy into SQLite's buffer for the row, no pread per page), and only for this read.
        try translatingErrors { try db.execute("PRAGMA mmap_size = \(Self.snapshotMapSize)") }
        defer { try? db.execute("PRAGMA mmap_size = 0") }
        let statement = try translatingErrors {
            let statement =
                indexed
                ? try db.cachedStatement(
                    columns + " WHERE seq IN (SELECT seq FROM event_tasks WHERE task = ?) ORDER BY seq")
                : try db.cachedStatement(columns + " WHERE instr(',' || tasks || ',', ?) > 0 ORDER BY seq")
            if indexed { try statement.bind(task, at: 1) } else { try statement.bind(",\(task),", at: 1) }
            return statement
        }
        defer { statement.reset() }
        while try translatingErrors({ try statement.step() }) {
            let seq = statement.int64(at: 0)
            guard let lists = ChainHasher.tasks(statement.rawBytes(at: 4), list: task) else {
                throw StoreError.corrupt(path, "the tasks of seq \(seq) are not comma-separated ids")
            }
            try body(
                RawEventView(
                    seq: seq, time: statement.int64(at: 1), kind: statement.rawBytes(at: 2),
                    payload: statement.rawBytes(at: 3)),
                lists, statement.int64(at: 5) != 0)
        }
    }

    /// Every task the events with `after < seq <= through` name, from their lists of tasks (no payload read); nil
    /// when a list is not comma-separated ids.
    public func tasksNamed(after: Int64, through: Int64) throws -> Set<Int64>? {
        try translatingErrors {
            let statement = try db.cachedStatement("SELECT tasks FROM events WHERE seq > ? AND seq <= ?")
            defer { statement.reset() }
            try statement.bind(after, at: 1)
            try statement.bind(through, at: 2)
            var named: Set<Int64> = []
            while try statement.step() {
                guard let tasks = ChainHasher.parseTasks(statement.rawBytes(at: 0)) else { return nil }
                named.formUnion(tasks)
            }
            return named
        }
    }

    public func commitTime(of seq: Int64) throws -> Int64? {
        try translatingErrors { try db.int64("SELECT time FROM events WHERE seq = ?", seq) }
    }

    public func lastSeq(atOrBefore time: Int64) throws -> Int64 {
        try translatingErrors {
            // Commit times never decrease along the log, so a binary search over seq finds the boundary.
            let timeOf = try db.cachedStatement("SELECT time FROM events WHERE seq = ?")
            var low: Int64 = 0  // time(low) <= time, with time(0) taken as -infinity
            var high = try db.int64("SELECT max(seq) FROM events") ?? 0
            while low < high {
                let middle = low + (high - low + 1) / 2
                try timeOf.bind(middle, at: 1)
                guard try timeOf.step() else {
                    timeOf.reset()
                    throw StoreError.corrupt(path, "seq \(middle) is missing")
                }
                let middleTime = timeOf.int64(at: 0)
                timeOf.reset()
                if middleTime <= time { low = middle } else { high = middle - 1 }
            }
            return low
        }
    }

    /// Reads every row of a statement over `selectColumns` into events, then resets it.
    private func collect(_ statement: Statement) throws -> [StoredEvent] {
        defer { statement.reset() }
        var events: [StoredEvent] = []
        while try statement.step() {
            let seq = statement.int64(at: 0)
            guard let tasks = ChainHasher.parseTasks(statement.rawBytes(at: 4)) else {
                throw StoreError.corrupt(path, "the tasks of seq \(seq) are not comma-separated ids")
            }
            events.append(
                StoredEvent(
                    seq: seq, time: statement.int64(at: 1), kind: statement.string(at: 2),
                    version: Int(statement.int64(at: 3)), tasks: tasks, payload: statement.bytes(at: 5),
                    hash: statement.bytes(at: 6)))
        }
        return events
    }
}
