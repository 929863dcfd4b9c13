/// The tasks of a list by id: a dense array for the ids the ledger hands out (1, 2, 3, …), with a dictionary
/// for any id far outside that range (only a foreign or damaged log has those). No hashing on the replay path
/// and no per-entry overhead beyond the task itself.
public struct TaskTable: Sendable, Sequence {
    private var slots: [DownloadTask?] = []
    private var far: [TaskID: DownloadTask] = [:]
    public private(set) var count = 0

    /// Ids up to this far past the dense range still extend it.
    private static let denseReach: TaskID = 4096

    public init() {}

    public var isEmpty: Bool { count == 0 }

    private func slot(_ id: TaskID) -> Int? {
        id >= 1 && id <= TaskID(slots.count) ? Int(id - 1) : nil
    }

    /// Whether a task has this id (no copy of the task).
    @inline(__always)
    public func contains(_ id: TaskID) -> Bool {
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
        if let i = slot(id) {
            return slots.withUnsafeBufferPointer { buffer in
                Self.present(buffer.baseAddress! + i) { $0.state }
            }
        }
        return far.isEmpty ? nil : far[id]?.state
    }

    /// What `body` reads from the task with this id, or nil when there is none; the task is lent, not copied (a
    /// count over a list of a million tasks retains no strings).
    @inline(__always)
    public func read<R>(_ id: TaskID, _ body: (borrowing DownloadTask) -> R) -> R? {
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
            if let i = slot(id) { return slots[i] }
            return far.isEmpty ? nil : far[id]
        }
        set {
            if let i = slot(id) {
                count += (newValue != nil ? 1 : 0) - (slots[i] != nil ? 1 : 0)
                slots[i] = newValue
            } else if id == TaskID(slots.count) + 1 && far.isEmpty {
                guard let newValue else { return }
                slots.append(newValue)
                count += 1
            } else if id >= 1 && id <= TaskID(slots.count) + Self.denseReach && far[id] == nil {
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

    mutating func reserveCapacity(_ n: Int) { slots.reserveCapacity(n) }

    /// Adds `task` under its id (replacing any task with that id). Ids handed out in order take the fast path:
    /// one append, no lookup.
    @inline(__always)
    mutating func insert(_ task: consuming DownloadTask) {
        let id = task.id
        if id == TaskID(slots.count) + 1 && far.isEmpty {
            slots.append(consume task)
            count += 1
        } else {
            self[id] = consume task
        }
    }

    /// Ids in increasing order.
    public var keys: [TaskID] { map(\.key) }

    /// Tasks in id order.
    public var values: [DownloadTask] { map(\.value) }

    public func makeIterator() -> AnyIterator<(key: TaskID, value: DownloadTask)> {
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
