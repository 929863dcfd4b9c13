import Testing

@testable import LedgerCore

/// A list read from a snapshot keeps the tasks a tail changed beside the snapshot's records, with a filter of one
/// bit per id modulo 4,096 in front of them: ids that share a bit, changed or not, read as the replay does.
struct TaskTableChangesTests {
    @Test func changesBesideASnapshotAreFoundWhateverIdsShareTheirBit() throws {
        var log = SnapshotLazyReadTests.bigLog(9_000)
        let snapshot = log.list.snapshotBytes()
        let from = log.entries.count
        // 3, 4099 and 8195 share a bit; 4100 does not. 3 changes, 4099 goes, 8195 is left as it was.
        log.append(Entry(.transferPaused(id: 3, bytes: 30)))
        log.append(Entry(.tasksRemoved(ids: [4099], removingSections: [])))
        var read = try DownloadList(snapshot: snapshot)
        for logged in log.entries[from...] { read.apply(logged, keepingUndo: true) }
        #expect(!read.tasks.isBuilt && read.tasks.changedCount == 2)
        for id: TaskID in [3, 4099, 8195, 4100, 1, 9_002] {
            #expect(read.tasks[id] == log.list.tasks[id], "#\(id)")
            #expect(read.tasks.contains(id) == log.list.tasks.contains(id), "#\(id)")
            #expect(read.tasks.state(of: id) == log.list.tasks.state(of: id), "#\(id)")
            #expect(read.tasks.figures(of: id) == log.list.tasks.figures(of: id), "#\(id)")
        }
        #expect(read.tasks[3]?.bytes == 30 && read.tasks[4099] == nil && read.tasks[8195] != nil)
        expectEqual(read, log.list, "read from the snapshot, then the tail")
    }
}
