/// Where every ``spacing``-th task record of a snapshot begins, and its id (`DLS18` on): a read for a few tasks'
/// sake (`stats`, `audit` and `log` over a tail of events that name a few hundred tasks) finds their records
/// without reading the others. The first record of a block holds its whole URL (it shares no prefix with the one
/// before), so that a block reads on its own.
///
/// Written after the event counts: the number of blocks, then for each the distance of its first id from the
/// block before's first id and of its offset (from the first record) from the block before's offset. No blocks
/// when the records' ids do not increase (a list whose ids came back out of order): such a snapshot is read
/// through, as an older one is.
struct SnapshotBlocks {
    static let spacing = 32

    private(set) var firstIDs: [TaskID] = []
    /// From the first record.
    private(set) var offsets: [Int] = []

    var count: Int { offsets.count }

    /// An index to write, built record by record (``add(id:offset:)``).
    init() {}

    private init(firstIDs: [TaskID], offsets: [Int]) {
        self.firstIDs = firstIDs
        self.offsets = offsets
    }

    /// Notes the first record of a block: its id and offset.
    mutating func add(id: TaskID, offset: Int) {
        firstIDs.append(id)
        offsets.append(offset)
    }

    /// Writes the index, or none when the records' ids did not increase (`increasing`).
    func write(to w: inout BinaryWriter, increasing: Bool) {
        guard increasing else {
            w.int(0)
            return
        }
        w.int(count)
        var id: TaskID = 0
        var offset = 0
        for (first, at) in zip(firstIDs, offsets) {
            w.int(first - id)
            w.int(at - offset)
            (id, offset) = (first, at)
        }
    }

    /// Reads the index of `taskCount` records that take `recordBytes` bytes, nil when the snapshot has none.
    /// - Throws: for an index of another length, an id or offset that does not increase, an offset past the
    ///   records.
    static func read(_ r: inout BinaryReader, taskCount: Int, recordBytes: Int) throws -> SnapshotBlocks? {
        let n = try r.count()
        guard n > 0 else { return nil }
        guard n == (taskCount + spacing - 1) / spacing, n == r.capacity(n, bytesEach: 2) else {
            throw SnapshotError()
        }
        var firstIDs: [TaskID] = []
        var offsets: [Int] = []
        firstIDs.reserveCapacity(n)
        offsets.reserveCapacity(n)
        var id: TaskID = 0
        var offset = 0
        for b in 0..<n {
            let idStep = try r.int()
            let offsetStep = try r.int()
            // The first block begins at the first record; each after it past the one before, within the records.
            guard idStep >= 1, idStep <= TaskID.max - id,
                b == 0 ? offsetStep == 0 : offsetStep >= 1, offsetStep < Int64(recordBytes - offset)
            else { throw SnapshotError() }
            id += idStep
            offset += Int(offsetStep)
            firstIDs.append(id)
            offsets.append(offset)
        }
        return SnapshotBlocks(firstIDs: firstIDs, offsets: offsets)
    }

    /// The block whose records would hold `id`: the last whose first id is not above it (nil: below all of them).
    func block(holding id: TaskID) -> Int? {
        var low = 0
        var high = firstIDs.count
        while low < high {
            let middle = (low + high) / 2
            if firstIDs[middle] <= id { low = middle + 1 } else { high = middle }
        }
        return low == 0 ? nil : low - 1
    }

    /// How many records block `b` holds, of `taskCount`.
    func records(in b: Int, of taskCount: Int) -> Int { min(Self.spacing, taskCount - b * Self.spacing) }

    /// Checks record `n` of a read through every record, at `offset` (from the first) with `id`, against the index:
    /// a snapshot a full read takes is read the same for a few tasks.
    @inline(__always)
    func check(record n: Int, offset: Int, id: TaskID) throws {
        guard n % Self.spacing == 0 else { return }
        guard offsets[n / Self.spacing] == offset, firstIDs[n / Self.spacing] == id else {
            throw SnapshotError()
        }
    }
}
