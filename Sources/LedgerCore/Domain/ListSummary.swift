/// What `dledger stats` tells of a list, without its tasks: how many there are in each state, their bytes, the
/// sections, the to-delete list and the head.
///
/// A snapshot saves the summary of its list beside it, sealed on its own, so that `stats` reads a few dozen bytes
/// instead of decoding every task. The events after the snapshot are folded in with ``fold(_:)`` when they cannot
/// change a count (settings, renames, section moves); any other event needs the tasks, and the caller loads the
/// list instead.
public struct ListSummary: Sendable, Equatable {
    /// Tasks in the list's sections (the to-delete list not counted).
    public var tasks = 0
    /// How many of them are in each state, in `TaskState.allCases` order.
    public var byState = [Int](repeating: 0, count: TaskState.allCases.count)
    /// Bytes downloaded, over the tasks in the list.
    public var bytes: Int64 = 0
    /// The sizes known, over the same tasks.
    public var sizeKnown: Int64 = 0
    public var trash = 0
    public var sections = 0
    /// The last seq folded in, and its commit time (ms).
    public var head: Int64 = 0
    public var headTime: Int64 = 0

    private static let magic: [UInt8] = Array("DLSUM1".utf8)

    public init() {}

    /// Counts `list` in place (no copy of its tasks, and none built from a snapshot's records).
    /// - Complexity: O(tasks in the list).
    public init(_ list: DownloadList) {
        for section in list.sections {
            for id in section.tasks {
                guard let t = list.tasks.figures(of: id) else { continue }
                tasks += 1
                byState[TaskState.allCases.firstIndex(of: t.state)!] += 1
                bytes &+= t.bytes
                sizeKnown &+= t.size ?? 0
            }
        }
        trash = list.trash.count
        sections = list.sections.count
        head = list.head
        headTime = list.headTime
    }

    /// The tasks in `state`.
    public func count(_ state: TaskState) -> Int { byState[TaskState.allCases.firstIndex(of: state)!] }

    /// Counts a task with `figures` listed `times` more times in the sections (negative: fewer), as
    /// ``init(_:)`` counts each place a section lists it.
    public mutating func count(_ figures: TaskFigures, times: Int) {
        tasks += times
        byState[TaskState.allCases.firstIndex(of: figures.state)!] += times
        bytes &+= Int64(times) &* figures.bytes
        sizeKnown &+= Int64(times) &* (figures.size ?? 0)
    }

    /// How many times the sections of `list` list `id`, and the task's figures (nil when there is no such task):
    /// what the task adds to ``init(_:)``'s counts.
    /// - Complexity: O(sections' chunks) plus the chunks whose bounds hold `id` (``SectionTasks/firstIndex(of:)``).
    public static func place(of id: TaskID, in list: DownloadList) -> (times: Int, figures: TaskFigures)? {
        guard let figures = list.tasks.figures(of: id) else { return nil }
        return (list.sections.reduce(0) { $0 + $1.tasks.occurrences(of: id) }, figures)
    }

    /// Folds one logged entry in when it cannot change a count; false (and the summary unchanged) when it may,
    /// and the list must be folded instead.
    public mutating func fold(_ logged: LoggedEntry) -> Bool {
        switch logged.entry.event {
        case .sectionInserted:
            sections += 1
        case .taskRenamed, .settingChanged, .directoryChanged,
            .taskOptionsChanged, .sortChanged, .emptySectionsPolicyChanged, .trashPolicyChanged,
            .sectionRenamed,
            .sectionMoved, .sectionSorted, .transferConnections, .hookChanged, .hookFinished:
            break
        default:
            return false
        }
        head = logged.seq
        headTime = logged.time
        return true
    }

    /// The summary as bytes, for a snapshot.
    public func encoded() -> [UInt8] {
        var w = BinaryWriter()
        w.bytes.append(contentsOf: Self.magic)
        for n in [tasks, trash, sections] { w.int(n) }
        w.int(byState.count)
        for n in byState { w.int(n) }
        for n in [bytes, sizeKnown, head, headTime] { w.int(n) }
        return w.bytes
    }

    /// Reads bytes written by ``encoded()``.
    /// - Throws: `SnapshotError` for anything else (another version, cut short, counts out of range).
    public init(encoded data: UnsafeRawBufferPointer) throws {
        guard data.starts(with: Self.magic) else { throw SnapshotError() }
        var r = BinaryReader(bytes: data, offset: Self.magic.count)
        // Counts are bounded (2^48) so that adding them up cannot overflow, whatever the bytes say.
        func number() throws -> Int {
            let n = try r.int()
            guard n >= 0, n < 1 << 48 else { throw SnapshotError() }
            return Int(n)
        }
        do {
            tasks = try number()
            trash = try number()
            sections = try number()
            guard try number() == byState.count else { throw SnapshotError() }
            for n in byState.indices { byState[n] = try number() }
            bytes = try r.int()
            sizeKnown = try r.int()
            head = try r.int()
            headTime = try r.int()
        } catch {
            throw SnapshotError()
        }
        guard r.offset == data.count, byState.reduce(0, +) == tasks, head >= 0 else { throw SnapshotError() }
    }
}
