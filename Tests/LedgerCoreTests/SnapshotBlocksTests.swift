import FuzzSupport
import Testing

@testable import LedgerCore

/// A snapshot's index of its task records (`DLS18`, ``SnapshotBlocks``): a read for a few tasks' sake (`stats`,
/// `audit`, `log` over a tail) reads only the blocks that hold them, and gives what a read through every record
/// gives; a snapshot of the format before (`DLS17`, no index) still reads the same.
struct SnapshotBlocksTests {
    /// A list of `count` tasks with varied URLs (shared prefixes across block starts), some renamed, some moved,
    /// some deleted (ids with gaps), with transfer facts.
    static func log(_ count: Int) -> TestLog {
        var log = SnapshotLazyReadTests.bigLog(count)
        var rng = SplitMix64(seed: 18)
        for _ in 0..<40 {
            let id = TaskID(1 + rng.below(count))
            log.append(Entry(.taskRenamed(id: id, name: "renamed-\(id).iso", fileName: nil)))
            log.append(Entry(.transferPaused(id: id, bytes: Int64(id) * 10)))
        }
        // Gaps in the ids (forgotten), among them a block's first, and a few in the to-delete list.
        log.append(Entry(.tasksRemoved(ids: [5, 6, 7, 40, 41, 64, 65, 96], removingSections: [])))
        log.append(Entry(.tasksDeleted(ids: [10, 11], modes: [.record])))
        return log
    }

    @Test func aReadOfAFewTasksGivesWhatAReadOfEveryRecordGives() throws {
        let log = Self.log(1_000)
        let list = log.list
        let bytes = list.snapshotBytes()
        #expect(
            bytes.starts(with: Array("DLS18".utf8))
                && SnapshotFuzzTests.trailer(of: bytes).length == bytes.count)
        let ids = list.tasks.keys
        var rng = SplitMix64(seed: 0xB10C)
        for round in 0..<60 {
            // A few ids here and there, runs across a block's end, ids the list does not have (deleted, past the
            // last, zero).
            var kept = Set((0..<rng.below(12)).map { _ in rng.pick(ids) })
            let start = rng.below(ids.count)
            kept.formUnion(ids[start..<min(ids.count, start + rng.below(70))])
            kept.formUnion([0, 5, 40, list.nextID, list.nextID + 100])
            let whole = Set((0..<rng.below(4)).map { _ in rng.pick(ids) })
            let only = round % 3 == 0 ? rng.pick(ids) : DownloadList.noTask
            let few = try bytes.withUnsafeBytes {
                try DownloadList(snapshot: $0, keepingOnly: only, statesOf: kept, keepingWhole: whole)
            }
            let expected = kept.union(whole).union(only == DownloadList.noTask ? [] : [only]).intersection(
                ids)
            #expect(Set(few.tasks.keys) == expected, "round \(round)")
            for id in expected {
                let read = try #require(few.tasks[id])
                let task = try #require(list.tasks[id])
                if whole.contains(id) || id == only {
                    #expect(read == task, "#\(id)")
                } else {
                    #expect(read.state == task.state && read.bytes == task.bytes && read.size == task.size)
                }
            }
            #expect(few.sections == list.sections && few.trash == list.trash)
            #expect(few.eventCounts == list.eventCounts && few.head == list.head && few.nextID == list.nextID)
        }
    }

    /// A record the read does not need is not read: damaged, it is left to the snapshot's seal (which the store
    /// checks over every byte first), while a read through every record refuses it. Damaged where a wanted task
    /// lies, the read of a few tasks refuses it too.
    @Test func onlyTheBlocksOfTheTasksAskedForAreRead() throws {
        let log = Self.log(300)
        var bytes = log.list.snapshotBytes()
        // A task near the end, named after its file: its record's file name given a length past the snapshot.
        let named = (250..<300).map(TaskID.init).filter { id in
            log.list.tasks[id]?.displayName == "file-\(id).iso"
        }
        let damaged = try #require(named.first)
        let name = Array("file-\(damaged).iso".utf8)
        // The name comes after the URL's rest (which may end with the same text): its last occurrence.
        let at = try #require(bytes.indices.last { bytes[$0...].starts(with: name) })
        #expect(bytes[at - 1] == UInt8(2 * name.count))
        bytes[at - 1] = 0x7E
        #expect(throws: SnapshotError.self) { try DownloadList(snapshot: bytes) }
        #expect(throws: SnapshotError.self) {
            try bytes.withUnsafeBytes { try DownloadList(snapshot: $0, keepingOnly: 3) }
        }
        let far = try bytes.withUnsafeBytes {
            try DownloadList(snapshot: $0, keepingOnly: 3, statesOf: [10, 100, 150])
        }
        #expect(far.tasks[3] == log.list.tasks[3] && far.tasks[150]?.state == log.list.tasks[150]?.state)
        #expect(throws: SnapshotError.self) {
            try bytes.withUnsafeBytes {
                try DownloadList(snapshot: $0, keepingOnly: 3, statesOf: [10, damaged])
            }
        }
    }

    /// A snapshot written before the index (`DLS17`: the same bytes up to the index, no index, no trailer) reads
    /// as the same list every way, and so does one whose index is absent (ids out of order).
    @Test func aSnapshotOfTheFormatBeforeReadsTheSame() throws {
        let log = Self.log(500)
        let list = log.list
        let bytes = list.snapshotBytes()
        var older = Array(bytes[..<SnapshotFuzzTests.trailer(of: bytes).index])
        older.replaceSubrange(0..<5, with: Array("DLS17".utf8))
        let read = try DownloadList(snapshot: older)
        expectEqual(read, list, "read from DLS17")
        #expect(read.snapshotBytes() == bytes)
        let one = try older.withUnsafeBytes {
            try DownloadList(snapshot: $0, keepingOnly: 77, statesOf: [3, 90, 91])
        }
        #expect(one.tasks[77] == list.tasks[77] && one.tasks[91]?.bytes == list.tasks[91]?.bytes)
        #expect(Set(one.tasks.keys) == [3, 77, 90, 91])
        // The older format carries no index: what follows the event counts is refused there.
        #expect(throws: SnapshotError.self) { try DownloadList(snapshot: older + [0]) }
        // An index of the wrong length, or one that disagrees with the records, is refused by a full read.
        var moved = bytes
        let indexAt = SnapshotFuzzTests.trailer(of: bytes).index
        #expect(moved[indexAt] == UInt8(2 * ((list.tasks.count + 31) / 32)))
        moved[indexAt + 4] ^= 0x02
        #expect(throws: SnapshotError.self) { try DownloadList(snapshot: moved) }
        #expect(throws: SnapshotError.self) {
            try moved.withUnsafeBytes { try DownloadList(snapshot: $0, keepingOnly: DownloadList.noTask) }
        }
    }

    /// The index reads whatever the bytes: a count, id or offset that does not fit is refused, never a trap.
    @Test func anIndexThatDoesNotFitIsRefused() throws {
        let list = Self.log(100).list
        let bytes = list.snapshotBytes()
        let index = SnapshotFuzzTests.trailer(of: bytes).index
        for n in index..<(bytes.count - DownloadList.trailerLength) {
            for value: UInt8 in [0, 1, 0x7F, 0x80, 0xFF] where bytes[n] != value {
                var damaged = bytes
                damaged[n] = value
                if let read = try? DownloadList(snapshot: damaged) {
                    // Only another encoding of the same numbers could read: none here, each is one byte.
                    Issue.record("index byte \(n - index) as \(value) read: \(read.tasks.count) tasks")
                }
                _ = try? damaged.withUnsafeBytes {
                    try DownloadList(snapshot: $0, keepingOnly: 9, statesOf: [1, 50, 99])
                }
            }
        }
    }
}
