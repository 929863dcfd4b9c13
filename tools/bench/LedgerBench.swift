import DownloadLedger
import Foundation

/// `ledger-bench ledger`: replay, snapshot open and projection memory, each against its floor, in one run.
enum LedgerBench {
    static let replayFloor = 1_000_000.0
    static let replayToScanCeiling = 4.0
    static let openShareCeiling = 0.05
    static let memoryCeilingMB = 100.0

    static func run(arguments: [String]) throws {
        let tasks = arguments.first.flatMap(Int.init) ?? 100_000
        let directory = try BenchDirectory()
        let path = directory.file("ledger.sqlite")
        let events = try build(path: path, tasks: tasks)
        print("  built a ledger of \(events) events over \(tasks) tasks")

        // One replay to make the snapshot, then five rounds of (raw scan, replay, open in a fresh process): each
        // figure is the median of its five, taken across the same span, so that a slow or lucky moment of this
        // shared machine moves a ratio's two sides together instead of deciding it.
        let (_, _, list) = try replay(path: path)
        // Save the snapshot and close the writer, as any dledger command does: the ledger is then at rest
        // (its write-ahead log checkpointed), which is how a later command finds it.
        try {
            let store = try SQLiteEventStore(path: path)
            try store.saveSnapshot(
                seq: list.head, reducerVersion: DownloadList.reducerVersion, bytes: list.snapshotBytes())
        }()
        var scans: [Double] = []
        var replays: [Double] = []
        var opens: [Double] = []
        for _ in 0..<5 {
            scans.append(try StoreBench.rawScanRate(path: path))
            replays.append(try replay(path: path).1)
            // In a fresh process, as a dledger command would open it (this one holds a 100,000-task list).
            opens.append(try childMilliseconds(["open", path]) / 1000)
        }
        let scan = StoreBench.median(scans)
        let replaySeconds = StoreBench.median(replays)
        let replayRate = Double(events) / replaySeconds
        let open = StoreBench.median(opens)
        print(
            "  replay from zero (decode + reduce)     \(StoreBench.format(replayRate)) events/s"
                + "   floor \(StoreBench.format(replayFloor)): \(verdict(replayRate >= replayFloor))")
        let ratio = scan / replayRate
        print(
            "  raw SQLite scan of the same table      \(StoreBench.format(scan)) rows/s"
                + "   scan/replay \(String(format: "%.2f", ratio)) (ceiling \(replayToScanCeiling)):"
                + " \(verdict(ratio <= replayToScanCeiling))")
        let share = open / replaySeconds
        print(
            "  open with snapshot                     \(String(format: "%.1f", open * 1000)) ms"
                + " = \(String(format: "%.1f", share * 100))% of full replay (\(String(format: "%.0f", replaySeconds * 1000)) ms),"
                + " ceiling 5%: \(verdict(share <= openShareCeiling))")

        let dledger = URL(fileURLWithPath: CommandLine.arguments[0]).deletingLastPathComponent()
            .appendingPathComponent("dledger").path
        if FileManager.default.isExecutableFile(atPath: dledger) {
            for arguments in [["ls"], ["ls", "--json"], ["stats"]] {
                let wall = try medianSeconds(3) { try runQuietly(dledger, arguments + ["--ledger", path]) }
                let command = (["dledger"] + arguments).joined(separator: " ")
                // Issue 4's target is for `dledger ls`; the others are figures beside it.
                let target = arguments == ["ls"] ? " (target well under 1 s): \(verdict(wall < 1))" : ""
                print(
                    "  \(command.padding(toLength: 38, withPad: " ", startingAt: 0)) \(String(format: "%.0f", wall * 1000)) ms"
                        + target)
            }
        } else {
            print("  dledger ls: build it first (swift build -c release --product dledger)")
        }

        let peak = try childPeakRSS(["rss-replay", path])
        print(
            "  peak RSS, replaying \(tasks) tasks from zero: \(String(format: "%.1f", peak)) MB"
                + " (ceiling \(Int(memoryCeilingMB)) MB): \(verdict(peak <= memoryCeilingMB))")
    }

    static func verdict(_ ok: Bool) -> String { ok ? "ok" : "MISSED" }

    /// A log a downloader would write: each task added once, then started, resolved, paused and resumed a few
    /// times, and completed (10 events per task), appended 1,000 per transaction.
    static func build(path: String, tasks: Int) throws -> Int {
        let store = try SQLiteEventStore(path: path)
        var head = try store.head()
        var batch: [NewEvent] = []
        var time: Int64 = 1_790_000_000_000
        func push(_ event: Event) throws {
            let entry = Entry(event)
            batch.append(
                NewEvent(
                    kind: event.kind, version: Event.payloadVersion, tasks: event.taskIDs,
                    payload: entry.encodedPayload()))
            if batch.count == 1000 {
                time += 1000
                head = try store.append(batch, expectingHead: head, time: time)
                batch.removeAll(keepingCapacity: true)
            }
        }
        try push(.ledgerCreated(directory: "/srv/downloads", maxDownloads: 4))
        for id in 1...Int64(tasks) {
            try push(
                .tasksAdded(
                    tasks: [
                        NewTask(
                            id: id, url: "https://mirror.example.org/pub/file-\(id).iso",
                            directory: "/srv/downloads")
                    ],
                    section: 0, index: Int(id - 1), newSectionTitle: id == 1 ? "Downloads" : nil))
        }
        for id in 1...Int64(tasks) {
            let size = 1_000_000 + id * 37
            try push(.transferStarted(id: id, attempt: 1, offset: 0))
            try push(
                .transferResolved(
                    id: id, size: size, serverName: nil, validator: "\"etag-\(id)\"", acceptsRanges: true,
                    restartedFromZero: nil))
            for step in 1...3 {
                try push(.transferPaused(id: id, bytes: size / 4 * Int64(step)))
                try push(.transferStarted(id: id, attempt: 1, offset: size / 4 * Int64(step)))
            }
            try push(
                .transferCompleted(
                    id: id, bytes: size, sha256: String(repeating: "ab", count: 32),
                    fileName: "file-\(id).iso"))
        }
        if !batch.isEmpty { head = try store.append(batch, expectingHead: head, time: time + 1000) }
        return Int(head)
    }

    /// Decodes and folds the whole log with no snapshot: events/s, seconds, and the list.
    static func replay(path: String) throws -> (Double, Double, DownloadList) {
        let store = try SQLiteEventStore(path: path, readOnly: true)
        var list = DownloadList()
        var count = 0
        let elapsed = try ContinuousClock().measure {
            try store.scan(after: 0, through: nil) { view in
                let entry = try Entry.decode(kind: view.kind, payload: view.payload)
                list.apply(LoggedEntry(seq: view.seq, time: view.time, entry: entry))
                count += 1
            }
        }
        let seconds = StoreBench.seconds(elapsed)
        return (Double(count) / seconds, seconds, list)
    }

    /// Median time to open the ledger read-only (snapshot + tail); each ledger is freed after its timing.
    static func openSeconds(path: String) throws -> Double {
        var times: [Double] = []
        for _ in 0..<5 {
            var kept: Ledger?
            times.append(
                StoreBench.seconds(
                    try ContinuousClock().measure { kept = try Ledger(path: path, readOnly: true) }))
            precondition(kept?.list.tasks.isEmpty == false)
            kept = nil
        }
        return StoreBench.median(times)
    }

    static func medianSeconds(_ rounds: Int, _ body: () throws -> Void) throws -> Double {
        var times: [Double] = []
        for _ in 0..<rounds { times.append(StoreBench.seconds(try ContinuousClock().measure(body))) }
        return StoreBench.median(times)
    }

    /// Runs a command with its output discarded; throws when it fails.
    static func runQuietly(_ executable: String, _ arguments: [String]) throws {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: executable)
        process.arguments = arguments
        process.standardOutput = FileHandle.nullDevice
        try process.run()
        process.waitUntilExit()
        guard process.terminationStatus == 0 else { throw BenchError("\(executable) \(arguments) failed") }
    }

    /// Runs this binary with `arguments` and returns the milliseconds it printed first.
    static func childMilliseconds(_ arguments: [String]) throws -> Double {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: CommandLine.arguments[0])
        process.arguments = arguments
        let pipe = Pipe()
        process.standardOutput = pipe
        try process.run()
        let data = pipe.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        let text = String(decoding: data, as: UTF8.self)
        guard let ms = text.split(separator: " ").first.flatMap({ Double($0) }) else {
            throw BenchError("child printed no time: \(text)")
        }
        return ms
    }

    /// Runs this binary with `arguments` and returns the peak RSS (VmHWM) it printed, in MB.
    static func childPeakRSS(_ arguments: [String]) throws -> Double {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: CommandLine.arguments[0])
        process.arguments = arguments
        let pipe = Pipe()
        process.standardOutput = pipe
        try process.run()
        let data = pipe.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        guard
            let kb = Double(
                String(decoding: data, as: UTF8.self).trimmingCharacters(in: .whitespacesAndNewlines))
        else { throw BenchError("child printed no RSS") }
        return kb / 1024
    }

    /// In a child process: replay the ledger from zero, then print the peak RSS in kB.
    static func rssReplay(path: String) throws {
        let (_, _, list) = try replay(path: path)
        precondition(!list.tasks.isEmpty)
        print(peakRSSKilobytes())
    }

    static func peakRSSKilobytes() -> Int {
        let status = (try? String(contentsOfFile: "/proc/self/status", encoding: .utf8)) ?? ""
        let line = status.split(separator: "\n").first { $0.hasPrefix("VmHWM:") } ?? ""
        return Int(line.split(separator: " ").dropFirst().first ?? "0") ?? 0
    }
}
