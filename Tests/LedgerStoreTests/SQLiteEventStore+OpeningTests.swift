import Foundation
import TestSupport
import Testing

@testable import LedgerStore

/// What opening a file gives: ledgers old and new, files that are not ledgers, damaged ones, read-only copies.
struct SQLiteEventStoreOpeningTests {
    let directory: TemporaryDirectory
    let path: String

    init() throws {
        directory = try TemporaryDirectory()
        path = directory.file("ledger.sqlite")
    }

    private func makeLedger(count: Int64) throws {
        let store = try SQLiteEventStore(path: path)
        _ = try store.append((1...count).map { sampleEvent($0) }, expectingHead: 0, time: 1000)
    }

    /// The error of opening `file` and reading all of it, whichever step fails first.
    private func openingError(_ file: String, readOnly: Bool = false) -> StoreError? {
        do {
            let store = try SQLiteEventStore(path: file, readOnly: readOnly)
            _ = try store.verifyChain()
            _ = try store.events(after: 0, through: nil, limit: nil)
            return nil
        } catch let error as StoreError {
            return error
        } catch {
            Issue.record("not a StoreError: \(error)")
            return nil
        }
    }

    @Test func filesThatAreNotLedgersAreRefused() throws {
        let random = directory.file("random.bin")
        var generator = SystemRandomNumberGenerator()
        let noise = Data((0..<8192).map { _ in UInt8.random(in: 0...255, using: &generator) })
        #expect(FileManager.default.createFile(atPath: random, contents: noise))
        let text = directory.file("notes.txt")
        try String(repeating: "not a database\n", count: 300).write(
            toFile: text, atomically: false, encoding: .utf8)
        let foreign = directory.file("other-app.sqlite")
        try Database(path: foreign).execute("CREATE TABLE photos(id INTEGER PRIMARY KEY, name TEXT)")
        let empty = directory.file("empty.sqlite")
        #expect(FileManager.default.createFile(atPath: empty, contents: Data()))

        for file in [random, text, foreign] {
            #expect(openingError(file) == .notALedger(file))
            #expect(openingError(file, readOnly: true) == .notALedger(file))
        }
        #expect(openingError(empty, readOnly: true) == .notALedger(empty))
        #expect(try Database(path: foreign).int64("SELECT count(*) FROM sqlite_schema") == 1)  // left alone
        #expect(try String(contentsOfFile: text, encoding: .utf8).hasPrefix("not a database"))
    }

    /// An empty or 1-byte file that was there before is someone's: refused and left as it was (issue 10 §1).
    @Test func anExistingEmptyOrTinyFileIsRefusedAndLeftUntouched() throws {
        for content in [Data(), Data("x".utf8)] {
            #expect(FileManager.default.createFile(atPath: path, contents: content))
            #expect(openingError(path) == .notALedger(path))
            #expect(FileManager.default.contents(atPath: path) == content)
            #expect(!FileManager.default.fileExists(atPath: path + "-wal"))
        }
        try FileManager.default.removeItem(atPath: path)
        let store = try SQLiteEventStore(path: path)  // a file SQLite creates is ours
        #expect(try store.append([sampleEvent(1)], expectingHead: 0, time: 1) == 1)
    }

    @Test func aTruncatedLedgerIsCorrupt() throws {
        try makeLedger(count: 3000)
        let size = try #require(FileManager.default.attributesOfItem(atPath: path)[.size] as? Int)
        let handle = try #require(FileHandle(forWritingAtPath: path))
        try handle.truncate(atOffset: UInt64(size / 2))
        try handle.close()
        guard case .corrupt(let file, _) = openingError(path) else {
            Issue.record("expected corrupt, got \(String(describing: openingError(path)))")
            return
        }
        #expect(file == path)
    }

    @Test func overwrittenPagesAreCorrupt() throws {
        try makeLedger(count: 3000)
        let handle = try #require(FileHandle(forWritingAtPath: path))
        try handle.seek(toOffset: 8192)
        try handle.write(contentsOf: Data(repeating: 0xA5, count: 64 * 1024))
        try handle.close()
        guard case .corrupt = openingError(path) else {
            Issue.record("expected corrupt, got \(String(describing: openingError(path)))")
            return
        }
    }

    @Test func missingFilesAndDirectoriesCannotBeOpened() {
        let missing = directory.file("missing.sqlite")
        #expect(openingError(missing, readOnly: true) == .cannotOpen(missing, "no such file"))
        #expect(!FileManager.default.fileExists(atPath: missing))
        guard case .cannotOpen = openingError(directory.file("no/such/dir.sqlite")) else {
            Issue.record("a ledger in a missing directory should not open")
            return
        }
        guard case .cannotOpen = openingError(directory.path) else {
            Issue.record("a directory should not open as a ledger")
            return
        }
    }

    @Test func aLedgerFromANewerBuildIsRefused() throws {
        try makeLedger(count: 1)
        try Database(path: path).execute("INSERT INTO schema_migrations VALUES (99, 'future', 0)")
        let supported = Migration.latestVersion
        #expect(openingError(path) == .newerSchema(found: 99, supported: supported))
        #expect(openingError(path, readOnly: true) == .newerSchema(found: 99, supported: supported))
    }

    @Test func anOlderLedgerIsMigratedOnOpenWithItsEventsIntact() throws {
        let reference = InMemoryEventStore()
        _ = try reference.append((1...5).map { sampleEvent($0) }, expectingHead: 0, time: 1000)
        let expected = try reference.events(after: 0, through: nil, limit: nil)
        do {
            let db = try Database(path: path)
            try Migration.migrate(db, upTo: 1)
            let insert = try db.cachedStatement("INSERT INTO events VALUES (?, ?, ?, ?, ?, ?, ?)")
            for event in expected {
                try insert.bind(event.seq, at: 1)
                try insert.bind(event.time, at: 2)
                try insert.bind(event.kind, at: 3)
                try insert.bind(Int64(event.version), at: 4)
                try insert.bind(String(decoding: ChainHasher.tasksText(event.tasks), as: UTF8.self), at: 5)
                try event.payload.withUnsafeBytes { try insert.bindText($0, at: 6) }
                try event.hash.withUnsafeBytes { try insert.bindBlob($0, at: 7) }
                try insert.run()
                try db.execute("INSERT INTO event_tasks VALUES (\(event.seq), \(event.seq))")
            }
            #expect(try Migration.currentVersion(of: db) == 1)
        }
        let old = try SQLiteEventStore(path: path, readOnly: true)
        #expect(try old.events(after: 0, through: nil, limit: nil) == expected)
        #expect(try old.latestSnapshot(reducerVersion: 1, atOrBefore: nil) == nil)
        let store = try SQLiteEventStore(path: path)
        #expect(try Migration.currentVersion(of: store.db) == Migration.latestVersion)
        #expect(try store.events(after: 0, through: nil, limit: nil) == expected)
        #expect(try store.verifyChain().isValid)
        try store.saveSnapshot(seq: 5, reducerVersion: 1, bytes: [1])
        #expect(try store.latestSnapshot(reducerVersion: 1, atOrBefore: nil)?.seq == 5)
        #expect(try store.events(touching: 3).map(\.seq) == [3])
    }

    @Test func readOnlyNeverTouchesTheFile() throws {
        try makeLedger(count: 20)
        let copy = directory.file("copy.sqlite")
        try FileManager.default.copyItem(atPath: path, toPath: copy)
        try FileManager.default.setAttributes([.posixPermissions: 0o444], ofItemAtPath: copy)
        let before = try FileManager.default.attributesOfItem(atPath: copy)[.modificationDate] as? Date
        let bytes = try Data(contentsOf: URL(fileURLWithPath: copy))
        do {
            let store = try SQLiteEventStore(path: copy, readOnly: true)
            #expect(try store.head() == 20)
            #expect(try store.verifyChain().isValid)
            #expect(try store.events(touching: 7).map(\.seq) == [7])
            #expect(try store.lastSeq(atOrBefore: 1000) == 20)
            #expect(throws: StoreError.readOnly) {
                try store.append([sampleEvent(21)], expectingHead: 20, time: 1)
            }
            #expect(throws: StoreError.readOnly) {
                try store.saveSnapshot(seq: 1, reducerVersion: 1, bytes: [])
            }
        }
        #expect(try Data(contentsOf: URL(fileURLWithPath: copy)) == bytes)
        #expect(try FileManager.default.attributesOfItem(atPath: copy)[.modificationDate] as? Date == before)
        #expect(!FileManager.default.fileExists(atPath: copy + "-wal"))
        #expect(!FileManager.default.fileExists(atPath: copy + "-shm"))
    }

    @Test func readOnlySeesALiveWritersCommits() throws {
        let writer = try SQLiteEventStore(path: path)
        _ = try writer.append([sampleEvent(1)], expectingHead: 0, time: 1000)
        #expect(FileManager.default.fileExists(atPath: path + "-wal"))
        let reader = try SQLiteEventStore(path: path, readOnly: true)
        #expect(try reader.head() == 1)
        let token = try reader.changeToken()
        _ = try writer.append([sampleEvent(2)], expectingHead: 1, time: 1000)
        #expect(try reader.changeToken() != token)
        #expect(try reader.head() == 2)
    }
}
