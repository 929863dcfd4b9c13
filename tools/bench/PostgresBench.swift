import CPostgres
import Foundation
import LedgerStore

/// `ledger-bench postgres [events] [--uri URI]`: the PostgreSQL store against raw libpq on the same server, in one
/// run. Without `--uri`, a throwaway cluster with durable commits (fsync on) is started with `tools/pg-cluster` and
/// removed at the end.
enum PostgresBench {
    static let durableRatioCeiling = 2.0
    static let batchRatioCeiling = 4.0
    static let rateFloor = 200_000.0

    static func run(arguments: [String]) throws {
        var count = 1_000_000
        var openTasks = 100_000
        var uri: String?
        var rest = arguments[...]
        while let argument = rest.popFirst() {
            if argument == "--uri", let given = rest.popFirst() {
                uri = given
            } else if argument == "--open-tasks", let given = rest.popFirst().flatMap({ Int($0) }),
                (0...10_000_000).contains(given)
            {
                openTasks = given
            } else if let number = Int(argument), number > 0, number <= 100_000_000 {
                count = number
            } else {
                throw BenchError(
                    "usage: ledger-bench postgres [events] [--open-tasks N] [--uri postgresql://…]")
            }
        }
        let cluster = uri == nil ? try BenchCluster() : nil
        defer { cluster?.stop() }
        let base = uri ?? cluster!.uri
        if let load = try? String(contentsOfFile: "/proc/loadavg", encoding: .utf8) {
            print("  (load average \(load.split(separator: " ").prefix(3).joined(separator: " ")))")
        }
        let separator = base.contains("?") ? "&" : "?"
        let run = String(UInt32.random(in: 0...UInt32.max), radix: 36)
        let raw = try RawPostgres(PostgresLocation(base + separator + "ledger=bench_raw_\(run)"))

        // Durable single append against a raw single-row INSERT (its own transaction), alternating.
        let durable = try PostgresEventStore(uri: base + separator + "ledger=bench_durable_\(run)")
        try raw.createTable("durable_raw")
        var storeTimes: [Double] = []
        var rawTimes: [Double] = []
        var head = try durable.head()
        let clock = ContinuousClock()
        for round in 1...300 {
            let id = Int64(round)
            let event = event(id)
            storeTimes.append(
                StoreBench.seconds(
                    try clock.measure { head = try durable.append([event], expectingHead: head, time: id) }))
            rawTimes.append(
                StoreBench.seconds(
                    try clock.measure { try raw.insertOne("durable_raw", id: id, event: event) }))
        }
        let storeMedian = StoreBench.median(Array(storeTimes.dropFirst(20)))
        let rawMedian = StoreBench.median(Array(rawTimes.dropFirst(20)))
        let ratio = storeMedian / rawMedian
        print(
            "  durable single append          store \(String(format: "%.3f", storeMedian * 1000)) ms"
                + ", raw INSERT \(String(format: "%.3f", rawMedian * 1000)) ms: ratio \(String(format: "%.2f", ratio))"
                + " (ceiling \(durableRatioCeiling), \(ratio <= durableRatioCeiling ? "ok" : "MISSED"))")

        // Batched: `count` events, 10,000 per append, against COPY of the same rows 10,000 per COPY.
        let batch = 10_000
        let store = try PostgresEventStore(uri: base + separator + "ledger=bench_batch_\(run)")
        try raw.createTable("batch_raw")
        var storeElapsed = Duration.zero
        var rawElapsed = Duration.zero
        head = 0
        var id: Int64 = 0
        var pending: [NewEvent] = []
        while id < Int64(count) {
            pending.removeAll(keepingCapacity: true)
            for _ in 0..<min(Int64(batch), Int64(count) - id) {
                id += 1
                pending.append(event(id))
            }
            storeElapsed += try clock.measure {
                head = try store.append(pending, expectingHead: head, time: 1_700_000_000_000 + id)
            }
            rawElapsed += try clock.measure {
                try raw.copy("batch_raw", first: id - Int64(pending.count) + 1, pending)
            }
        }
        let storeRate = Double(count) / StoreBench.seconds(storeElapsed)
        let copyRate = Double(count) / StoreBench.seconds(rawElapsed)
        print(
            "  append \(count), \(batch) per append  store \(StoreBench.format(storeRate)) events/s"
                + " (floor \(StoreBench.format(rateFloor)), \(storeRate >= rateFloor ? "ok" : "MISSED"))"
                + ", raw COPY \(StoreBench.format(copyRate)) rows/s: ratio \(String(format: "%.2f", copyRate / storeRate))"
                + " (ceiling \(batchRatioCeiling), \(copyRate / storeRate <= batchRatioCeiling ? "ok" : "MISSED"))"
        )

        // Replay: the store's paged scan against one raw SELECT of the same columns, best of three each.
        var scanRate = 0.0
        var selectRate = 0.0
        for _ in 0..<3 {
            var rows = 0
            var checksum = 0
            let elapsed = try clock.measure {
                try store.scan(after: 0, through: nil) { view in
                    checksum &+= view.kind.count &+ view.payload.count &+ Int(truncatingIfNeeded: view.seq)
                    rows += 1
                }
            }
            guard rows == count, checksum != 0 else { throw BenchError("the store's scan read \(rows) rows") }
            scanRate = max(scanRate, Double(rows) / StoreBench.seconds(elapsed))
            selectRate = max(selectRate, try raw.selectRate(schema: store.location.schema))
        }
        print(
            "  replay \(count)                  store scan \(StoreBench.format(scanRate)) events/s"
                + " (floor \(StoreBench.format(rateFloor)), \(scanRate >= rateFloor ? "ok" : "MISSED"))"
                + ", raw SELECT \(StoreBench.format(selectRate)) rows/s: ratio \(String(format: "%.2f", selectRate / scanRate))"
                + " (ceiling \(batchRatioCeiling), \(selectRate / scanRate <= batchRatioCeiling ? "ok" : "MISSED"))"
        )
        let verified = try clock.measure { _ = try store.verifyChain() }
        print("  verify \(count)                  \(String(format: "%.2f", StoreBench.seconds(verified))) s")

        // NOTIFY: another connection's commit reaching a Ledger's changes() (what a scheduler, ui, serve follow).
        let follower = try followerLatency(uri: base + separator + "ledger=bench_notify_\(run)", rounds: 200)
        print(
            "  NOTIFY to changes() (200)      p50 \(String(format: "%.2f", follower.p50)) ms"
                + ", p99 \(String(format: "%.2f", follower.p99)) ms (target p99 100 ms, "
                + "\(follower.p99 <= 100 ? "ok" : "MISSED"))")
        for listeners in [1, 10, 50] {
            let spread = try fanOut(
                uri: base + separator + "ledger=bench_fan\(listeners)_\(run)", listeners: listeners,
                rounds: 50)
            print(
                "  NOTIFY fan-out to \(listeners) LISTENs  p50 \(String(format: "%.2f", spread.p50)) ms"
                    + ", p99 \(String(format: "%.2f", spread.p99)) ms, last listener p99 "
                    + "\(String(format: "%.2f", spread.lastP99)) ms")
        }
        for writers in [1, 4, 8] {
            let rate = try writerRate(
                uri: base + separator + "ledger=bench_writers\(writers)_\(run)", writers: writers, each: 200)
            print(
                "  \(writers) writer process(es) × 200 single durable appends: \(StoreBench.format(rate)) appends/s"
            )
        }
        if openTasks > 0 {
            let open = try openTimes(uri: base + separator + "ledger=bench_open_\(run)", tasks: openTasks)
            let ratio = open.postgres / open.sqlite
            print(
                "  open \(openTasks) tasks (median of 5) PostgreSQL \(String(format: "%.1f", open.postgres)) ms"
                    + ", SQLite \(String(format: "%.1f", open.sqlite)) ms: ratio \(String(format: "%.2f", ratio))"
                    + " (ceiling 3, \(ratio <= 3 ? "ok" : "MISSED"))")
        }
    }

    static func event(_ id: Int64) -> NewEvent {
        NewEvent(
            kind: "tasksAdded", version: 1, tasks: [id],
            payload: Array(#"{"id":\#(id),"url":"https://example.com/f\#(id).bin"}"#.utf8))
    }

    /// `ledger-bench postgres-writer URI COUNT`: COUNT single-event appends to the ledger at URI, each retried after
    /// a conflict (the tests run eight of these at once).
    static func writer(arguments: [String]) throws {
        guard arguments.count == 2, let count = Int(arguments[1]), (1...1_000_000).contains(count) else {
            throw BenchError("usage: ledger-bench postgres-writer URI COUNT")
        }
        let store = try PostgresEventStore(uri: arguments[0])
        var head = try store.head()
        let pid = Int64(getpid())
        for n in 0..<count {
            let event = NewEvent(
                kind: "written", version: 1, tasks: [pid * 100_000 + Int64(n)],
                payload: Array(#"{"pid":\#(pid),"n":\#(n)}"#.utf8))
            while true {
                do {
                    head = try store.append(
                        [event], expectingHead: head, time: Int64(Date().timeIntervalSince1970 * 1000))
                    break
                } catch StoreError.conflict(let now) {
                    head = now
                }
            }
        }
    }
}

/// A cluster from `tools/pg-cluster start --durable`, for the bench's run.
final class BenchCluster {
    let uri: String
    let folder: String
    let script: String

    init() throws {
        let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
            .deletingLastPathComponent()
        script = root.path + "/tools/pg-cluster"
        // posix_spawn and waitpid: Foundation's Process never saw the script end (its watcher outlives it).
        let outputPath = NSTemporaryDirectory() + "pg-cluster-bench-\(getpid()).out"
        defer { unlink(outputPath) }
        var pid: pid_t = 0
        let command: [String] = [
            "/bin/sh", "-c", "exec '\(script)' start --durable --watch \(getpid()) > '\(outputPath)'",
        ]
        var argv: [UnsafeMutablePointer<CChar>?] = command.map { strdup($0) } + [nil]
        defer { for pointer in argv { free(pointer) } }
        guard posix_spawn(&pid, "/bin/sh", nil, nil, &argv, environ) == 0 else {
            throw BenchError("cannot run tools/pg-cluster")
        }
        var status: Int32 = 0
        while waitpid(pid, &status, 0) < 0 && errno == EINTR {}
        let lines = String(
            decoding: FileManager.default.contents(atPath: outputPath) ?? Data(), as: UTF8.self
        )
        .split(separator: "\n")
        guard lines.count == 2 else {
            throw BenchError("tools/pg-cluster start failed")
        }
        uri = String(lines[0])
        folder = String(lines[1])
    }

    func stop() {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: script)
        process.arguments = ["stop", folder]
        try? process.run()
        process.waitUntilExit()
    }
}

/// Raw libpq on the same server: the floors the store is compared with (no chain, no counter row, no audit index).
final class RawPostgres {
    let connection: OpaquePointer
    let schema: String

    init(_ location: PostgresLocation) throws {
        guard let connection = PQconnectdb(location.conninfo), PQstatus(connection) == CONNECTION_OK else {
            throw BenchError("cannot connect to \(location.masked)")
        }
        self.connection = connection
        schema = location.schema
        try exec("CREATE SCHEMA \(schema)")
    }

    deinit { PQfinish(connection) }

    func exec(_ sql: String) throws {
        let result = PQexec(connection, sql)
        defer { PQclear(result) }
        let status = PQresultStatus(result)
        guard status == PGRES_COMMAND_OK || status == PGRES_TUPLES_OK else {
            throw BenchError("\(sql): \(String(cString: PQerrorMessage(connection)))")
        }
    }

    func createTable(_ name: String) throws {
        try exec(
            """
            CREATE TABLE \(schema).\(name) (seq bigint PRIMARY KEY, time bigint NOT NULL, kind text NOT NULL,
                version bigint NOT NULL, tasks text NOT NULL, payload bytea NOT NULL, hash bytea NOT NULL)
            """)
    }

    /// One row inserted in its own transaction (a single statement: one round trip, one commit).
    func insertOne(_ table: String, id: Int64, event: NewEvent) throws {
        let values: [[UInt8]] = [
            bigEndian(id), bigEndian(id), Array(event.kind.utf8), bigEndian(Int64(event.version)),
            Array("\(id)".utf8),
            event.payload, [UInt8](repeating: 7, count: 32),
        ]
        let types: [Oid] = [20, 20, 25, 20, 25, 17, 17]
        let lengths = values.map { Int32($0.count) }
        let formats = [Int32](repeating: 1, count: 7)
        let flat = values.flatMap { $0 }
        let result = flat.withUnsafeBufferPointer { flat in
            var offset = 0
            let pointers: [UnsafePointer<CChar>?] = values.map { value in
                defer { offset += value.count }
                return UnsafeRawPointer(flat.baseAddress! + offset).assumingMemoryBound(to: CChar.self)
            }
            return PQexecParams(
                connection,
                "INSERT INTO \(schema).\(table)(seq, time, kind, version, tasks, payload, hash)"
                    + " VALUES ($1, $2, $3, $4, $5, $6, $7)",
                7, types, pointers, lengths, formats, 1)
        }
        defer { PQclear(result) }
        guard PQresultStatus(result) == PGRES_COMMAND_OK else {
            throw BenchError("raw INSERT: \(String(cString: PQerrorMessage(connection)))")
        }
    }

    /// The rows of `events` (seqs from `first`) in one binary COPY (one transaction).
    func copy(_ table: String, first: Int64, _ events: [NewEvent]) throws {
        let started = PQexec(connection, "COPY \(schema).\(table) FROM STDIN (FORMAT binary)")
        defer { PQclear(started) }
        guard PQresultStatus(started) == PGRES_COPY_IN else {
            throw BenchError("COPY: \(String(cString: PQerrorMessage(connection)))")
        }
        var data = Array("PGCOPY\n".utf8) + [0xFF, 0x0D, 0x0A, 0x00] + [UInt8](repeating: 0, count: 8)
        data.reserveCapacity(events.count * 160)
        let hash = [UInt8](repeating: 7, count: 32)
        for (offset, event) in events.enumerated() {
            let seq = first + Int64(offset)
            data += [0, 7]
            for field in [
                bigEndian(seq), bigEndian(seq), Array(event.kind.utf8), bigEndian(Int64(event.version)),
                Array("\(seq)".utf8), event.payload, hash,
            ] {
                data += bigEndian32(Int32(field.count)) + field
            }
        }
        data += [0xFF, 0xFF]
        let sent = data.withUnsafeBufferPointer { bytes in
            bytes.withMemoryRebound(to: CChar.self) {
                PQputCopyData(connection, $0.baseAddress, Int32($0.count))
            }
        }
        guard sent == 1, PQputCopyEnd(connection, nil) == 1 else { throw BenchError("COPY failed to send") }
        while let result = PQgetResult(connection) {
            defer { PQclear(result) }
            guard PQresultStatus(result) == PGRES_COMMAND_OK else {
                throw BenchError("COPY: \(String(cString: PQerrorMessage(connection)))")
            }
        }
    }

    /// Rows per second of one `SELECT seq, time, kind, payload` over the ledger's events, binary, every column
    /// touched.
    func selectRate(schema: String) throws -> Double {
        var rows = 0
        var checksum = 0
        let elapsed = try ContinuousClock().measure {
            let result = PQexecParams(
                connection, "SELECT seq, time, kind, payload FROM \(schema).events ORDER BY seq", 0, nil, nil,
                nil,
                nil, 1)
            defer { PQclear(result) }
            guard PQresultStatus(result) == PGRES_TUPLES_OK else { throw BenchError("raw SELECT failed") }
            rows = Int(PQntuples(result))
            for row in 0..<Int32(rows) {
                checksum &+=
                    Int(PQgetvalue(result, row, 0).pointee) &+ Int(PQgetlength(result, row, 2))
                    &+ Int(PQgetlength(result, row, 3)) &+ Int(PQgetvalue(result, row, 1).pointee)
            }
        }
        guard rows > 0, checksum != 0 else { throw BenchError("raw SELECT read nothing") }
        return Double(rows) / StoreBench.seconds(elapsed)
    }

    private func bigEndian(_ value: Int64) -> [UInt8] { withUnsafeBytes(of: value.bigEndian) { Array($0) } }
    private func bigEndian32(_ value: Int32) -> [UInt8] { withUnsafeBytes(of: value.bigEndian) { Array($0) } }
}
