import DownloadLedger
import Foundation
import LedgerStore

/// What limits one server: concurrent writer processes, and opening a big ledger against SQLite.
extension PostgresBench {
    /// Appends per second of `writers` `ledger-bench postgres-writer` processes, `each` single-event appends each,
    /// on one fresh ledger (every append takes the counter row: they commit one after the other).
    static func writerRate(uri: String, writers: Int, each: Int) throws -> Double {
        let started = ContinuousClock.now
        var processes: [Process] = []
        for _ in 0..<writers {
            let process = Process()
            process.executableURL = URL(fileURLWithPath: "/proc/self/exe").resolvingSymlinksInPath()
            process.arguments = ["postgres-writer", uri, String(each)]
            try process.run()
            processes.append(process)
        }
        for process in processes {
            process.waitUntilExit()
            guard process.terminationStatus == 0 else { throw BenchError("a postgres-writer failed") }
        }
        let elapsed = StoreBench.seconds(ContinuousClock.now - started)
        let head = try PostgresEventStore(uri: uri).head()
        guard head == Int64(writers * each) else { throw BenchError("\(head) events, not \(writers * each)") }
        return Double(head) / elapsed
    }

    /// Median milliseconds to open (read only) a ledger of `tasks` tasks (10 events each, snapshotted by a first
    /// writer, as any command would) in SQLite and the same log copied into PostgreSQL.
    static func openTimes(uri: String, tasks: Int) throws -> (sqlite: Double, postgres: Double) {
        let directory = try BenchDirectory()
        let path = directory.file("open.sqlite")
        _ = try LedgerBench.build(path: path, tasks: tasks)
        _ = try Ledger(path: path)
        _ = try EventStoreCopy.copy(
            from: SQLiteEventStore(path: path, readOnly: true), to: PostgresEventStore(uri: uri),
            destinationName: "bench")
        _ = try Ledger(path: uri)
        let sqlite = try LedgerBench.openSeconds(path: path)
        let postgres = try LedgerBench.openSeconds(path: uri)
        return (sqlite * 1000, postgres * 1000)
    }
}
