import FuzzSupport
import Testing

@testable import LedgerCore

/// A snapshot read without making every task's URL whole (issue 24 §1): each URL is made whole from the checkpoint
/// before it when its task is read. The list read so must be the list replayed from the first event, whatever order
/// its tasks are read in and whatever tail is folded onto it.
struct SnapshotLazyReadTests {
    /// URLs that share long prefixes, none, all of the one before, and non-ASCII ones, over several checkpoints.
    static func urls(_ count: Int) -> [String] {
        (1...count).map { n in
            switch n % 7 {
            case 0: "https://mirror.example.org/pub/all/file-\(n).iso"
            case 1: "http://other.example.net/\(n)"
            case 2:
                "https://mirror.example.org/pub/all/file-\(n).iso?part=\(String(repeating: "é", count: n % 5))"
            case 3: "https://x.example/\(n)/" + String(repeating: "a", count: n % 40)
            case 4: "https://mirror.example.org/pub/all/file-\(n)"
            case 5: "https://mirror.example.org/pub/all/file-\(n)/🎬"
            default: "https://mirror.example.org/\(n)"
            }
        }
    }

    static func bigLog(_ count: Int) -> TestLog {
        var log = TestLog()
        log.run(.add(urls: urls(count), placement: .end, name: nil, sha256: nil, directory: nil))
        log.add(u("later-1.iso"), u("later-2.iso"), to: .newSection(title: "Later", at: nil))
        return log
    }

    @Test func everyURLIsTheOneWrittenInAnyOrderOfReading() throws {
        let count = 5 * SnapshotTasks.checkpointSpacing + 7
        let log = Self.bigLog(count)
        let read = try DownloadList(snapshot: log.list.snapshotBytes())
        #expect(!read.tasks.isBuilt)
        let ids = Array(log.list.tasks.keys)
        #expect(ids.count == count + 2)
        // Forwards (each from the one before), backwards (each from its checkpoint), and jumping about.
        var orders = [ids, ids.reversed()]
        var rng = SplitMix64(seed: 24)
        orders.append((0..<400).map { _ in ids[Int(rng.next() % UInt64(ids.count))] })
        for order in orders {
            for id in order {
                #expect(read.tasks[id]?.url == log.list.tasks[id]?.url, "#\(id)")
                #expect(read.tasks.read(id, { $0.url }) == log.list.tasks[id]?.url, "#\(id)")
            }
        }
        expectEqual(read, log.list, "read lazily")
        #expect(read.snapshotBytes() == log.list.snapshotBytes())
    }

    /// Moves, renames, pauses, transfer facts and a delete folded onto a list read lazily: the same list as the
    /// replay, the same section views, and the same list as a read that builds every task.
    @Test func aTailOfMovesRenamesAndPausesGivesTheSameList() throws {
        let count = 3000
        var log = Self.bigLog(count)
        let snapshot = log.list.snapshotBytes()
        let from = log.entries.count
        for n in 0..<600 {
            // Logged as the bench's tail is (events, not commands): a pause of a paused task is folded too.
            let id = TaskID(1 + (n * 7919) % 300 * 10)
            let event: Event
            switch n % 6 {
            case 0: event = .tasksMoved(ids: [id], section: n % 2, index: n % 5)
            case 1: event = .tasksPaused(ids: [id])
            case 2: event = .tasksResumed(ids: [id])
            case 3: event = .taskRenamed(id: id, name: "renamed-\(n).iso", fileName: nil)
            case 4: event = .transferStarted(id: id, attempt: 1, offset: 0)
            default: event = .transferPaused(id: id, bytes: Int64(n))
            }
            log.append(Entry(event))
        }
        log.run(.delete(.tasks([11]), mode: .record))
        var read = try DownloadList(snapshot: snapshot)
        for logged in log.entries[from...] { read.apply(logged, keepingUndo: true) }
        #expect(!read.tasks.isBuilt)
        expectEqual(read, log.list, "after the tail")
        #expect(read.snapshotBytes() == log.list.snapshotBytes())
        #expect(ListSummary(read) == ListSummary(log.list))
        // The list with every task built (a change to every task builds them all) says the same.
        var built = try DownloadList(snapshot: snapshot)
        for logged in log.entries[from...] { built.apply(logged, keepingUndo: true) }
        built.tasks.reserveCapacity(built.tasks.count + TaskTable.changeReach + 1)
        #expect(built.tasks.isBuilt)
        expectEqual(built, read, "built against lazily read")
        for section in 0...2 {
            for filter in [TaskFilter.all, .unfinished] {
                let whole = log.list.viewGroups(sort: .manual, filter: filter, now: log.now)
                    .filter { $0.index == section }
                #expect(
                    read.viewGroups(sort: .manual, filter: filter, now: log.now, section: section) == whole,
                    "section \(section), \(filter)")
            }
        }
    }

    /// The seal is what shows an edit that keeps a record readable: a URL changed within its record, same length,
    /// reads as changed (the store refuses such a snapshot by its seal before any record is read). A cut anywhere
    /// still refuses the whole snapshot when it is read, as before, not when a task is read later.
    @Test func anEditThatKeepsTheRecordsReadableIsLeftToTheSealACutIsRefused() throws {
        let log = Self.bigLog(100)
        var bytes = log.list.snapshotBytes()
        // Read for a count, the undo history (an add's step names every task) is read past, not kept, and refused
        // where reading it refuses.
        let counted = try bytes.withUnsafeBytes {
            try DownloadList(snapshot: $0, keepingOnly: DownloadList.noTask)
        }
        #expect(!log.list.undoStack.isEmpty && counted.undoStack.isEmpty && counted.redoStack.isEmpty)
        #expect(counted.sections == log.list.sections && ListSummary(counted) == ListSummary(log.list))
        for n in stride(from: 0, to: bytes.count, by: 13) {
            #expect(throws: SnapshotError.self, "cut at \(n)") {
                try Array(bytes[..<n]).withUnsafeBytes {
                    try DownloadList(snapshot: $0, keepingOnly: DownloadList.noTask)
                }
            }
            #expect(throws: SnapshotError.self, "cut at \(n)") {
                try DownloadList(snapshot: Array(bytes[..<n]))
            }
        }
        let target = Array("file-70.iso".utf8)
        let at = try #require(
            (0..<(bytes.count - target.count)).first { bytes[$0..<($0 + target.count)].elementsEqual(target) }
        )
        bytes[at + 5] = UInt8(ascii: "9")
        let edited = try DownloadList(snapshot: bytes)
        #expect(edited.tasks[70]?.url == "https://mirror.example.org/pub/all/file-90.iso")
        #expect(edited.tasks[71]?.url == log.list.tasks[71]?.url)
    }
}
