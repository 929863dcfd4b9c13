import Foundation
import PostgresSupport
import Synchronization
import Testing

@testable import LedgerStore

/// What the PostgreSQL store adds to the contract suite: a database shared by several connections and processes.
struct PostgresEventStoreTests {
    /// A commit on one connection changes another connection's token (LISTEN/NOTIFY), which then reads it.
    @Test func aCommitElsewhereChangesTheToken() throws {
        let uri = try PostgresTestCluster.freshLedger()
        let writer = try PostgresEventStore(uri: uri)
        _ = try writer.append([sampleEvent(1)], expectingHead: 0, time: 10)
        let reader = try PostgresEventStore(uri: uri, readOnly: true, existing: true)
        let before = try reader.changeToken()
        #expect(try reader.changeToken() == before)
        _ = try writer.append([sampleEvent(2)], expectingHead: 1, time: 11)
        let deadline = Date().addingTimeInterval(5)
        var token = before
        while token == before && Date() < deadline {
            usleep(2000)
            token = try reader.changeToken()
        }
        #expect(token != before)
        #expect(try reader.head() == 2)
        #expect(try reader.events(after: 1, through: nil, limit: nil).map(\.tasks) == [[2]])
    }

    /// The events table refuses UPDATE, DELETE and TRUNCATE in the database itself, whoever connects.
    @Test func theDatabaseRefusesToChangeEvents() throws {
        let uri = try PostgresTestCluster.freshLedger()
        let store = try PostgresEventStore(uri: uri)
        _ = try store.append([sampleEvent(1), sampleEvent(2)], expectingHead: 0, time: 10)
        let other = try PostgresConnection(PostgresLocation(uri))
        let schema = PostgresConnection.identifier(store.location.schema)
        for sql in [
            "UPDATE \(schema).events SET kind = 'x' WHERE seq = 1",
            "DELETE FROM \(schema).events WHERE seq = 2",
            "TRUNCATE \(schema).events",
        ] {
            #expect {
                try other.executeScript(sql)
            } throws: { error in
                "\(error)".contains("append-only")
            }
        }
        #expect(
            try store.verifyChain()
                == ChainReport(
                    rowCount: 2, head: 2, headHash: store.events(after: 1, through: nil, limit: nil)[0].hash,
                    firstProblem: nil))
    }

    /// A ledger that is not there is read as empty, refused when it must exist, and never created by a read.
    @Test func readingAMissingLedgerCreatesNothing() throws {
        let uri = try PostgresTestCluster.freshLedger()
        let location = try PostgresLocation(uri)
        #expect {
            try PostgresEventStore(uri: uri, existing: true)
        } throws: { error in
            guard case StoreError.cannotOpen(_, let reason) = error else { return false }
            return reason.contains("no ledger named '\(location.ledger)'")
        }
        let reader = try PostgresEventStore(uri: uri, readOnly: true)
        #expect(try reader.head() == 0)
        #expect(try reader.events(after: 0, through: nil, limit: nil).isEmpty)
        #expect(try reader.verifyChain().rowCount == 0)
        #expect(try reader.latestSnapshot(reducerVersion: 1, atOrBefore: nil) == nil)
        #expect(throws: StoreError.readOnly) {
            try reader.append([sampleEvent(1)], expectingHead: 0, time: 1)
        }
        let writer = try PostgresEventStore(uri: uri)
        #expect(try writer.head() == 0)
        #expect(try !schemaExists(location))
        _ = try writer.append([sampleEvent(1)], expectingHead: 0, time: 1)
        #expect(try schemaExists(location))
        #expect(try reader.head() == 1)
    }

    private func schemaExists(_ location: PostgresLocation) throws -> Bool {
        let connection = try PostgresConnection(location)
        var name = PostgresParameters()
        name.add(text: location.schema)
        return try connection.execute("SELECT count(*) FROM pg_namespace WHERE nspname = $1", name).int64(
            0, 0) == 1
    }

    /// Two named ledgers in one database are two logs: each has its own seqs, chain and vault.
    @Test func namedLedgersAreSeparate() throws {
        let base = try PostgresTestCluster.freshLedger("a")
        let other = base.replacingOccurrences(of: "ledger=a_", with: "ledger=b_")
        let first = try PostgresEventStore(uri: base)
        let second = try PostgresEventStore(uri: other)
        _ = try first.append([sampleEvent(1), sampleEvent(2)], expectingHead: 0, time: 1)
        _ = try second.append([sampleEvent(9)], expectingHead: 0, time: 1)
        #expect(try first.head() == 2 && second.head() == 1)
        #expect(try second.events(after: 0, through: nil, limit: nil).map(\.tasks) == [[9]])
        #expect(first.location.schema != second.location.schema)
    }

    /// Keys are written and deleted with their events, and a conflicting append leaves no key.
    @Test func vaultKeysCommitWithTheirEvents() throws {
        let store = try PostgresEventStore(uri: PostgresTestCluster.freshLedger())
        let key = try VaultKey.random(task: 4)
        _ = try store.append([sampleEvent(4)], expectingHead: 0, time: 1, vault: VaultChange(added: [key]))
        #expect(try store.vaultKey(task: 4) == key)
        #expect(try store.vaultTasks() == [4])
        let other = try VaultKey.random(task: 5)
        #expect(throws: StoreError.conflict(head: 1)) {
            try store.append([sampleEvent(5)], expectingHead: 0, time: 2, vault: VaultChange(added: [other]))
        }
        #expect(try store.vaultKey(task: 5) == nil)
        _ = try store.append(
            [sampleEvent(4, kind: "purged")], expectingHead: 1, time: 3, vault: VaultChange(removed: [4]))
        #expect(try store.vaultKey(task: 4) == nil)
        #expect(try store.vaultTasks().isEmpty)
        let sealed = try key.seal(Array("secret".utf8), context: "header:authorization")
        #expect(throws: VaultError.purged(task: 4)) {
            try store.openSecret(sealed, context: "header:authorization")
        }
    }

    /// Snapshots are sealed to the chain: one whose bytes were edited in the database is not loaded, and `verify`
    /// names it.
    @Test func anEditedSnapshotIsNotLoaded() throws {
        let uri = try PostgresTestCluster.freshLedger()
        let store = try PostgresEventStore(uri: uri)
        _ = try store.append((1...4).map { sampleEvent($0) }, expectingHead: 0, time: 1)
        try store.saveSnapshot(seq: 2, reducerVersion: 1, bytes: [2], summary: [22])
        try store.saveSnapshot(seq: 4, reducerVersion: 1, bytes: [4], summary: [44])
        #expect(
            try store.withLatestSummary(reducerVersion: 1, atOrBefore: nil) { [$0] + $1.map(Int64.init) } == [
                4, 44,
            ])
        let other = try PostgresConnection(PostgresLocation(uri))
        let schema = PostgresConnection.identifier(store.location.schema)
        try other.executeScript("UPDATE \(schema).snapshots SET bytes = '\\x05'::bytea WHERE seq = 4")
        #expect(try store.latestSnapshot(reducerVersion: 1, atOrBefore: nil)?.bytes == [2])
        #expect(try store.snapshotProblems(reducerVersion: 1).map(\.seq) == [4])
    }

    /// Bad URIs and names are refused before anything connects; a refused login says why in one line, with the
    /// password masked.
    @Test func badLocationsAndRefusedLoginsSayWhyWithoutThePassword() throws {
        for bad in [
            "postgresql://h/db?ledger=Bad-Name", "postgresql://h/db?ledger=",
            "postgresql://h/db?ledger=a&ledger=b",
            "postgresql://u:pw@h/db?nosuchoption=1", "postgresql://h:port/db%zz", "mysql://h/db",
        ] {
            #expect {
                try PostgresLocation(bad)
            } throws: { error in
                guard case StoreError.badLocation(let text) = error else { return false }
                return !text.contains("\n") && !text.contains(":pw@")
            }
        }
        let cluster = try PostgresTestCluster.uri
        // The cluster's URI with another user, and a password, in its user part (its own `user=` left out).
        let parts = cluster.split(separator: "?", maxSplits: 1)
        let query = parts.count > 1 ? parts[1].split(separator: "&").filter { !$0.hasPrefix("user=") } : []
        let refused =
            parts[0].replacingOccurrences(of: "://", with: "://nosuchrole:s3cret%21@") + "?"
            + query.joined(separator: "&")
        #expect {
            try PostgresEventStore(uri: refused)
        } throws: { error in
            let text = "\(error)"
            guard case StoreError.cannotConnect = error else { return false }
            return text.contains("nosuchrole") && text.contains(":***@") && !text.contains("s3cret")
                && !text.contains("\n")
        }
        #expect(
            PostgresLocation.mask("postgres://me:pw@h/db?password=pw2&ledger=x")
                == "postgres://me:***@h/db?password=***&ledger=x")
        let location = try PostgresLocation(
            "postgres://me@h:5433/db?sslmode=disable&ledger=lab&connect_timeout=3")
        #expect(location.ledger == "lab" && location.schema == "dledger_lab")
        #expect(location.conninfo == "postgres://me@h:5433/db?sslmode=disable&connect_timeout=3")
        #expect(try PostgresLocation("postgresql:///db").ledger == "main")
    }

    /// Eight writer threads, each on its own connection, 200 appends each with optimistic retries: the log is
    /// gapless, every append is there once, and the chain verifies.
    @Test func concurrentWritersLeaveAGaplessChain() throws {
        let uri = try PostgresTestCluster.freshLedger()
        _ = try PostgresEventStore(uri: uri).append([sampleEvent(0)], expectingHead: 0, time: 1)
        let failures = Mutex<[String]>([])
        DispatchQueue.concurrentPerform(iterations: 8) { writer in
            do {
                let store = try PostgresEventStore(uri: uri)
                var head = try store.head()
                for n in 0..<200 {
                    let task = Int64(writer * 1000 + n + 1)
                    while true {
                        do {
                            head = try store.append([sampleEvent(task)], expectingHead: head, time: 2)
                            break
                        } catch StoreError.conflict(let now) {
                            head = now
                        }
                    }
                }
            } catch {
                failures.withLock { $0.append("\(error)") }
            }
        }
        #expect(failures.withLock { $0 }.isEmpty)
        let store = try PostgresEventStore(uri: uri, readOnly: true)
        let events = try store.events(after: 0, through: nil, limit: nil)
        #expect(events.map(\.seq) == Array(1...1601))
        #expect(Set(events.flatMap(\.tasks)).count == 1601)
        #expect(try store.verifyChain().isValid)
        #expect(try store.verifyIndex() == nil)
    }

    /// Eight writer processes (`ledger-bench postgres-writer`), 200 single-event appends each on one ledger, each
    /// retried after a conflict: 1,600 events, seqs 1…1,600 without a gap, every append once, one valid chain.
    @Test func eightWriterProcessesLeaveAGaplessChain() throws {
        let uri = try PostgresTestCluster.freshLedger()
        let writers = try (0..<8).map { _ in
            let process = Process()
            process.executableURL = URL(fileURLWithPath: Self.benchBinary)
            process.arguments = ["postgres-writer", uri, "200"]
            try process.run()
            return process
        }
        // A writer that has not ended within two minutes is stopped (and fails the test) instead of hanging it.
        let deadline = Date().addingTimeInterval(120)
        while writers.contains(where: \.isRunning) && Date() < deadline { usleep(20_000) }
        for writer in writers where writer.isRunning {
            Issue.record("a writer process did not end within two minutes")
            writer.terminate()
        }
        for writer in writers { writer.waitUntilExit() }
        #expect(writers.map(\.terminationStatus) == Array(repeating: 0, count: 8))
        let store = try PostgresEventStore(uri: uri, readOnly: true, existing: true)
        let events = try store.events(after: 0, through: nil, limit: nil)
        #expect(events.map(\.seq) == Array(1...1600))
        #expect(Set(events.flatMap(\.tasks)).count == 1600)
        #expect(Set(writers.map(\.processIdentifier)).count == 8)
        let perWriter = Dictionary(grouping: events) { $0.tasks[0] / 100_000 }.mapValues(\.count)
        #expect(perWriter.count == 8 && perWriter.values.allSatisfy { $0 == 200 })
        #expect(zip(events, events.dropFirst()).allSatisfy { $0.time <= $1.time })
        #expect(try store.verifyChain().isValid)
        #expect(try store.verifyIndex() == nil)
    }

    /// The built `ledger-bench`, next to the test bundle (the test target depends on it).
    static let benchBinary: String = {
        var candidates: [String] = []
        if let exe = Bundle.main.executableURL?.deletingLastPathComponent() {
            candidates.append(exe.path + "/ledger-bench")
        }
        candidates.append(Bundle.main.bundleURL.deletingLastPathComponent().path + "/ledger-bench")
        let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
            .deletingLastPathComponent()
        candidates.append(root.path + "/.build/debug/ledger-bench")
        return candidates.first { FileManager.default.isExecutableFile(atPath: $0) } ?? candidates.last!
    }()
}
