/// The tasks of a list by id: a dense array for the ids the ledger hands out (1, 2, 3, …), with a dictionary
/// for any id far outside that range (only a foreign or damaged log has those). No hashing on the replay path
/// and no per-entry overhead beyond the task itself.
public struct TaskTable: Sendable, Sequence {
    private var slots: [DownloadTask?] = []
    private var far: [TaskID: DownloadTask] = [:]
    /// The tasks of the snapshot this table was read from (the slots are empty then): each is built when it is
    /// read. Changes go to `changed` over them, so that folding a few events after a snapshot builds only the
    /// tasks they touch; every task is built once the changes outgrow ``changeReach``.
    private var kept: SnapshotTasks?
    /// While `kept` is set: the tasks changed, added (an id `kept` has not) or removed (nil) since.
    private var changed: [TaskID: DownloadTask?] = [:]
    /// One bit for each id `changed` holds, at the id modulo 4,096 (empty while it holds none): a list printed or
    /// counted whole after a tail looks up 100,000 ids, and a dictionary hashes each of them, even those it has
    /// not (most of them: a tail touches a few hundred).
    private var changedBits: [UInt64] = []
    public private(set) var count = 0

    /// Changes kept beside a snapshot's tasks before they are all built: a tail of a few thousand events touches
    /// few tasks, and past this a lookup in `changed` costs more than the slots would.
    static let changeReach = 8192

    /// Ids up to this far past the dense range still extend it.
    private static let denseReach: TaskID = 4096

    public init() {}

    /// Whether ids up to `id` held by `count` tasks are dense enough for slots: at least one task in 8 (and any
    /// up to ``denseReach``). A damaged log or snapshot naming ids 4,096 apart would otherwise have a slot (a
    /// task's size) for every id in between: memory hundreds of times its own size.
    static func isDense(_ id: TaskID, count: Int) -> Bool { id <= 8 * TaskID(count) + denseReach }

    /// How many slots the dense range has (tests: what a damaged list costs).
    var denseSlots: Int { kept == nil ? slots.count : kept!.denseSlots }

    /// How many tasks are changed beside the snapshot's (tests).
    var changedCount: Int { changed.count }

    /// The tasks of a snapshot, built when they are read.
    init(_ kept: SnapshotTasks) {
        self.kept = kept
        count = kept.count
    }

    /// Whether every task is built (not read from a snapshot, or changed beyond ``changeReach`` since).
    var isBuilt: Bool { kept == nil }

    /// Builds every task of the snapshot, with the changes since: from then on they are the table's own.
    private mutating func build() {
        guard let kept else { return }
        self.kept = nil
        slots = kept.all()
        let changes = changed
        changed = [:]
        changedBits = []
        count = kept.count
        for (id, task) in changes.sorted(by: { $0.key < $1.key }) { self[id] = task }
    }

    /// Records `task` (nil: removed) for `id` beside the snapshot's tasks; false when the table is built or the
    /// changes would outgrow their reach (the caller then builds it and changes the slots).
    private mutating func change(_ id: TaskID, to task: DownloadTask?) -> Bool {
        guard let kept else { return false }
        let existing: Bool
        if let entry = changed[id] {
            existing = entry != nil
        } else {
            guard changed.count < Self.changeReach else { return false }
            existing = kept.position(of: id) != nil
        }
        count += (task != nil ? 1 : 0) - (existing ? 1 : 0)
        changed[id] = .some(task)
        if changedBits.isEmpty { changedBits = [UInt64](repeating: 0, count: 64) }
        let (word, bit) = Self.changedBit(id)
        changedBits[word] |= bit
        return true
    }

    /// Where `id`'s bit lies in `changedBits`: the id modulo 4,096, as a word and the bit in it.
    @inline(__always)
    private static func changedBit(_ id: TaskID) -> (word: Int, bit: UInt64) {
        (Int((id >> 6) & 63), 1 << UInt64(id & 63))
    }

    /// Whether `changed` may hold `id`: false only when it does not.
    @inline(__always)
    private func mayHaveChanged(_ id: TaskID) -> Bool {
        guard !changedBits.isEmpty else { return false }
        let (word, bit) = Self.changedBit(id)
        return changedBits[word] & bit != 0
    }

    public var isEmpty: Bool { count == 0 }

    private func slot(_ id: TaskID) -> Int? {
        id >= 1 && id <= TaskID(slots.count) ? Int(id - 1) : nil
    }

    /// Whether a task has this id (no copy of the task).
    @inline(__always)
    public func contains(_ id: TaskID) -> Bool {
        if let kept {
            if mayHaveChanged(id), let entry = changed[id] { return entry != nil }
            return kept.position(of: id) != nil
        }
        if let i = slot(id) {
            return slots.withUnsafeBufferPointer { buffer in
                if case .none = buffer[i] { return false }
                return true
            }
        }
        return !far.isEmpty && far.keys.contains(id)
    }

    /// The state of the task with this id, or nil when there is none (no copy of the task: a downloader scanning a
    /// long list for the tasks it may start looks at every task's state).
    @inline(__always)
    public func state(of id: TaskID) -> TaskState? {
        if let kept {
            if mayHaveChanged(id), let entry = changed[id] { return entry?.state }
            guard let p = kept.position(of: id) else { return nil }
            return kept.state(at: p)
        }
        if let i = slot(id) {
            return slots.withUnsafeBufferPointer { buffer in
                Self.present(buffer.baseAddress! + i) { $0.state }
            }
        }
        return far.isEmpty ? nil : far[id]?.state
    }

    /// The state, bytes and size of the task with this id, or nil when there is none: a count over a list read
    /// from a snapshot builds no task.
    public func figures(of id: TaskID) -> TaskFigures? {
        if let kept, !mayHaveChanged(id) || changed[id] == nil {
            guard let p = kept.position(of: id) else { return nil }
            return kept.figures(at: p)
        }
        return read(id) { TaskFigures(state: $0.state, bytes: $0.bytes, size: $0.size) }
    }

    /// What `body` reads from the task with this id, or nil when there is none; the task is lent, not copied (a
    /// count over a list of a million tasks retains no strings).
    @inline(__always)
    public func read<R>(_ id: TaskID, _ body: (borrowing DownloadTask) -> R) -> R? {
        if let kept {
            if mayHaveChanged(id), let entry = changed[id] {
                guard let task = entry else { return nil }
                return body(task)
            }
            guard let p = kept.position(of: id) else { return nil }
            return body(kept.task(at: p))
        }
        if let i = slot(id) {
            return slots.withUnsafeBufferPointer { buffer in Self.present(buffer.baseAddress! + i, body) }
        }
        guard !far.isEmpty, let task = far[id] else { return nil }
        return body(task)
    }

    /// What `body` reads from the task in `slot`, or nil when the slot is empty. The task is read where it lies:
    /// unwrapping the optional (`slot.pointee!`) would copy the whole task out, retaining each of its strings.
    @inline(__always)
    private static func present<R>(
        _ slot: UnsafePointer<DownloadTask?>, _ body: (borrowing DownloadTask) -> R
    )
        -> R?
    {
        if case .none = slot.pointee { return nil }
        // An optional's payload starts at its first byte: the task is at the slot's address.
        return UnsafeRawPointer(slot).withMemoryRebound(to: DownloadTask.self, capacity: 1) {
            body($0.pointee)
        }
    }

    /// The task with this id, or nil. Setting nil removes it.
    public subscript(id: TaskID) -> DownloadTask? {
        get {
            if let kept {
                if mayHaveChanged(id), let entry = changed[id] { return entry }
                guard let p = kept.position(of: id) else { return nil }
                return kept.task(at: p)
            }
            if let i = slot(id) { return slots[i] }
            return far.isEmpty ? nil : far[id]
        }
        set {
            if change(id, to: newValue) { return }
            build()
            if let i = slot(id) {
                count += (newValue != nil ? 1 : 0) - (slots[i] != nil ? 1 : 0)
                slots[i] = newValue
            } else if id == TaskID(slots.count) + 1 && far.isEmpty {
                guard let newValue else { return }
                slots.append(newValue)
                count += 1
            } else if id >= 1 && id <= TaskID(slots.count) + Self.denseReach && far.isEmpty
                && Self.isDense(id, count: count + 1)
            {
                guard let newValue else { return }
                slots.append(contentsOf: repeatElement(nil, count: Int(id) - slots.count))
                slots[Int(id - 1)] = newValue
                count += 1
            } else {
                count += (newValue != nil ? 1 : 0) - (far[id] != nil ? 1 : 0)
                far[id] = newValue
            }
        }
    }

    /// Changes a task in place; does nothing for an unknown id.
    mutating func update(_ id: TaskID, _ body: (inout DownloadTask) -> Void) {
        if let kept {
            if mayHaveChanged(id), let changedAt = changed.index(forKey: id) {
                // Changed before: in place (a tail's facts touch the same few tasks again and again).
                guard changed.values[changedAt] != nil else { return }
                body(&changed.values[changedAt]!)
                return
            }
            guard let p = kept.position(of: id) else { return }
            var task = kept.task(at: p)
            body(&task)
            if change(id, to: task) { return }
        }
        build()
        if let i = slot(id) {
            // In place through the buffer: testing the slot must not copy the task out.
            slots.withUnsafeMutableBufferPointer { buffer in
                let task = buffer.baseAddress! + i
                if case .none = task.pointee { return }
                body(&task.pointee!)
            }
        } else if far[id] != nil {
            body(&far[id]!)
        }
    }

    mutating func reserveCapacity(_ n: Int) {
        guard kept == nil || n - count > Self.changeReach else { return }
        build()
        slots.reserveCapacity(n)
    }

    /// Makes room for `n` more tasks with the next ids at once, so that a big add grows the table once instead of
    /// by doubling (each doubling holds the old slots beside the new ones while it copies). Growth stays geometric:
    /// many small adds reserve no more often than appends would grow.
    mutating func reserve(adding n: Int) {
        guard n > 1, kept == nil || n > Self.changeReach else { return }
        build()
        let needed = slots.count + n
        guard far.isEmpty, slots.capacity < needed else { return }
        slots.reserveCapacity(Swift.max(needed, slots.capacity * 2))
    }

    /// Adds `task` under its id (replacing any task with that id). Ids handed out in order take the fast path:
    /// one append, no lookup.
    @inline(__always)
    mutating func insert(_ task: consuming DownloadTask) {
        let id = task.id
        if kept != nil {
            let copy = copy task
            if change(id, to: copy) { return }
        }
        build()
        if id == TaskID(slots.count) + 1 && far.isEmpty {
            slots.append(consume task)
            count += 1
        } else {
            self[id] = consume task
        }
    }

    /// Makes room for `n` tasks kept by ``insertFar(_:)``.
    mutating func reserveFar(_ n: Int) {
        guard kept == nil else { return }
        far.reserveCapacity(n)
    }

    /// Adds `task` under its id in the dictionary of ids past the dense range when it lies past that range: a few
    /// tasks spread over a long list (those a tail names, read from a snapshot for a count) take no slot for each
    /// id between them, nor a copy of the slots each time they grow.
    mutating func insertFar(_ task: consuming DownloadTask) {
        let id = task.id
        guard kept == nil, id > TaskID(slots.count), !far.keys.contains(id) else {
            insert(task)
            return
        }
        far[id] = consume task
        count += 1
    }

    /// Ids in increasing order.
    public var keys: [TaskID] {
        if let kept, changed.isEmpty { return (0..<kept.count).map(kept.id(at:)) }
        return map(\.key)
    }

    /// Tasks in id order.
    public var values: [DownloadTask] { map(\.value) }

    public func makeIterator() -> AnyIterator<(key: TaskID, value: DownloadTask)> {
        if let kept {
            // The snapshot's tasks and the changes since, merged in id order.
            var next = 0
            var changes = changed.sorted { $0.key < $1.key }.makeIterator()
            var change = changes.next()
            return AnyIterator {
                while true {
                    let keptID = next < kept.count ? kept.id(at: next) : nil
                    if let (id, task) = change, keptID == nil || id <= keptID! {
                        change = changes.next()
                        if id == keptID { next += 1 }
                        if let task { return (id, task) }
                        continue
                    }
                    guard let keptID else { return nil }
                    defer { next += 1 }
                    return (keptID, kept.task(at: next))
                }
            }
        }
        var dense = slots.makeIterator()
        var sparse = far.sorted { $0.key < $1.key }.makeIterator()
        return AnyIterator {
            while let next = dense.next() {
                if let t = next { return (t.id, t) }
            }
            return sparse.next().map { ($0.key, $0.value) }
        }
    }
}

/// What a count of a list reads from each task.
public struct TaskFigures: Sendable, Equatable {
    public var state: TaskState
    public var bytes: Int64
    public var size: Int64?
}

extension TaskTable: Equatable {
    /// Equal when they hold the same tasks, however the storage grew.
    public static func == (a: TaskTable, b: TaskTable) -> Bool {
        guard a.count == b.count else { return false }
        return a.elementsEqual(b) { $0.key == $1.key && $0.value == $1.value }
    }
}

extension TaskTable: ExpressibleByDictionaryLiteral {
    public init(dictionaryLiteral elements: (TaskID, DownloadTask)...) {
        self.init()
        for (id, task) in elements { self[id] = task }
    }
}
