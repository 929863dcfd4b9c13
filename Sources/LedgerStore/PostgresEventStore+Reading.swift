extension PostgresEventStore {
    static let selectColumns = "SELECT seq, time, kind, version, tasks, payload, hash FROM events"
    /// Rows fetched per round trip by a scan: a replay of a million events holds one page at a time.
    static let pageRows: Int64 = 10_000

    /// Reads the events after `after` (through `through`) in seq order. The first page is one query, the whole
    /// read of the usual fold after a few appends; a longer read (a replay) goes on through a cursor over one query,
    /// a page per FETCH, so the server plans it once and walks the index once instead of sorting a page out of a
    /// range per query.
    public func scan(after: Int64, through: Int64?, _ body: (RawEventView) throws -> Void) throws {
        guard try exists() else { return }
        let end = through ?? Int64.max
        let columns = "SELECT seq, time, kind, payload FROM events WHERE seq > $1 AND seq <= $2 ORDER BY seq"
        let first = try connection.execute(
            columns + " LIMIT $3", PostgresParameters(after, end, Self.pageRows))
        var last = after
        try deliver(first, to: body, last: &last)
        guard Int64(first.rowCount) == Self.pageRows, last < end else { return }
        try connection.withCursor(columns, PostgresParameters(last, end), rows: Self.pageRows) { page in
            try deliver(page, to: body, last: &last)
        }
    }

    /// Hands each row of a page of `seq, time, kind, payload` to `body`, in place.
    private func deliver(_ page: PostgresResult, to body: (RawEventView) throws -> Void, last: inout Int64)
        throws
    {
        for row in 0..<page.rowCount {
            last = page.int64(row, 0)
            try body(
                RawEventView(
                    seq: last, time: page.int64(row, 1), kind: page.bytes(row, 2), payload: page.bytes(row, 3)
                ))
        }
    }

    public func events(after: Int64, through: Int64?, limit: Int?) throws -> [StoredEvent] {
        guard try exists() else { return [] }
        var parameters = PostgresParameters(after, through ?? Int64.max)
        if let limit {
            parameters.add(Int64(max(limit, 0)))
        } else {
            parameters.addNull(type: PostgresParameters.OID.int8)
        }
        return try collect(
            connection.execute(
                Self.selectColumns + " WHERE seq > $1 AND seq <= $2 ORDER BY seq LIMIT $3", parameters))
    }

    public func events(touching task: Int64) throws -> [StoredEvent] {
        guard try exists() else { return [] }
        return try collect(
            connection.execute(
                Self.selectColumns
                    + " WHERE seq IN (SELECT seq FROM event_tasks WHERE task = $1) ORDER BY seq",
                PostgresParameters(task)))
    }

    public func events(listing task: Int64) throws -> [StoredEvent] {
        guard try exists() else { return [] }
        return try collect(
            connection.execute(Self.selectColumns + Self.listingFilter, Self.listingParameter(task)))
    }

    /// The events whose own list of tasks names `$1` (`,7,` against `,7,8,`): whole ids only.
    static let listingFilter = " WHERE strpos(',' || tasks || ',', $1) > 0 ORDER BY seq"

    static func listingParameter(_ task: Int64) -> PostgresParameters {
        var parameters = PostgresParameters()
        parameters.add(text: ",\(task),")
        return parameters
    }

    public func scan(
        touching task: Int64, indexed: Bool, _ body: (_ event: RawEventView, _ listsTask: Bool) throws -> Void
    ) throws {
        guard try exists() else { return }
        let columns = "SELECT seq, time, kind, payload, tasks FROM events"
        let rows =
            indexed
            ? try connection.execute(
                columns + " WHERE seq IN (SELECT seq FROM event_tasks WHERE task = $1) ORDER BY seq",
                PostgresParameters(task))
            : try connection.execute(columns + Self.listingFilter, Self.listingParameter(task))
        for row in 0..<rows.rowCount {
            let seq = rows.int64(row, 0)
            guard let lists = ChainHasher.tasks(rows.bytes(row, 4), list: task) else {
                throw StoreError.corrupt(
                    location.masked, "the tasks of seq \(seq) are not comma-separated ids")
            }
            try body(
                RawEventView(
                    seq: seq, time: rows.int64(row, 1), kind: rows.bytes(row, 2), payload: rows.bytes(row, 3)),
                lists)
        }
    }

    public func commitTime(of seq: Int64) throws -> Int64? {
        guard try exists() else { return nil }
        let row = try connection.execute("SELECT time FROM events WHERE seq = $1", PostgresParameters(seq))
        return row.rowCount == 1 ? row.int64(0, 0) : nil
    }

    public func lastSeq(atOrBefore time: Int64) throws -> Int64 {
        guard try exists() else { return 0 }
        // Commit times never decrease along the log: a binary search over seq, one indexed read per step.
        var low: Int64 = 0
        var high = try head()
        while low < high {
            let middle = low + (high - low + 1) / 2
            guard let middleTime = try commitTime(of: middle) else {
                throw StoreError.corrupt(location.masked, "seq \(middle) is missing")
            }
            if middleTime <= time { low = middle } else { high = middle - 1 }
        }
        return low
    }

    /// The rows of a query over `selectColumns`, as events.
    func collect(_ rows: PostgresResult) throws -> [StoredEvent] {
        var events: [StoredEvent] = []
        events.reserveCapacity(rows.rowCount)
        for row in 0..<rows.rowCount {
            let seq = rows.int64(row, 0)
            guard let tasks = ChainHasher.parseTasks(rows.bytes(row, 4)) else {
                throw StoreError.corrupt(
                    location.masked, "the tasks of seq \(seq) are not comma-separated ids")
            }
            events.append(
                StoredEvent(
                    seq: seq, time: rows.int64(row, 1), kind: rows.string(row, 2),
                    version: Int(rows.int64(row, 3)),
                    tasks: tasks, payload: Array(rows.bytes(row, 5)), hash: Array(rows.bytes(row, 6))))
        }
        return events
    }
}
