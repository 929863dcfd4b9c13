import CSQLite

extension SQLiteEventStore {
    /// Checks `event_tasks` against the tasks each event lists: one pass over each table compares their counts
    /// and an order-free fingerprint of the (task, seq) pairs; only when they differ is the index read in seq
    /// order to name the first disagreement.
    public func verifyIndex() throws -> IndexProblem? {
        try translatingErrors {
            var listed = LinkFingerprint()
            try eachEventLinks { seq, tasks in
                for task in tasks { listed.add(task: task, seq: seq) }
                return true
            }
            var indexed = LinkFingerprint()
            let index = try db.cachedStatement("SELECT task, seq FROM event_tasks")
            defer { index.reset() }
            while try index.step() { indexed.add(task: index.int64(at: 0), seq: index.int64(at: 1)) }
            guard listed != indexed else { return nil }
            return try firstIndexProblem()
        }
    }

    /// Calls `visit` with each event's seq and its distinct task ids, sorted, in seq order.
    private func eachEventLinks(_ visit: (Int64, [Int64]) throws -> Bool) throws {
        let events = try db.cachedStatement("SELECT seq, tasks FROM events ORDER BY seq")
        defer { events.reset() }
        var tasks: [Int64] = []
        while try events.step() {
            let seq = events.int64(at: 0)
            guard Self.parseDistinctTasks(events.rawBytes(at: 1), into: &tasks) else {
                throw StoreError.corrupt(path, "the tasks of seq \(seq) are not comma-separated ids")
            }
            guard try visit(seq, tasks) else { return }
        }
    }

    /// Walks the events and the index, both in (seq, task) order, and counts what one has and the other lacks.
    private func firstIndexProblem() throws -> IndexProblem? {
        let index = try db.cachedStatement("SELECT seq, task FROM event_tasks ORDER BY seq, task")
        defer { index.reset() }
        var pending: (seq: Int64, task: Int64)? =
            try index.step() ? (index.int64(at: 0), index.int64(at: 1)) : nil
        func advance() throws {
            pending = try index.step() ? (index.int64(at: 0), index.int64(at: 1)) : nil
        }
        var problem = IndexProblem(missing: 0, extra: 0, firstSeq: 0, firstTask: 0, firstIsMissing: true)
        func note(seq: Int64, task: Int64, missing: Bool) {
            if problem.missing + problem.extra == 0 {
                (problem.firstSeq, problem.firstTask, problem.firstIsMissing) = (seq, task, missing)
            }
            if missing { problem.missing += 1 } else { problem.extra += 1 }
        }
        try eachEventLinks { seq, tasks in
            for task in tasks {
                while let link = pending, (link.seq, link.task) < (seq, task) {
                    note(seq: link.seq, task: link.task, missing: false)
                    try advance()
                }
                if let link = pending, link.seq == seq, link.task == task {
                    try advance()
                } else {
                    note(seq: seq, task: task, missing: true)
                }
            }
            return true
        }
        while let link = pending {
            note(seq: link.seq, task: link.task, missing: false)
            try advance()
        }
        return problem.missing + problem.extra == 0 ? nil : problem
    }

    /// Parses a `tasks` column ("7,8") into its distinct ids, sorted, without allocating per id.
    static func parseDistinctTasks(_ text: UnsafeRawBufferPointer, into tasks: inout [Int64]) -> Bool {
        tasks.removeAll(keepingCapacity: true)
        guard !text.isEmpty else { return true }
        var value: Int64 = 0
        var digits = 0
        var negative = false
        for index in 0...text.count {
            let byte = index < text.count ? text[index] : UInt8(ascii: ",")
            if byte == UInt8(ascii: ",") {
                guard digits > 0 else { return false }
                tasks.append(negative ? -value : value)
                (value, digits, negative) = (0, 0, false)
            } else if byte == UInt8(ascii: "-"), digits == 0, !negative {
                negative = true
            } else if byte >= UInt8(ascii: "0"), byte <= UInt8(ascii: "9") {
                let (times10, over) = value.multipliedReportingOverflow(by: 10)
                let (next, overAdd) = times10.addingReportingOverflow(Int64(byte - UInt8(ascii: "0")))
                guard !over, !overAdd else { return false }
                value = next
                digits += 1
            } else {
                return false
            }
        }
        if tasks.count > 1 {
            tasks.sort()
            var last: Int64?
            tasks.removeAll { id in
                defer { last = id }
                return id == last
            }
        }
        return true
    }
}

/// An order-free summary of a set of (task, seq) pairs: their count and the wrapping sum of a 64-bit mix of each.
struct LinkFingerprint: Equatable {
    var count: Int64 = 0
    var sum: UInt64 = 0

    mutating func add(task: Int64, seq: Int64) {
        count += 1
        // SplitMix64's finaliser over both numbers: a changed, missing or extra pair moves the sum.
        var z = UInt64(bitPattern: task) &* 0x9E37_79B9_7F4A_7C15 ^ UInt64(bitPattern: seq)
        z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
        z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
        sum &+= z ^ (z >> 31)
    }
}
