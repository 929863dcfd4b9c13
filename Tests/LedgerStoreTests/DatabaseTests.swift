import LedgerStore
import TestSupport
import Testing

struct DatabaseTests {
    @Test func uriEscapesWhatURIsReserve() {
        #expect(Database.uri(path: "/tmp/a b/l.sqlite") == "file:///tmp/a b/l.sqlite")
        #expect(Database.uri(path: "x?y#z%.db", parameters: ["mode=ro"]) == "file:x%3Fy%23z%25.db?mode=ro")
        #expect(Database.uri(path: "//host/é") == "file:////host/%C3%A9")
    }

    @Test func aPathWithReservedCharactersOpens() throws {
        let directory = try TemporaryDirectory()
        let path = directory.file("weird ?#% é.sqlite")
        do {
            let store = try SQLiteEventStore(path: path)
            _ = try store.append([sampleEvent(1)], expectingHead: 0, time: 1)
        }
        #expect(try SQLiteEventStore(path: path, readOnly: true).head() == 1)
    }

    @Test func aFailingTransactionRollsBackEverything() throws {
        struct Abort: Error {}
        let directory = try TemporaryDirectory()
        let db = try Database(path: directory.file("t.sqlite"))
        try db.execute("CREATE TABLE t(v INTEGER)")
        #expect(throws: Abort.self) {
            try db.immediateTransaction {
                try db.execute("INSERT INTO t VALUES (1)")
                throw Abort()
            }
        }
        #expect(!db.isInTransaction)
        #expect(try db.int64("SELECT count(*) FROM t") == 0)
        let value = try db.immediateTransaction {
            try db.execute("INSERT INTO t VALUES (2)")
            return try db.int64("SELECT sum(v) FROM t")
        }
        #expect(value == 2)
    }

    @Test func errorsCarryCodeMessageAndSQL() throws {
        let directory = try TemporaryDirectory()
        let db = try Database(path: directory.file("t.sqlite"))
        try db.execute("CREATE TABLE t(v INTEGER PRIMARY KEY)")
        try db.execute("INSERT INTO t VALUES (1)")
        let error = #expect(throws: DatabaseError.self) { try db.execute("INSERT INTO t VALUES (1)") }
        #expect(error?.code == .constraint)
        #expect(error?.sql == "INSERT INTO t VALUES (1)")
        #expect(error?.message.contains("UNIQUE") == true)
        let syntax = #expect(throws: DatabaseError.self) { try db.cachedStatement("SELEKT 1") }
        #expect(syntax?.code == .error)
        #expect(syntax?.description.contains("SELEKT 1") == true)
    }

    @Test func storeErrorsReadAsOneLine() {
        let errors: [StoreError] = [
            .notALedger("/a"), .corrupt("/a", "malformed"), .locked("/a"),
            .newerSchema(found: 3, supported: 2),
            .conflict(head: 4), .readOnly, .cannotOpen("/a", "no such file"), .io("/a", "disk full"),
            .snapshotBeyondHead(seq: 5, head: 4), .database(DatabaseError(code: 1)),
        ]
        for error in errors {
            #expect(!error.description.isEmpty && !error.description.contains("\n"))
        }
        #expect(StoreError.newerSchema(found: 3, supported: 2).description.contains("upgrade"))
    }
}
