import Foundation
import TestSupport
import Testing

@testable import LedgerStore

/// A ledger is in WAL while a writer has it open and in rollback-journal mode once the last writer leaves it
/// quiet (issue 24 §3): its header then names no `-wal`, so any copy opens read-only anywhere.
struct SQLiteJournalModeTests {
    let directory: TemporaryDirectory
    var path: String { directory.file("ledger.sqlite") }

    init() throws { directory = try TemporaryDirectory() }

    /// Header bytes 18 and 19 (the file format's write and read versions): 1 for a rollback journal, 2 for WAL.
    func headerVersions() throws -> [UInt8] {
        let bytes = try Data(contentsOf: URL(fileURLWithPath: path))
        return [bytes[18], bytes[19]]
    }

    func exists(_ suffix: String) -> Bool { FileManager.default.fileExists(atPath: path + suffix) }

    @Test func theLastWriterLeavesTheFileQuietAndTheNextSwitchesItBackToWAL() throws {
        do {
            let store = try SQLiteEventStore(path: path)
            #expect(try store.journalMode() == "wal")
            _ = try store.append([sampleEvent(1)], expectingHead: 0, time: 1)
            #expect(try headerVersions() == [2, 2])
            #expect(store.leaveQuiet())
            #expect(try store.journalMode() == "delete")
            #expect(try headerVersions() == [1, 1])
            #expect(!exists("-wal") && !exists("-shm"))
            // Still usable: a write after it runs with a rollback journal.
            _ = try store.append([sampleEvent(2)], expectingHead: 1, time: 2)
        }
        // A reader opens a quiet file without switching it.
        let reader = try SQLiteEventStore(path: path, readOnly: true)
        #expect(try reader.head() == 2)
        #expect(try headerVersions() == [1, 1])
        // A writer switches it back to WAL as it opens, and a reader that was open sees its appends.
        let writer = try SQLiteEventStore(path: path, existing: true)
        #expect(try writer.journalMode() == "wal")
        #expect(try headerVersions() == [2, 2])
        _ = try writer.append([sampleEvent(3)], expectingHead: 2, time: 3)
        #expect(try reader.head() == 3)
    }

    /// The descriptors of this process that name the ledger's `-wal` (deleted or not).
    func logDescriptors() throws -> [String] {
        try FileManager.default.contentsOfDirectory(atPath: "/proc/self/fd").compactMap {
            let target = try? FileManager.default.destinationOfSymbolicLink(atPath: "/proc/self/fd/" + $0)
            return target.map { $0.hasPrefix(path + "-wal") ? $0 : nil } ?? nil
        }
    }

    /// Commits that are synced at checkpoints only (`synchronous=NORMAL`, the downloader's facts) hand the log to
    /// the kernel's writeback through a descriptor of their own; the store lets go of it when it leaves the file
    /// quiet, so no deleted log is held open (its blocks would stay used until the process ends).
    @Test func factCommitsStartTheLogsWritebackAndLetGoOfTheLogWhenTheFileGoesQuiet() throws {
        var store: SQLiteEventStore? = try SQLiteEventStore(path: path)
        _ = try store?.append([sampleEvent(1)], expectingHead: 0, time: 1)
        // Durable commits sync the log themselves: nothing to hand over.
        #expect(try logDescriptors().count == 1)  // SQLite's own
        try store?.setDurability(.facts)
        _ = try store?.append([sampleEvent(2)], expectingHead: 1, time: 2)
        _ = try store?.append([sampleEvent(3)], expectingHead: 2, time: 3)
        #expect(try logDescriptors().count == 2)
        #expect(store?.leaveQuiet() == true)
        #expect(try logDescriptors().isEmpty)
        // In rollback-journal mode there is no log to hand over.
        _ = try store?.append([sampleEvent(4)], expectingHead: 3, time: 4)
        #expect(try logDescriptors().isEmpty)
        store = nil
        // A store let go in WAL closes it too.
        store = try SQLiteEventStore(path: path, existing: true)
        try store?.setDurability(.facts)
        _ = try store?.append([sampleEvent(5)], expectingHead: 4, time: 5)
        #expect(try logDescriptors().count == 2)
        store = nil
        #expect(try logDescriptors().isEmpty)
    }

    @Test func aFileAnotherConnectionHasOpenStaysInWAL() throws {
        let writer = try SQLiteEventStore(path: path)
        _ = try writer.append([sampleEvent(1)], expectingHead: 0, time: 1)
        var other: SQLiteEventStore? = try SQLiteEventStore(path: path, readOnly: true)
        #expect(try other?.head() == 1)
        // Refused at once, not after the busy timeout: the reader goes on in WAL.
        let started = ContinuousClock.now
        #expect(!writer.leaveQuiet())
        #expect(ContinuousClock.now - started < .seconds(2))
        #expect(try writer.journalMode() == "wal")
        #expect(try headerVersions() == [2, 2])
        #expect(try other?.head() == 1)
        other = nil
        #expect(writer.leaveQuiet())
        #expect(try headerVersions() == [1, 1])
    }

    @Test func aReadOnlyStoreNeverLeavesQuietNorSwitchesTheFile() throws {
        do {
            let writer = try SQLiteEventStore(path: path)
            _ = try writer.append([sampleEvent(1)], expectingHead: 0, time: 1)
        }
        let reader = try SQLiteEventStore(path: path, readOnly: true)
        #expect(!reader.leaveQuiet())
        #expect(reader.checkpointPassive() == nil)
        #expect(try headerVersions() == [2, 2])
    }

    /// A passive checkpoint on a connection of its own puts the log's frames into the main file while the writer
    /// keeps its connection open: a copy of the main file alone then holds them.
    @Test func aPassiveCheckpointFromAnotherConnectionMakesTheMainFileCurrent() throws {
        let writer = try SQLiteEventStore(path: path)
        _ = try writer.append((1...50).map { sampleEvent($0) }, expectingHead: 0, time: 1)
        let copy = directory.file("copy.sqlite")
        try FileManager.default.copyItem(atPath: path, toPath: copy)
        // Before it, the main file alone holds none of them (or is no ledger yet: its schema is in the log too).
        #expect(((try? SQLiteEventStore(path: copy, readOnly: true).head()) ?? 0) < 50)
        let checkpointer = try SQLiteEventStore(path: path, existing: true)
        let result = try #require(checkpointer.checkpointPassive())
        #expect(result.logFrames > 0 && result.folded == result.logFrames)
        try FileManager.default.removeItem(atPath: copy)
        try FileManager.default.copyItem(atPath: path, toPath: copy)
        let copied = try SQLiteEventStore(path: copy, readOnly: true)
        #expect(try copied.head() == 50)
        #expect(try copied.verifyChain().isValid)
    }
}
