import DownloadLedger
import Foundation

/// `ledger-bench transfer-child --list FILE --dir DIR [-j N] [--ledger PATH]`: the library as an application uses
/// it. Opens a fresh ledger, adds every URL of the list in one command (the file appears holding both, as dledger
/// creates one), and runs the scheduler until idle, so the measured figure includes the ledger's appends. Exits 0
/// only when every task finished. `--tick-ms` overrides the scheduler's polling tick, and `LEDGER_BENCH_TRACE=FILE`
/// appends the events with their times to FILE, for diagnosis only: the benchmark runs the library's default.
/// `--checkpoint-ms N` sets how often the scheduler folds the log into the main file (0: never, as before issue 24),
/// for the rows that measure what the periodic checkpoint costs.
enum TransferChild {
    static let usage =
        "usage: ledger-bench transfer-child --list FILE --dir DIR [-j N] [--connections N] [--ledger PATH] [--tick-ms N] [--checkpoint-ms N]"

    static func run(arguments: [String]) async -> Int32 {
        var list: String?
        var directory: String?
        var ledgerPath: String?
        var parallel = 8
        var tick: Duration?
        var connections: Int?
        var checkpoint: Duration?? = .none
        var rest = arguments[...]
        while let flag = rest.popFirst() {
            guard let value = rest.popFirst() else {
                print(usage)
                return 64
            }
            switch flag {
            case "--list": list = value
            case "--dir": directory = value
            case "--ledger": ledgerPath = value
            case "-j":
                guard let n = Int(value), n > 0 else {
                    print("error: -j wants a positive count")
                    return 64
                }
                parallel = n
            case "--connections":
                guard let n = Int(value), (1...64).contains(n) else {
                    print("error: --connections wants a count from 1 to 64")
                    return 64
                }
                connections = n
            case "--tick-ms":
                guard let n = Int(value), n > 0 else {
                    print("error: --tick-ms wants a positive count")
                    return 64
                }
                tick = .milliseconds(n)
            case "--checkpoint-ms":
                guard let n = Int(value), (0...3_600_000).contains(n) else {
                    print("error: --checkpoint-ms wants a count from 0 (never) to 3600000")
                    return 64
                }
                checkpoint = .some(n == 0 ? nil : .milliseconds(n))
            default:
                print(usage)
                return 64
            }
        }
        guard let list, let directory, directory.hasPrefix("/") else {
            print(usage + " (DIR absolute)")
            return 64
        }
        do {
            // Lines split on their bytes: splitting 200 URLs by Character cost about 1.4 ms, charged to this row.
            let bytes = try Data(contentsOf: URL(fileURLWithPath: list))
            let urls = bytes.split(separator: UInt8(ascii: "\n")).map { line in
                String(decoding: line.last == UInt8(ascii: "\r") ? line.dropLast() : line, as: UTF8.self)
            }.filter { !$0.isEmpty }
            let code = try await download(
                urls, into: directory, ledger: ledgerPath ?? directory + ".ledger", parallel: parallel,
                tick: tick, connections: connections, checkpoint: checkpoint)
            // Exits here, as an application does once its work is done, instead of returning to the top level:
            // on Linux that hop to the main actor waits for a dispatch thread (up to ~1 ms at the end of a run).
            // The ledger is closed by now (quiet on disk): `download` released it.
            TransferEngine.waitForWarmUp()
            exit(code)
        } catch {
            print("error: \(error)")
            TransferEngine.waitForWarmUp()
            return 1
        }
    }

    private static func download(
        _ urls: [String], into directory: String, ledger path: String, parallel: Int, tick: Duration?,
        connections: Int?, checkpoint: Duration??
    ) async throws -> Int32 {
        // As `dledger get`: libcurl starts on another thread while the ledger is created with the first command
        // in one go.
        TransferEngine.warmUp()
        let ledger = try Ledger(path: path, creatingWithDirectory: directory, deferringCreation: true)
        try ledger.execute(.add(urls: urls, placement: .end, name: nil, sha256: nil, directory: nil))
        var config = TransferConfig()
        if let connections {
            config.connectionsPerTask = connections
            config.splitAtOnce = true
        }
        let scheduler = try Scheduler(ledger: ledger, config: config, maxDownloads: parallel)
        if let tick { scheduler.tick = tick }
        if case .some(let interval) = checkpoint { scheduler.checkpointInterval = interval }
        try await scheduler.run(untilIdle: true)
        if let path = ProcessInfo.processInfo.environment["LEDGER_BENCH_TRACE"] {
            try trace(ledger, to: path)
        }
        let unfinished = ledger.list.orderedTasks.filter { $0.state != .finished }
        for task in unfinished.prefix(5) {
            print("error: \(task.url) ended \(task.state)")
        }
        return unfinished.isEmpty ? 0 : 1
    }

    /// Diagnosis only (`LEDGER_BENCH_TRACE=FILE`): appends every event to FILE with its commit time, in ms after
    /// the first one.
    private static func trace(_ ledger: Ledger, to path: String) throws {
        let entries = try ledger.log()
        let start = entries.first?.time ?? 0
        var text = "--\n"
        for logged in entries {
            text += "+\(logged.time - start) ms  " + String("\(logged.entry)".prefix(200)) + "\n"
        }
        guard let file = fopen(path, "a") else { return }
        fputs(text, file)
        fclose(file)
    }
}
