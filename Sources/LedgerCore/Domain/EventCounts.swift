/// How many logged events name each task id, for tasks in the list and tasks long gone: the length of each
/// task's audit trail, derived from the log itself.
///
/// A reader compares it with what the audit index returns (`Ledger.audit`): a shorter answer means rows were
/// removed from the index, and the trail is then read from the events instead. Ids the ledger hands out are
/// dense, so the counts are an array indexed by id (4 bytes a task), with a dictionary for stray ids.
public struct EventCounts: Sendable, Equatable {
    private var dense: [UInt32] = []
    private var far: [TaskID: UInt32] = [:]

    /// Ids up to this far past the dense range still extend it.
    private static let denseReach: TaskID = 4096

    public init() {}

    /// How many events named `id` (0 for an id never seen).
    public subscript(id: TaskID) -> Int {
        if id >= 1 && id <= TaskID(dense.count) { return Int(dense[Int(id - 1)]) }
        return Int(far[id] ?? 0)
    }

    /// Counts one more event naming `id`.
    @inline(__always)
    mutating func add(_ id: TaskID) {
        if id >= 1 && id <= TaskID(dense.count) {
            dense[Int(id - 1)] &+= 1
        } else if id >= 1 && id <= TaskID(dense.count) + Self.denseReach && far.isEmpty {
            dense.append(contentsOf: repeatElement(0, count: Int(id) - dense.count))
            dense[Int(id - 1)] = 1
        } else {
            far[id, default: 0] &+= 1
        }
    }

    /// Counts an event naming `ids` (a task named twice in one event counts once, as in the audit index).
    mutating func add(_ ids: [TaskID]) {
        if ids.count == 1 {
            add(ids[0])
        } else if zip(ids, ids.dropFirst()).allSatisfy({ $0 < $1 }) {
            // Increasing (an add's tasks): no id twice, and no set of a million ids to build.
            for id in ids { add(id) }
        } else {
            for id in Set(ids) { add(id) }
        }
    }

    func write(to w: inout BinaryWriter) {
        w.int(dense.count)
        for count in dense {
            w.int(Int64(count))
            w.flushIfFull()
        }
        w.int(far.count)
        for (id, count) in far.sorted(by: { $0.key < $1.key }) {
            w.int(id)
            w.int(Int64(count))
        }
    }

    init(reading r: inout BinaryReader) throws {
        let n = try r.count()
        dense.reserveCapacity(r.capacity(n, bytesEach: 1))
        for _ in 0..<n { dense.append(try Self.count(r.int())) }
        for _ in 0..<(try r.count()) {
            let id = try r.int()
            far[id] = try Self.count(r.int())
        }
    }

    private static func count(_ value: Int64) throws -> UInt32 {
        guard let count = UInt32(exactly: value) else { throw SnapshotError() }
        return count
    }
}
