import Synchronization

/// The tasks of a snapshot kept as the snapshot wrote them, each built only when it is read: opening a ledger to
/// look at it (`ls`, `export`) builds no task ahead, and a list of 100,000 holds 100,000 records of a few bytes
/// in place of 100,000 tasks and their strings.
///
/// Every record is checked when the snapshot is read, exactly as building its task would check it (an unreadable
/// one refuses the whole snapshot then), so that building one later cannot fail. Immutable: a ``TaskTable`` that
/// is changed builds all its tasks first. A task's URL is made whole when the task is built (see
/// ``url(at:)``). (Unchecked sendable: the fields that are not values are memory this object allocated, wrote once
/// in its initialiser and frees in its deinitialiser, and the last URL made whole, behind a mutex.)
final class SnapshotTasks: @unchecked Sendable {
    /// Where a task's record lies, and what is read without building it.
    struct Record {
        var id: TaskID
        /// Offset in `bytes` of the record's URL (the length it shares with the URL before, then the rest).
        var url: UInt32
        /// Offset in `bytes` of what follows the URL in the record.
        var rest: UInt32
        var flags: UInt16
        var state: UInt8
    }

    /// The snapshot's task records, copied out of the store's memory (read in place: no array to check per task).
    private let bytes: UnsafeRawBufferPointer
    /// The whole URL of every ``checkpointSpacing``-th record, one after another, and where each ends: a record
    /// holds only what its URL does not share with the one before, so a URL is made whole from the checkpoint
    /// before it (at most `checkpointSpacing - 1` records read), not kept whole for every task. Both empty for a
    /// snapshot with an index (``SnapshotBlocks``), whose blocks' first records hold their URLs whole.
    private let checkpointURLs: [UInt8]
    private let checkpointEnds: [UInt32]
    /// In id order.
    private let records: [Record]
    /// Position in `records` + 1 by id - 1 (0: no task), when ids are not simply 1, 2, 3, …
    private let positions: [Int32]?
    private let directories: [String]
    /// The last URL made whole, and its record's position: reading tasks one after another (a list printed in
    /// order) makes each URL from the one before, one record each.
    private let lastURL = Mutex<(position: Int, url: URLBuffer)>((-1, URLBuffer()))

    /// Records between two whole URLs kept (or, in a snapshot with an index, written whole: a block's first).
    static let checkpointSpacing = SnapshotBlocks.spacing

    /// Tasks have ids one after another from 1 with gaps of at most this: a ``TaskTable`` keeps them all in its
    /// dense range, in this order.
    static let reach: TaskID = 4096

    var count: Int { records.count }

    /// The slots `all()` fills.
    var denseSlots: Int { Int(records.last?.id ?? 0) }

    private init(
        bytes: UnsafeRawBufferPointer, checkpointURLs: [UInt8], checkpointEnds: [UInt32], records: [Record],
        positions: [Int32]?, directories: [String]
    ) {
        let copy = UnsafeMutableRawBufferPointer.allocate(byteCount: max(bytes.count, 1), alignment: 8)
        if let base = bytes.baseAddress { copy.baseAddress!.copyMemory(from: base, byteCount: bytes.count) }
        self.bytes = UnsafeRawBufferPointer(copy)
        self.checkpointURLs = checkpointURLs
        self.checkpointEnds = checkpointEnds
        self.records = records
        self.positions = positions
        self.directories = directories
    }

    /// Reads past `count` task records, checking each; nil (and `r` where it was) when their ids are not in
    /// increasing order within ``reach`` of each other, or the records are too large to index: the caller then
    /// builds every task.
    /// - Throws: for a record that building its task would refuse.
    /// With `blocks` (the snapshot's index), each record is also checked against it, and a block's first URL is
    /// read whole.
    static func read(
        _ r: inout BinaryReader, count: Int, directories: [String], blocks: SnapshotBlocks? = nil
    ) throws -> SnapshotTasks? {
        let start = r.offset
        guard r.bytes.count - start < Int(UInt32.max) else { return nil }
        var records: [Record] = []
        // A record is at least 10 bytes (ten numbers): a damaged count reserves no more than the bytes can hold.
        records.reserveCapacity(r.capacity(count, bytesEach: 10))
        var checkpointURLs: [UInt8] = []
        var checkpointEnds: [UInt32] = []
        if blocks == nil {
            checkpointEnds.reserveCapacity(r.capacity(count, bytesEach: 10) / checkpointSpacing + 1)
        }
        // The URL of the record read last, made whole in place: its length is what the next record's shared
        // length is checked against.
        var url = URLBuffer()
        defer { url.free() }
        var urlLength = 0
        var last: TaskID = 0
        var gaps = false
        for n in 0..<count {
            let recordOffset = r.offset - start
            let id = try r.int()
            guard id > last, id - last <= reach else {
                r.offset = start
                return nil
            }
            gaps = gaps || id != last + 1
            last = id
            let flags = TaskFlags(rawValue: UInt16(truncatingIfNeeded: try r.int()))
            let urlOffset = UInt32(r.offset - start)
            if let blocks {
                // A block's first record holds its URL whole: it is the checkpoint, in place; the others' URLs
                // need only their lengths checked.
                if n % SnapshotBlocks.spacing == 0 {
                    try blocks.check(record: n, offset: recordOffset, id: id)
                    urlLength = 0
                }
                try skipURL(&r, length: &urlLength)
            } else {
                try url.read(&r)
            }
            if blocks == nil, n % checkpointSpacing == 0 {
                checkpointURLs.append(contentsOf: url.bytes)
                guard checkpointURLs.count < Int(UInt32.max) else {
                    r.offset = start
                    return nil
                }
                checkpointEnds.append(UInt32(checkpointURLs.count))
            }
            let rest = UInt32(r.offset - start)
            let (state, _, _) = try skipRest(&r, flags: flags, directories: directories.count)
            records.append(
                Record(
                    id: id, url: urlOffset, rest: rest, flags: flags.rawValue,
                    state: UInt8(TaskState.allCases.firstIndex(of: state)!)))
        }
        // Ids too sparse for slots (a damaged snapshot): the caller's table keeps them in its dictionary.
        guard TaskTable.isDense(last, count: records.count) else {
            r.offset = start
            return nil
        }
        var positions: [Int32]?
        if gaps {
            var index = [Int32](repeating: 0, count: Int(last))
            for (i, record) in records.enumerated() { index[Int(record.id - 1)] = Int32(i + 1) }
            positions = index
        }
        return SnapshotTasks(
            bytes: UnsafeRawBufferPointer(rebasing: r.bytes[start..<r.offset]),
            checkpointURLs: checkpointURLs,
            checkpointEnds: checkpointEnds, records: records, positions: positions, directories: directories)
    }

    /// The whole URL of the record at `position`: from the last one made whole when it lies between that one and
    /// this, else from the checkpoint before it, each record after that applied in turn (checked when the
    /// snapshot was read: the shared lengths hold).
    func url(at position: Int) -> String {
        let checkpoint = position / Self.checkpointSpacing
        return lastURL.withLock { last in
            var from = last.position
            if from > position || from < checkpoint * Self.checkpointSpacing {
                if checkpointEnds.isEmpty {
                    // A snapshot with an index: the checkpoint is the block's first record, its URL whole.
                    from = checkpoint * Self.checkpointSpacing - 1
                    last.url.reset()
                } else {
                    from = checkpoint * Self.checkpointSpacing
                    let start = checkpoint == 0 ? 0 : Int(checkpointEnds[checkpoint - 1])
                    checkpointURLs.withUnsafeBytes {
                        last.url.replace(
                            from: 0,
                            with: UnsafeRawBufferPointer(
                                rebasing: $0[start..<Int(checkpointEnds[checkpoint])]))
                    }
                }
            }
            var j = from + 1
            while j <= position {
                var r = BinaryReader(bytes: bytes, offset: Int(records[j].url))
                guard (try? last.url.read(&r)) != nil else {
                    // Not reached: the record was read through once already, by the same rules.
                    last.position = j - 1
                    return last.url.string
                }
                j += 1
            }
            last.position = position
            return last.url.string
        }
    }

    /// The position of the task with this id, or nil.
    @inline(__always)
    func position(of id: TaskID) -> Int? {
        guard id >= 1 else { return nil }
        guard let positions else { return id <= TaskID(records.count) ? Int(id - 1) : nil }
        guard id <= TaskID(positions.count) else { return nil }
        let p = positions[Int(id - 1)]
        return p == 0 ? nil : Int(p - 1)
    }

    func id(at position: Int) -> TaskID { records[position].id }

    func state(at position: Int) -> TaskState { TaskState.allCases[Int(records[position].state)] }

    /// The state, bytes and size of the task at `position`, read from its record without building the task.
    func figures(at position: Int) -> TaskFigures {
        let record = records[position]
        var r = BinaryReader(bytes: bytes, offset: Int(record.rest))
        // Checked when the snapshot was read, by the same rules: the fallback is not reached.
        guard
            let read = try? Self.skipRest(
                &r, flags: TaskFlags(rawValue: record.flags), directories: directories.count)
        else { return TaskFigures(state: state(at: position), bytes: 0, size: nil) }
        return TaskFigures(state: read.state, bytes: read.bytes, size: read.size)
    }

    /// The task at `position`, built from its record (checked when the snapshot was read).
    func task(at position: Int) -> DownloadTask {
        let record = records[position]
        let url = self.url(at: position)
        let flags = TaskFlags(rawValue: record.flags)
        var r = BinaryReader(bytes: bytes, offset: Int(record.rest))
        do {
            return try Self.buildRest(&r, id: record.id, flags: flags, url: url, directories: directories)
        } catch {
            // Not reached: the record was read through once already, by the same rules.
            return DownloadTask.placeholder(
                id: record.id, state: TaskState.allCases[Int(record.state)], bytes: 0)
        }
    }

    deinit {
        bytes.deallocate()
        lastURL.withLock { $0.url.free() }
    }

    /// Every task, in id order, in a table's dense slots (a gap is a nil).
    func all() -> [DownloadTask?] {
        var slots: [DownloadTask?] = []
        slots.reserveCapacity(Int(records.last?.id ?? 0))
        for i in records.indices {
            let id = records[i].id
            if id > TaskID(slots.count) + 1 {
                slots.append(contentsOf: repeatElement(nil, count: Int(id) - 1 - slots.count))
            }
            slots.append(task(at: i))
        }
        return slots
    }

    /// Reads past a URL as ``URLBuffer/read(_:)`` reads it, refusing where it refuses, keeping only the whole URL's
    /// length (`length`: the record before's).
    @inline(__always)
    static func skipURL(_ r: inout BinaryReader, length: inout Int) throws {
        let shared = try r.count()
        guard shared <= length else { throw SnapshotError() }
        length = shared + (try r.raw()).count
    }

    /// The task whose record follows, its id, flags and URL read already.
    @inline(__always)
    static func buildRest(
        _ r: inout BinaryReader, id: TaskID, flags: TaskFlags, url: String, directories: [String]
    ) throws -> DownloadTask {
        let displayName = flags.contains(.displayNameIsFileName) ? nil : try r.string()
        let fileName = flags.contains(.fileName) ? try r.string() : nil
        guard let name = displayName ?? fileName else { throw SnapshotError() }
        guard !flags.contains(.leaseUntil) || flags.contains(.host) else { throw SnapshotError() }
        // Every field read straight into one initialiser: the task is built once, in place.
        return try DownloadTask(
            id: id, url: url, displayName: name,
            nameIsUserChosen: flags.contains(.nameIsUserChosen), fileName: fileName,
            directory: element(of: directories, at: r.int()),
            expectedSHA256: r.checksum(flags, bytes: .expectedSHA256, text: .expectedSHA256IsText)?.text,
            state: element(of: TaskState.allCases, at: r.int()), bytes: r.int(),
            size: flags.contains(.size) ? r.int() : nil,
            failure: flags.contains(.failure)
                ? TaskFailure(code: r.string(), detail: r.string(), retryable: r.bool()) : nil,
            attempts: Int(r.int()), added: r.int(), finished: flags.contains(.finished) ? r.int() : nil,
            validator: flags.contains(.validator) ? r.string() : nil,
            checksum: r.checksum(flags, bytes: .sha256, text: .sha256IsText), resets: Int(r.int()),
            connectionKept: flags.contains(.connectionKept),
            options: flags.contains(.options) ? r.options() : nil,
            host: flags.contains(.host) ? r.string() : nil,
            leaseUntil: flags.contains(.leaseUntil) ? r.int() : nil)
    }

    /// The rest of a record read past in the order `buildRest` reads it and refused where it refuses; kept: the
    /// task's state and bytes.
    static func skipRest(_ r: inout BinaryReader, flags: TaskFlags, directories: Int) throws -> (
        state: TaskState, bytes: Int64, size: Int64?
    ) {
        guard !flags.contains(.displayNameIsFileName) || flags.contains(.fileName) else {
            throw SnapshotError()
        }
        if !flags.contains(.displayNameIsFileName) { _ = try r.raw() }
        if flags.contains(.fileName) { _ = try r.raw() }
        guard (0..<Int64(directories)).contains(try r.int()) else { throw SnapshotError() }
        try r.skipChecksum(flags, bytes: .expectedSHA256, text: .expectedSHA256IsText)
        let state = try element(of: TaskState.allCases, at: r.int())
        let bytes = try r.int()
        let size = flags.contains(.size) ? try r.int() : nil
        if flags.contains(.failure) { _ = (try r.raw(), try r.raw(), try r.bool()) }
        _ = (try r.int(), try r.int())
        if flags.contains(.finished) { _ = try r.int() }
        if flags.contains(.validator) { _ = try r.raw() }
        try r.skipChecksum(flags, bytes: .sha256, text: .sha256IsText)
        _ = try r.int()
        if flags.contains(.options) { _ = try r.options() }
        // A lease without a host is not written.
        guard !flags.contains(.leaseUntil) || flags.contains(.host) else { throw SnapshotError() }
        if flags.contains(.host) { _ = try r.raw() }
        if flags.contains(.leaseUntil) { _ = try r.int() }
        return (state, bytes, size)
    }

    static func element<C: RandomAccessCollection>(of c: C, at i: Int64) throws -> C.Element
    where C.Index == Int {
        guard i >= 0, i < c.count else { throw SnapshotError() }
        return c[c.startIndex + Int(i)]
    }
}

/// A URL made whole from records that hold only what it does not share with the one before, in memory of its own
/// (no array operation per record): while a snapshot's records are read, and for the last URL a task was built with.
struct URLBuffer {
    private var base = UnsafeMutableRawBufferPointer.allocate(byteCount: 256, alignment: 1)
    private var length = 0

    var bytes: UnsafeRawBufferPointer { UnsafeRawBufferPointer(rebasing: base[0..<length]) }

    var string: String { String(decoding: bytes, as: UTF8.self) }

    /// Reads a record's URL: the first `shared` bytes of the one before (refused when that one is shorter), then
    /// the rest.
    @inline(__always)
    mutating func read(_ r: inout BinaryReader) throws {
        let shared = try r.count()
        guard shared <= length else { throw SnapshotError() }
        replace(from: shared, with: try r.raw())
    }

    /// Keeps the first `shared` bytes and puts `rest` after them.
    @inline(__always)
    mutating func replace(from shared: Int, with rest: UnsafeRawBufferPointer) {
        let needed = shared + rest.count
        if needed > base.count {
            let grown = UnsafeMutableRawBufferPointer.allocate(
                byteCount: Swift.max(needed, 2 * base.count), alignment: 1)
            grown.baseAddress!.copyMemory(from: base.baseAddress!, byteCount: shared)
            base.deallocate()
            base = grown
        }
        if let from = rest.baseAddress {
            (base.baseAddress! + shared).copyMemory(from: from, byteCount: rest.count)
        }
        length = needed
    }

    /// Forgets the URL: the next record's shares no prefix (the first of a block).
    @inline(__always)
    mutating func reset() { length = 0 }

    func free() { base.deallocate() }
}

/// Flags of a task in a snapshot: which optional fields follow, and how.
struct TaskFlags: OptionSet {
    let rawValue: UInt16
    static let nameIsUserChosen = TaskFlags(rawValue: 1 << 0)
    static let fileName = TaskFlags(rawValue: 1 << 1)
    /// The display name is the file name: written once.
    static let displayNameIsFileName = TaskFlags(rawValue: 1 << 2)
    static let expectedSHA256 = TaskFlags(rawValue: 1 << 3)
    static let sha256 = TaskFlags(rawValue: 1 << 4)
    /// A SHA-256 that is not 64 lowercase hex digits (a foreign log): kept as text.
    static let expectedSHA256IsText = TaskFlags(rawValue: 1 << 5)
    static let sha256IsText = TaskFlags(rawValue: 1 << 6)
    static let size = TaskFlags(rawValue: 1 << 7)
    static let finished = TaskFlags(rawValue: 1 << 8)
    static let failure = TaskFlags(rawValue: 1 << 9)
    static let validator = TaskFlags(rawValue: 1 << 10)
    static let connectionKept = TaskFlags(rawValue: 1 << 11)
    static let options = TaskFlags(rawValue: 1 << 12)
    /// The host that holds or last held the task (a shared ledger's), then its lease when it has one.
    static let host = TaskFlags(rawValue: 1 << 13)
    static let leaseUntil = TaskFlags(rawValue: 1 << 14)
}

extension BinaryReader {
    /// A SHA-256 as the task's flags say it was written: 32 bytes (`bytes` flag), text (`text` flag), or none.
    fileprivate mutating func checksum(_ flags: TaskFlags, bytes: TaskFlags, text: TaskFlags) throws
        -> Checksum?
    {
        if flags.contains(bytes) { return Checksum(bytes: try fixed(32)) }
        return flags.contains(text) ? .text(try string()) : nil
    }

    /// Reads past what ``checksum(_:bytes:text:)`` reads, refusing where it refuses.
    fileprivate mutating func skipChecksum(_ flags: TaskFlags, bytes: TaskFlags, text: TaskFlags) throws {
        if flags.contains(bytes) {
            _ = try fixed(32)
        } else if flags.contains(text) {
            _ = try raw()
        }
    }
}
