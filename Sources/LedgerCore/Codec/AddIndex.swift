/// Where the tasks of a big add lie in its logged payload, and what its words need of the rest: saved beside the
/// add by the command that logged it, so that `dledger audit ID` reads that task's part of the payload alone (a few
/// KB of an add of 100,000 URLs) and says the add as the whole payload would.
///
/// It holds the payload with each list of tasks emptied (the skeleton: sections, titles, undo and origin marks,
/// decoded as any payload is), the add's outline without its tasks' parts (their ids list by list, whether they
/// share options, the first task's part for those options), and for each list where every ``stride``-th task's
/// part starts and where the list ends. ``entry(kind:for:piece:)`` reads one task from the part between two marks,
/// as ``Entry/decode(kind:payload:keepingOnly:)`` reads it, and gives what that gives from the whole payload.
public struct AddIndex: Sendable, Equatable {
    /// Every how many tasks of a list a mark is kept.
    public static let stride = 64
    /// Adds with a smaller payload are read whole (an index would save less than it costs).
    public static let minimumPayload = 64 * 1024

    /// The length of the payload indexed: a payload of another length is not the one indexed.
    public private(set) var payloadLength: Int
    private var skeleton: [UInt8]
    private var firstTask: [UInt8]
    private var optionsShared: Bool
    private var lists: [TaskList]

    /// One list of tasks of the payload (a `tasksAdded` has one, a `groupsAdded` one per group).
    private struct TaskList: Sendable, Equatable {
        var ids: [TaskID]
        /// Where the part of task `n * stride` starts, for each n.
        var marks: [Int]
        /// Where the list's `]` is.
        var end: Int
    }

    private static let magic: [UInt8] = Array("DLA1".utf8)

    /// The index of `payload`, the logged form of `entry`; nil for an event that is not an add, a payload under
    /// ``minimumPayload``, or one not laid out as this build writes an add (a key given twice, no task).
    public init?(entry: Entry, payload: UnsafeRawBufferPointer) {
        guard payload.count >= Self.minimumPayload, let outline = AddOutline(entry.event) else { return nil }
        self.init(outline: outline, payload: payload)
    }

    /// The index of `payload`, an add whose outline is `outline` (what ``Entry/decode(kind:payload:keepingOnly:)``
    /// gives without making its tasks: `verify` builds the index of a logged add again to compare it).
    public init?(outline: AddOutline, payload: UnsafeRawBufferPointer) {
        guard payload.count >= Self.minimumPayload, let found = try? Self.taskLists(in: payload),
            found.count == outline.groups.count
        else { return nil }
        var lists: [TaskList] = []
        var skeleton: [UInt8] = []
        var from = 0
        var firstTask: [UInt8]?
        for (list, group) in zip(found, outline.groups) {
            guard list.count == group.ids.count else { return nil }
            lists.append(TaskList(ids: group.ids, marks: list.marks, end: list.end))
            skeleton += payload[from...list.open]
            from = list.end
            if firstTask == nil, let first = list.first { firstTask = Array(payload[first]) }
        }
        skeleton += payload[from...]
        guard let firstTask else { return nil }
        self.payloadLength = payload.count
        self.skeleton = skeleton
        self.firstTask = firstTask
        self.optionsShared = outline.optionsShared
        self.lists = lists
    }

    /// Each list of tasks in `payload`: where its `[` and `]` are, its count, the marks, the first task's part.
    private static func taskLists(in payload: UnsafeRawBufferPointer) throws -> [(
        open: Int, end: Int, count: Int, marks: [Int], first: Range<Int>?
    )] {
        var found: [(open: Int, end: Int, count: Int, marks: [Int], first: Range<Int>?)] = []
        func list(_ r: inout JSONReader) throws {
            _ = r.peek()
            let open = r.offset
            var count = 0
            var marks: [Int] = []
            var first: Range<Int>?
            try r.array { r in
                _ = r.peek()
                let start = r.offset
                if count % stride == 0 { marks.append(start) }
                try r.skip()
                if count == 0 { first = start..<r.offset }
                count += 1
            }
            found.append((open, r.offset - 1, count, marks, first))
        }
        var r = JSONReader(payload)
        var seen = (tasks: false, groups: false)
        try r.object { r, key in
            if key.equals("tasks") {
                guard !seen.tasks else { throw r.fail("tasks twice") }
                seen.tasks = true
                try list(&r)
            } else if key.equals("groups") {
                guard !seen.groups else { throw r.fail("groups twice") }
                seen.groups = true
                try r.array { r in
                    var listed = false
                    try r.object { r, key in
                        guard key.equals("tasks") else { return try r.skip() }
                        guard !listed else { throw r.fail("tasks twice") }
                        listed = true
                        try list(&r)
                    }
                }
            } else {
                try r.skip()
            }
        }
        guard r.atEnd(), !(seen.tasks && seen.groups) else { throw r.fail("not an add") }
        return found
    }

    /// The entry of task `id` and the add's outline, as ``Entry/decode(kind:payload:keepingOnly:)`` gives them
    /// from the whole payload, reading only the part of it that `piece` hands over (the payload's bytes in a
    /// range). Nil when the index does not list the task once, or what is read is not what was indexed (the
    /// payload was changed, or the part does not read): the caller then reads the payload whole, which says why.
    public func entry(kind: UnsafeRawBufferPointer, for id: TaskID, piece: (Range<Int>) throws -> [UInt8]?)
        -> (entry: Entry, outline: AddOutline)?
    {
        var found: (list: Int, position: Int)?
        for (l, list) in lists.enumerated() {
            for (i, task) in list.ids.enumerated() where task == id {
                guard found == nil else { return nil }
                found = (l, i)
            }
        }
        guard let (l, i) = found else { return nil }
        let list = lists[l]
        let mark = i / Self.stride
        let range = list.marks[mark]..<(mark + 1 < list.marks.count ? list.marks[mark + 1] : list.end)
        guard let part = try? piece(range), part.count == range.count,
            let task = Self.task(id, in: part, after: i % Self.stride),
            let firstID = lists.first(where: { !$0.ids.isEmpty })?.ids.first,
            let first = Self.task(firstID, in: firstTask, after: 0),
            let decoded = try? skeleton.withUnsafeBytes({
                try Entry.decode(kind: kind, payload: $0, keepingOnly: id)
            }),
            var outlined = decoded.outline, outlined.groups.count == lists.count
        else { return nil }
        for g in lists.indices { outlined.groups[g].ids = lists[g].ids }
        outlined.firstOptions = first.options
        outlined.optionsShared = optionsShared
        var entry = decoded.entry
        switch entry.event {
        case .tasksAdded(let tasks, let section, let index, let title) where tasks.isEmpty && l == 0:
            entry.event = .tasksAdded(tasks: [task], section: section, index: index, newSectionTitle: title)
        case .groupsAdded(var groups) where groups.count == lists.count && groups.allSatisfy(\.tasks.isEmpty):
            groups[l].tasks = [task]
            entry.event = .groupsAdded(groups)
        default:
            return nil
        }
        return (entry, outlined)
    }

    /// Task `id` read from `part` (tasks' parts of a list, from a mark), past the `skipping` before it, as the
    /// decode for one task's sake reads it; nil when it does not read or is not that task.
    private static func task(_ id: TaskID, in part: [UInt8], after skipping: Int) -> NewTask? {
        part.withUnsafeBytes { bytes in
            var r = JSONReader(bytes)
            var tasks = Entry.OutlinedTasks()
            do {
                for _ in 0..<skipping {
                    try r.skip()
                    try r.expect(UInt8(ascii: ","))
                }
                try Entry.outlineTask(&r, keeping: id, into: &tasks)
            } catch {
                return nil
            }
            return tasks.ids == [id] && tasks.kept.count == 1 ? tasks.kept[0] : nil
        }
    }

    /// The index as bytes (``init(encoded:)`` reads them back).
    public func encoded() -> [UInt8] {
        var w = BinaryWriter()
        w.bytes.append(contentsOf: Self.magic)
        w.int(payloadLength)
        w.raw(skeleton)
        w.raw(firstTask)
        w.bool(optionsShared)
        w.int(lists.count)
        for list in lists {
            // Ids as runs of consecutive ids (an add's are one run), marks as distances.
            var runs: [(start: TaskID, length: Int64)] = []
            for id in list.ids {
                if let last = runs.last, last.start &+ last.length == id {
                    runs[runs.count - 1].length += 1
                } else {
                    runs.append((id, 1))
                }
            }
            w.int(runs.count)
            for run in runs {
                w.int(run.start)
                w.int(run.length)
            }
            w.int(list.marks.count)
            var previous = 0
            for mark in list.marks + [list.end] {
                w.int(mark - previous)
                previous = mark
            }
        }
        return w.bytes
    }

    /// Reads what ``encoded()`` wrote; anything else, or an index that cannot be one of a payload of its length
    /// (more tasks than it could hold, marks out of order or past its end), throws.
    public init(encoded bytes: UnsafeRawBufferPointer) throws {
        guard bytes.starts(with: Self.magic) else { throw AddIndexError() }
        var r = BinaryReader(bytes: bytes, offset: Self.magic.count)
        do {
            payloadLength = Int(try r.int())
            guard payloadLength >= 0 else { throw AddIndexError() }
            skeleton = Array(try r.raw())
            firstTask = Array(try r.raw())
            optionsShared = try r.bool()
            lists = []
            // A task's part is at least `{"id":1,"url":"","dir":""}`: no more tasks than that many bytes hold.
            var left = max(0, payloadLength / 24)
            for _ in 0..<(try r.count()) {
                var runs: [(start: TaskID, length: Int64)] = []
                var total = 0
                for _ in 0..<(try r.count()) {
                    let start = try r.int()
                    let length = try r.int()
                    guard length >= 1, length <= left, start >= 1, start <= TaskID.max - length else {
                        throw AddIndexError()
                    }
                    left -= Int(length)
                    total += Int(length)
                    runs.append((start, length))
                }
                // A mark takes a byte at least: the ids are no more than the bytes left can mark.
                let count = try r.count()
                guard count == (total + Self.stride - 1) / Self.stride, count < bytes.count - r.offset else {
                    throw AddIndexError()
                }
                var ids: [TaskID] = []
                ids.reserveCapacity(total)
                for run in runs {
                    for n in 0..<run.length { ids.append(run.start + n) }
                }
                var marks: [Int] = []
                var previous = 0
                for _ in 0...count {
                    let step = try r.int()
                    guard step > 0, step < payloadLength - previous else { throw AddIndexError() }
                    previous += Int(step)
                    marks.append(previous)
                }
                let end = marks.removeLast()
                lists.append(TaskList(ids: ids, marks: marks, end: end))
            }
            guard r.offset == bytes.count, payloadLength >= 0 else { throw AddIndexError() }
        } catch {
            throw AddIndexError()
        }
    }
}

/// Bytes that are not an add index: the add is read whole.
public struct AddIndexError: Error, Sendable {}
