import FuzzSupport
import Testing

@testable import LedgerCore

/// The snapshot decoder (`DownloadList(snapshot:)`, its lazy task records, the one-task reads `audit` uses) and
/// `ListSummary(encoded:)` fed damaged snapshots: each either throws `SnapshotError` or gives a list that every
/// reader agrees on and that reads back equal from its own encoding. Never a trap, a read outside the bytes
/// (each decode reads memory of exactly the bytes' size: see docs/decoders.md for the AddressSanitizer run), or a
/// hang.
@Suite struct SnapshotFuzzTests {
    /// Decodes `bytes` (`original` damaged) every way a caller can and checks the readers agree.
    static func check(_ bytes: [UInt8], only: TaskID, original: [UInt8]) {
        let list: DownloadList
        do {
            list = try Mutator.exact(bytes) { try DownloadList(snapshot: $0) }
        } catch {
            #expect(error is SnapshotError, "\(error)")
            // Whatever reads it for one task's sake through every record refuses it too.
            #expect(throws: SnapshotError.self) {
                try Mutator.exact(bytes) { try DownloadList(snapshot: $0, keepingOnly: only) }
            }
            // A read of a few tasks by the index reads every byte but the records and the index as a full read
            // does (the fields before the records, the sections, the to-delete list, the history, the counts, the
            // trailer), and checks only the records it reads: damage confined to the sections, the history, the
            // counts or the trailer (as the original's trailer places them) is refused by both. Damage to the records
            // or the index, or to the fields before the records that they are checked against, may be left to the
            // seal.
            let t = trailer(of: original)
            let readAlike =
                bytes.count != original.count
                || bytes.indices.allSatisfy {
                    bytes[$0] == original[$0] || (t.recordsEnd..<t.index).contains($0)
                        || $0 >= original.count - DownloadList.trailerLength
                }
            do {
                _ = try Mutator.exact(bytes) {
                    try DownloadList(snapshot: $0, keepingOnly: only, statesOf: [])
                }
                #expect(!readAlike, "damage a read of a few tasks reads as a full read does is not refused")
            } catch {
                #expect(error is SnapshotError, "\(error)")
            }
            return
        }
        // Which undo steps undo refuses (their saved events decoded first, as undo would decode them).
        let readable = (list.undoStack.map(\.isReadable), list.redoStack.map(\.isReadable))
        // Building every task (the lazy records) and writing the list out, then reading that back: equal.
        let encoded = list.snapshotBytes()
        do {
            let again = try DownloadList(snapshot: encoded)
            #expect(again == list, "a decoded snapshot does not read back equal")
            // Undo refuses the same steps (a step whose saved event does not decode stays refused).
            #expect(again.undoStack.map(\.isReadable) == readable.0)
            #expect(again.redoStack.map(\.isReadable) == readable.1)
            // Once compared (every undo step's saved events decoded), both write the same bytes.
            #expect(again.snapshotBytes() == list.snapshotBytes())
        } catch {
            Issue.record("a decoded snapshot's own encoding does not read: \(error)")
        }
        // Read for one task's sake: that task exactly as the whole read built it (a lazy record that could not be
        // built would show here as a placeholder), and the places and counts the same.
        do {
            let light = try Mutator.exact(bytes) { try DownloadList(snapshot: $0, keepingOnly: only) }
            #expect(light.tasks[only] == list.tasks[only], "#\(only)")
            #expect(light.tasks.count == list.tasks.count)
            #expect(light.sections == list.sections && light.trash == list.trash)
            #expect(light.eventCounts == list.eventCounts)
            let alone = try Mutator.exact(bytes) {
                try DownloadList(snapshot: $0, keepingOnly: only, statesOf: [])
            }
            #expect(alone.tasks[only] == list.tasks[only], "#\(only)")
            // By the index: some tasks as their figures, some whole, any other not there.
            let ids = list.tasks.keys
            let kept = Set(ids.enumerated().filter { $0.offset % 3 == 0 }.map(\.element) + [list.nextID + 1])
            let whole = Set(ids.enumerated().filter { $0.offset % 5 == 1 }.map(\.element))
            let few = try Mutator.exact(bytes) {
                try DownloadList(
                    snapshot: $0, keepingOnly: DownloadList.noTask, statesOf: kept, keepingWhole: whole)
            }
            #expect(
                few.sections == list.sections && few.trash == list.trash
                    && few.eventCounts == list.eventCounts)
            #expect(Set(few.tasks.keys) == kept.union(whole).intersection(ids))
            for id in few.tasks.keys {
                guard let read = few.tasks[id], let task = list.tasks[id] else { continue }
                if whole.contains(id) {
                    #expect(read == task, "#\(id)")
                } else {
                    #expect(
                        read.state == task.state && read.bytes == task.bytes && read.size == task.size,
                        "#\(id)")
                }
            }
        } catch {
            Issue.record("a snapshot that reads whole does not read for #\(only): \(error)")
        }
    }

    /// A snapshot's trailer (four numbers of 8 bytes, least significant first).
    static func trailer(of bytes: [UInt8]) -> (index: Int, recordsStart: Int, recordsEnd: Int, length: Int) {
        func number(_ n: Int) -> Int {
            let at = bytes.count - DownloadList.trailerLength + 8 * n
            return bytes[at..<(at + 8)].reversed().reduce(0) { $0 << 8 | Int($1) }
        }
        return (number(0), number(1), number(2), number(3))
    }

    /// A task id of the list the snapshot came from, or one it does not have.
    static func someID(_ rng: inout SplitMix64, _ n: Int) -> TaskID {
        let list = FuzzCorpus.lists[n]
        let ids = list.tasks.map(\.0)
        return rng.chance(0.8) && !ids.isEmpty ? rng.pick(ids) : TaskID(rng.below(Int(list.nextID) + 2))
    }

    @Test(.timeLimit(.minutes(5))) func damagedSnapshotsThrowOrReadBackEqual() {
        let corpus = FuzzCorpus.snapshots
        var m = Mutator(seed: 0x5EED_5A45)
        for i in 0..<Mutator.iterations(2_000) {
            let n = i % corpus.count
            Self.check(m.mutate(corpus[n]), only: Self.someID(&m.rng, n), original: corpus[n])
        }
    }

    /// Found by the fuzz test: an undo step whose saved inverse does not decode was written to the next snapshot
    /// as the empty stand-in event, which reads: undo then did nothing instead of refusing the step.
    @Test func anUndoStepThatDoesNotDecodeStaysRefusedThroughTheNextSnapshot() throws {
        var log = TestLog()
        _ = try log.must(.insertSection(title: "Later", at: nil))
        var bytes = log.list.snapshotBytes()
        // The inverse's payload (`{"index":…}`), its first key damaged.
        let key = Array(#"{"index""#.utf8)
        let at = try #require(bytes.indices.first { bytes[$0...].starts(with: key) })
        bytes[at + 2] = UInt8(ascii: "X")
        let damaged = try DownloadList(snapshot: bytes)
        #expect(damaged.undoStack.last?.isReadable == false)
        let again = try DownloadList(snapshot: damaged.snapshotBytes())
        #expect(again.undoStack.last?.isReadable == false)
        #expect(throws: LedgerError.self) { try again.decide(.undo) }
    }

    /// Found while fuzzing: ids 4,096 apart (a damaged add, or snapshot) gave a slot to every id in between, in
    /// the task table and in a snapshot's position index: memory thousands of times the bytes' size. Sparse ids
    /// now go to the table's dictionary, in id order all the same.
    @Test func idsFarApartCostNoSlotForEveryIdBetween() throws {
        var log = TestLog()
        let tasks = (1...500).map { n in
            NewTask(id: TaskID(n) * 4096, url: "https://h.example/\(n)", directory: "/d")
        }
        log.append(Entry(.tasksAdded(tasks: tasks, section: 0, index: 0, newSectionTitle: "A")))
        #expect(log.list.tasks.count == 500)
        #expect(log.list.tasks.denseSlots <= 8 * 500 + 4096)
        #expect(log.list.tasks.keys == tasks.map(\.id))
        let read = try DownloadList(snapshot: log.list.snapshotBytes())
        #expect(read == log.list)
        #expect(read.tasks.denseSlots <= 8 * 500 + 4096)
        #expect(read.tasks.keys == tasks.map(\.id))
        let light = try log.list.snapshotBytes().withUnsafeBytes {
            try DownloadList(snapshot: $0, keepingOnly: 4096 * 7)
        }
        #expect(light.tasks.denseSlots <= 8 * 500 + 4096 && light.tasks.count == 500)
    }

    @Test(.timeLimit(.minutes(5))) func aSnapshotCutShortAtAnyLengthIsRefused() {
        var rng = SplitMix64(seed: 0xC07)
        // The smallest whole (every length), the others at some lengths.
        let corpus = FuzzCorpus.snapshots.enumerated().sorted { $0.element.count < $1.element.count }
        for (k, (n, bytes)) in corpus.enumerated() {
            let lengths = k == 0 ? Array(0..<bytes.count) : (0..<40).map { _ in rng.below(bytes.count) }
            for length in lengths {
                #expect(throws: SnapshotError.self) {
                    try Mutator.exact(Array(bytes[..<length])) { try DownloadList(snapshot: $0) }
                }
                #expect(throws: SnapshotError.self) {
                    try Mutator.exact(Array(bytes[..<length])) {
                        try DownloadList(snapshot: $0, keepingOnly: Self.someID(&rng, n))
                    }
                }
            }
        }
    }

    @Test(.timeLimit(.minutes(5))) func damagedSummariesThrowOrReadBackEqual() {
        let corpus = FuzzCorpus.lists.map { ListSummary($0).encoded() }
        var m = Mutator(seed: 0x5EED_5E11)
        for i in 0..<Mutator.iterations(2_000) {
            let bytes = m.mutate(corpus[i % corpus.count])
            do {
                let summary = try Mutator.exact(bytes) { try ListSummary(encoded: $0) }
                let again = try summary.encoded().withUnsafeBytes { try ListSummary(encoded: $0) }
                #expect(again == summary)
            } catch {
                #expect(error is SnapshotError, "\(error)")
            }
        }
    }
}
