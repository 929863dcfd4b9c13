import CSQLite
import Foundation
import LedgerStore

/// `ledger-bench store`: the event store's figures against their floors, measured in one run.
enum StoreBench {
    static let appendFloor = 500_000.0
    static let durableRatioCeiling = 2.0

    /// Runs every store figure: `[events] [batch]` (default 1,000,000 and 10,000; 1,000 per append is measured
    /// too, since its durable commits alone bound it on a slow-fsync disk).
    static func run(arguments: [String]) throws {
        let count = arguments.first.flatMap(Int.init) ?? 1_000_000
        let batch = arguments.dropFirst().first.flatMap(Int.init) ?? 10_000
        let directory = try BenchDirectory()
        let ledger = directory.file("ledger.sqlite")
        if let load = try? String(contentsOfFile: "/proc/loadavg", encoding: .utf8) {
            print(
                "  (load average \(load.split(separator: " ").prefix(3).joined(separator: " ")) on \(cpuCount()) cores)"
            )
        }

        let appendRate = try buildLedger(path: ledger, events: count, batch: batch)
        report("append \(count) events, \(batch) per append", appendRate.wall, "events/s", floor: appendFloor)
        report("  same, per CPU second of the writer", appendRate.cpu, "events/s", floor: appendFloor)
        if let size = (try? FileManager.default.attributesOfItem(atPath: ledger))?[.size] as? Int {
            print(
                "    ledger file \(size / 1_000_000) MB, \(size / max(count, 1)) bytes per event"
                    + " (written twice: WAL, then checkpoint)")
        }
        if batch != 1000 {
            let small = directory.file("small-batches.sqlite")
            let smallRate = try buildLedger(path: small, events: count, batch: 1000)
            report("append \(count) events, 1000 per append", smallRate.wall, "events/s", floor: appendFloor)
            report("  same, per CPU second of the writer", smallRate.cpu, "events/s", floor: appendFloor)
            try? FileManager.default.removeItem(atPath: small)
        }

        // Best of three, alternating, so a burst of load from elsewhere does not decide the ratio.
        var rawScan = 0.0
        var storeScan = 0.0
        for _ in 0..<3 {
            rawScan = max(rawScan, try rawScanRate(path: ledger))
            storeScan = max(storeScan, try storeScanRate(path: ledger))
        }
        report("raw SQLite scan (seq,time,kind,payload)", rawScan, "rows/s", floor: nil)
        report("store scan (RawEventView)", storeScan, "rows/s", floor: nil)
        print("    ratio of store scan to raw scan: \(String(format: "%.2f", storeScan / rawScan))")

        let (store, raw) = try durableAppendLatencies(directory: directory, rounds: 200)
        let ratio = store / raw
        print(
            "  durable single append (FULL, WAL)       store \(String(format: "%.3f", store * 1000)) ms"
                + ", raw SQLite \(String(format: "%.3f", raw * 1000)) ms: ratio \(String(format: "%.2f", ratio))"
                + " (ceiling \(durableRatioCeiling), \(ratio <= durableRatioCeiling ? "ok" : "MISSED"))")
    }

    static func cpuCount() -> Int { Int(sysconf(Int32(_SC_NPROCESSORS_ONLN))) }

    /// Creates a ledger of `events` single-task events at `path` through `SQLiteEventStore`, `batch` per append.
    /// - Returns: events appended per second of wall time (hash chain and durable commits included) and per
    ///   second of this thread's CPU time (what the store costs when the disk and the other processes are idle).
    @discardableResult
    static func buildLedger(path: String, events: Int, batch: Int = 1000) throws -> AppendRate {
        let store = try SQLiteEventStore(path: path)
        var head = try store.head()
        let clock = ContinuousClock()
        var pending: [NewEvent] = []
        pending.reserveCapacity(batch)
        var elapsed = Duration.zero
        var cpu = 0.0
        var id = head
        let last = head + Int64(events)
        while id < last {
            pending.removeAll(keepingCapacity: true)
            for _ in 0..<min(Int64(batch), last - id) {
                id += 1
                pending.append(
                    NewEvent(
                        kind: "tasksAdded", version: 1, tasks: [id],
                        payload: Array(#"{"id":\#(id),"url":"https://example.com/f\#(id).bin"}"#.utf8)))
            }
            // Only the store's work is timed: making the events is the caller's.
            let cpuStart = threadCPUSeconds()
            elapsed += try clock.measure {
                head = try store.append(pending, expectingHead: head, time: 1_700_000_000_000 + id)
            }
            cpu += threadCPUSeconds() - cpuStart
        }
        return AppendRate(wall: Double(events) / seconds(elapsed), cpu: Double(events) / cpu)
    }

    /// Rows per second of a bare `sqlite3_step` loop over `SELECT seq, time, kind, payload FROM events`, reading
    /// each column through `sqlite3_column_*` pointers: the floor any replay of the ledger at `path` compares to.
    static func rawScanRate(path: String) throws -> Double {
        var db: OpaquePointer?
        guard sqlite3_open_v2(path, &db, SQLITE_OPEN_READONLY, nil) == SQLITE_OK else {
            sqlite3_close(db)
            throw BenchError("cannot open \(path)")
        }
        defer { sqlite3_close(db) }
        var statement: OpaquePointer?
        guard
            sqlite3_prepare_v2(db, "SELECT seq, time, kind, payload FROM events", -1, &statement, nil)
                == SQLITE_OK
        else { throw BenchError("cannot prepare the scan") }
        defer { sqlite3_finalize(statement) }
        var rows = 0
        var checksum: Int64 = 0
        let elapsed = ContinuousClock().measure {
            while sqlite3_step(statement) == SQLITE_ROW {
                checksum &+= sqlite3_column_int64(statement, 0) &+ sqlite3_column_int64(statement, 1)
                _ = sqlite3_column_blob(statement, 2)
                checksum &+= Int64(sqlite3_column_bytes(statement, 2))
                _ = sqlite3_column_blob(statement, 3)
                checksum &+= Int64(sqlite3_column_bytes(statement, 3))
                rows += 1
            }
        }
        guard checksum != 0 || rows == 0 else { throw BenchError("scan read nothing") }
        return Double(rows) / seconds(elapsed)
    }

    /// Rows per second of `SQLiteEventStore.scan` over the whole ledger at `path`.
    static func storeScanRate(path: String) throws -> Double {
        let store = try SQLiteEventStore(path: path, readOnly: true)
        var rows = 0
        var checksum = 0
        let elapsed = try ContinuousClock().measure {
            try store.scan(after: 0, through: nil) { view in
                checksum &+= view.kind.count &+ view.payload.count &+ Int(truncatingIfNeeded: view.seq)
                rows += 1
            }
        }
        guard checksum != 0 || rows == 0 else { throw BenchError("scan read nothing") }
        return Double(rows) / seconds(elapsed)
    }

    /// Median seconds of one durable single-event append through the store, and of a raw SQLite transaction
    /// inserting one similar row (WAL, synchronous=FULL, prepared statements), alternating the two.
    static func durableAppendLatencies(directory: BenchDirectory, rounds: Int) throws -> (
        store: Double, raw: Double
    ) {
        let store = try SQLiteEventStore(path: directory.file("durable.sqlite"))
        let raw = try RawTable(path: directory.file("raw.sqlite"))
        var storeTimes: [Double] = []
        var rawTimes: [Double] = []
        let clock = ContinuousClock()
        var head = try store.head()
        for round in 1...rounds {
            let id = Int64(round)
            let payload = Array(#"{"id":\#(id),"url":"https://example.com/f\#(id).bin"}"#.utf8)
            let event = NewEvent(kind: "tasksAdded", version: 1, tasks: [id], payload: payload)
            storeTimes.append(
                seconds(try clock.measure { head = try store.append([event], expectingHead: head, time: id) })
            )
            rawTimes.append(seconds(try clock.measure { try raw.insert(id: id, payload: payload) }))
        }
        return (median(storeTimes), median(rawTimes))
    }

    private static func report(_ name: String, _ value: Double, _ unit: String, floor: Double?) {
        var line =
            "  " + name.padding(toLength: 39, withPad: " ", startingAt: 0) + " \(format(value)) \(unit)"
        if let floor {
            let ratio = value / floor
            line +=
                "   ratio to floor \(format(floor)): \(String(format: "%.2f", ratio)) (\(ratio >= 1 ? "ok" : "MISSED"))"
        }
        print(line)
    }

    /// Events per second of an append run.
    struct AppendRate {
        var wall: Double
        var cpu: Double
    }

    /// CPU seconds this thread has used.
    static func threadCPUSeconds() -> Double {
        var time = timespec()
        clock_gettime(CLOCK_THREAD_CPUTIME_ID, &time)
        return Double(time.tv_sec) + Double(time.tv_nsec) / 1e9
    }

    static func format(_ value: Double) -> String { String(format: "%.0f", value) }
    static func seconds(_ duration: Duration) -> Double {
        Double(duration.components.seconds) + Double(duration.components.attoseconds) / 1e18
    }
    static func median(_ values: [Double]) -> Double { values.sorted()[values.count / 2] }
}
