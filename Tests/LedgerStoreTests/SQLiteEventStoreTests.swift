import Dispatch
import Foundation
import LedgerStore
import Synchronization
import TestSupport
import Testing

struct SQLiteEventStoreTests {
    let directory: TemporaryDirectory
    let path: String

    init() throws {
        directory = try TemporaryDirectory()
        path = directory.file("ledger.sqlite")
    }

    /// A ledger at `path` holding events for tasks 1...count, closed again.
    private func makeLedger(count: Int64 = 10, at file: String? = nil) throws {
        let store = try SQLiteEventStore(path: file ?? path)
        _ = try store.append((1...count).map { sampleEvent($0) }, expectingHead: 0, time: 1000)
    }

    @Test func theEventsTableRefusesUpdateAndDelete() throws {
        try makeLedger()
        let db = try Database(path: path)
        let update = #expect(throws: DatabaseError.self) {
            try db.execute("UPDATE events SET payload = '{}' WHERE seq = 3")
        }
        #expect(update?.message.contains("append-only: UPDATE refused") == true)
        let delete = #expect(throws: DatabaseError.self) {
            try db.execute("DELETE FROM events WHERE seq = 10")
        }
        #expect(delete?.message.contains("append-only: DELETE refused") == true)
        #expect(try SQLiteEventStore(path: path).verifyChain().isValid)
    }

    @Test func theLogIsPlainSQLiteTheShellCanRead() throws {
        try makeLedger(count: 3)
        let db = try Database(path: path)
        let statement = try db.cachedStatement(
            "SELECT seq, kind, tasks, json_extract(payload, '$.url'), length(hash) FROM events WHERE seq = 2")
        #expect(try statement.step())
        #expect(statement.int64(at: 0) == 2)
        #expect(statement.string(at: 1) == "tasksAdded")
        #expect(statement.string(at: 2) == "2")
        #expect(statement.string(at: 3) == "https://example.com/f2.bin")
        #expect(statement.int64(at: 4) == 32)
        #expect(try db.int64("PRAGMA application_id") == SQLiteEventStore.applicationID)
        #expect(
            try db.int64("SELECT count(*) FROM schema_migrations")
                == (try db.int64("SELECT max(version) FROM schema_migrations")))
    }

    @Test func anEditedPayloadBreaksTheChainAtItsSeq() throws {
        try makeLedger()
        try tamper(
            "DROP TRIGGER events_refuse_update; UPDATE events SET payload = '{\"id\":666}' WHERE seq = 5")
        let report = try SQLiteEventStore(path: path).verifyChain()
        #expect(report.firstProblem == .init(seq: 5, reason: .hashMismatch))
        #expect(report.rowCount == 10 && report.head == 10)
    }

    @Test func aDeletedRowIsAGap() throws {
        try makeLedger()
        try tamper("DROP TRIGGER events_refuse_delete; DELETE FROM events WHERE seq = 4")
        let report = try SQLiteEventStore(path: path).verifyChain()
        #expect(report.firstProblem == .init(seq: 5, reason: .gap(expected: 4)))
        #expect(report.rowCount == 9)
    }

    @Test func anInsertedRowIsFound() throws {
        try makeLedger()
        // A forged row in the place of a removed one…
        try tamper(
            """
            DROP TRIGGER events_refuse_delete; DELETE FROM events WHERE seq = 6;
            INSERT INTO events VALUES (6, 1000, 'tasksAdded', 1, '6', '{"id":6}', randomblob(32))
            """)
        #expect(
            try SQLiteEventStore(path: path).verifyChain().firstProblem
                == .init(seq: 6, reason: .hashMismatch))
        // …and one appended past the head by hand, with a plausible hash.
        let tail = directory.file("tail.sqlite")
        try makeLedger(at: tail)
        try tamper(
            "INSERT INTO events SELECT 11, time, kind, version, tasks, payload, hash FROM events WHERE seq = 10",
            at: tail)
        #expect(
            try SQLiteEventStore(path: tail).verifyChain().firstProblem
                == .init(seq: 11, reason: .hashMismatch))
        // …and one slipped in before the first.
        let other = directory.file("other.sqlite")
        try makeLedger(at: other)
        try tamper("INSERT INTO events VALUES (0, 1000, 'x', 1, '', '{}', zeroblob(32))", at: other)
        #expect(
            try SQLiteEventStore(path: other).verifyChain().firstProblem
                == .init(seq: 0, reason: .gap(expected: 1)))
    }

    @Test func aMalformedRowIsReportedAsBad() throws {
        try makeLedger()
        try tamper("DROP TRIGGER events_refuse_update; UPDATE events SET tasks = 'seven' WHERE seq = 3")
        let problem = try SQLiteEventStore(path: path).verifyChain().firstProblem
        #expect(problem?.seq == 3)
        #expect(problem?.reason == .badRow("tasks is not comma-separated ids"))
    }

    @Test func twoConnectionsAppendingConcurrentlyLoseNothing() throws {
        try makeLedger(count: 1)
        let perWriter = 150
        let failures = Mutex<[String]>([])
        let conflicts = Atomic<Int>(0)
        let path = self.path
        DispatchQueue.concurrentPerform(iterations: 2) { writer in
            do {
                let store = try SQLiteEventStore(path: path)
                for index in 0..<perWriter {
                    let task = Int64(1000 * (writer + 1) + index)
                    while true {
                        let head = try store.head()
                        do {
                            _ = try store.append([sampleEvent(task)], expectingHead: head, time: 2000)
                            break
                        } catch StoreError.conflict {
                            conflicts.add(1, ordering: .relaxed)
                        }
                    }
                }
            } catch {
                failures.withLock { $0.append("\(error)") }
            }
        }
        #expect(failures.withLock { $0 } == [])
        let store = try SQLiteEventStore(path: path)
        let events = try store.events(after: 0, through: nil, limit: nil)
        #expect(events.map(\.seq) == Array(1...Int64(1 + 2 * perWriter)))
        let tasks = Set(events.flatMap(\.tasks))
        #expect(tasks.count == 1 + 2 * perWriter)
        #expect(tasks.isSuperset(of: (0..<perWriter).map { Int64(1000 + $0) }))
        #expect(tasks.isSuperset(of: (0..<perWriter).map { Int64(2000 + $0) }))
        #expect(try store.verifyChain().isValid)
    }

    @Test func changeTokenMovesWhenAnotherConnectionCommits() throws {
        try makeLedger(count: 2)
        let watcher = try SQLiteEventStore(path: path)
        let writer = try SQLiteEventStore(path: path)
        let before = try watcher.changeToken()
        #expect(try watcher.changeToken() == before)
        _ = try writer.append([sampleEvent(3)], expectingHead: 2, time: 1000)
        let after = try watcher.changeToken()
        #expect(after != before)
        #expect(try watcher.head() == 3)
        #expect(try watcher.changeToken() == after)
    }

    @Test func theLockedLedgerGivesUpWithLocked() throws {
        try makeLedger(count: 1)
        let holder = try Database(path: path)
        try holder.execute("BEGIN IMMEDIATE")
        let store = try SQLiteEventStore(path: path, busyTimeout: 50)
        #expect(throws: StoreError.locked(path)) {
            try store.append([sampleEvent(2)], expectingHead: 1, time: 1000)
        }
        #expect(try store.head() == 1)  // WAL: readers are not blocked by the writer
        try holder.execute("ROLLBACK")
        #expect(try store.append([sampleEvent(2)], expectingHead: 1, time: 1000) == 2)
    }

    /// Runs raw SQL on the file behind the store's back, the way an attacker with the sqlite3 shell would.
    private func tamper(_ sql: String, at file: String? = nil) throws {
        try Database(path: file ?? path).execute(sql)
    }
}
