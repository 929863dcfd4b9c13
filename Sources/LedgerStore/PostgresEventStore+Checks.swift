/// The vault and the integrity checks (`verify`), as ``SQLiteEventStore`` has them.
extension PostgresEventStore {
    public func vaultKey(task: Int64) throws -> VaultKey? {
        guard try exists() else { return nil }
        let row = try connection.execute(
            "SELECT key FROM vault_keys WHERE task = $1", PostgresParameters(task))
        guard row.rowCount == 1 else { return nil }
        guard let key = VaultKey(task: task, stored: Array(row.bytes(0, 0))) else {
            throw VaultError.malformed("the vault key of task #\(task) is not 32 bytes")
        }
        return key
    }

    public func vaultTasks() throws -> [Int64] {
        guard try exists() else { return [] }
        let rows = try connection.execute("SELECT task FROM vault_keys ORDER BY task")
        return (0..<rows.rowCount).map { rows.int64($0, 0) }
    }

    public func verifyChain() throws -> ChainReport {
        var report = ChainReport(rowCount: 0, head: 0, headHash: [], firstProblem: nil)
        guard try exists() else { return report }
        let checker = ChainHasher()
        checker.restart(from: nil)
        var last: Int64 = Int64.min
        while true {
            let page = try connection.execute(
                Self.selectColumns + " WHERE seq > $1 ORDER BY seq LIMIT $2",
                PostgresParameters(last, Self.pageRows))
            for row in 0..<page.rowCount {
                let seq = page.int64(row, 0)
                last = seq
                report.rowCount += 1
                report.head = seq
                report.headHash = Array(page.bytes(row, 6))
                guard report.firstProblem == nil else { continue }
                let expected = report.rowCount
                if page.bytes(row, 6).count != ChainHasher.digestLength {
                    report.firstProblem = .init(seq: seq, reason: .badRow("hash is not 32 bytes"))
                } else if ChainHasher.parseTasks(page.bytes(row, 4)) == nil {
                    report.firstProblem = .init(seq: seq, reason: .badRow("tasks is not comma-separated ids"))
                } else if seq != expected {
                    report.firstProblem = .init(seq: seq, reason: .gap(expected: expected))
                } else {
                    checker.chainInPlace(
                        seq: seq, time: page.int64(row, 1), kind: page.bytes(row, 2),
                        version: Int(page.int64(row, 3)),
                        tasksText: page.bytes(row, 4), payload: page.bytes(row, 5))
                    if !page.bytes(row, 6).elementsEqual(checker.hash) {
                        report.firstProblem = .init(seq: seq, reason: .hashMismatch)
                    }
                }
            }
            if Int64(page.rowCount) < Self.pageRows { break }
        }
        return report
    }

    /// Compares `event_tasks` with the tasks every event lists, both in (seq, task) order, and names the first
    /// disagreement.
    public func verifyIndex() throws -> IndexProblem? {
        guard try exists() else { return nil }
        var listed: [(seq: Int64, task: Int64)] = []
        var tasks: [Int64] = []
        var last: Int64 = Int64.min
        while true {
            let page = try connection.execute(
                "SELECT seq, tasks FROM events WHERE seq > $1 ORDER BY seq LIMIT $2",
                PostgresParameters(last, Self.pageRows))
            for row in 0..<page.rowCount {
                last = page.int64(row, 0)
                guard SQLiteEventStore.parseDistinctTasks(page.bytes(row, 1), into: &tasks) else {
                    throw StoreError.corrupt(
                        location.masked, "the tasks of seq \(last) are not comma-separated ids")
                }
                for task in tasks { listed.append((last, task)) }
            }
            if Int64(page.rowCount) < Self.pageRows { break }
        }
        let index = try connection.execute("SELECT seq, task FROM event_tasks ORDER BY seq, task")
        var problem = IndexProblem(missing: 0, extra: 0, firstSeq: 0, firstTask: 0, firstIsMissing: true)
        func note(_ link: (seq: Int64, task: Int64), missing: Bool) {
            if problem.missing + problem.extra == 0 {
                (problem.firstSeq, problem.firstTask, problem.firstIsMissing) = (link.seq, link.task, missing)
            }
            if missing { problem.missing += 1 } else { problem.extra += 1 }
        }
        var next = 0
        for link in listed {
            while next < index.rowCount, (index.int64(next, 0), index.int64(next, 1)) < (link.seq, link.task)
            {
                note((index.int64(next, 0), index.int64(next, 1)), missing: false)
                next += 1
            }
            if next < index.rowCount, index.int64(next, 0) == link.seq, index.int64(next, 1) == link.task {
                next += 1
            } else {
                note(link, missing: true)
            }
        }
        while next < index.rowCount {
            note((index.int64(next, 0), index.int64(next, 1)), missing: false)
            next += 1
        }
        return problem.missing + problem.extra == 0 ? nil : problem
    }
}
