import DownloadLedger
import Foundation
import LedgerUI

/// `ledger-bench ui`: what a screen update of `dledger ui` costs with 100,000 tasks against 100 (only the visible
/// rows are formatted, the counts follow the events, so the two should cost about the same), and the CPU an idle
/// `dledger ui` uses (UIBench+Idle.swift).
enum UIBench {
    static func run(arguments: [String]) throws {
        let big = Int(arguments.first ?? "") ?? 100_000
        guard big >= 100, big <= 10_000_000 else { throw BenchError("tasks: 100 to 10,000,000") }
        let root = NSTemporaryDirectory() + "ledger-bench-ui-\(getpid())"
        try FileManager.default.createDirectory(atPath: root, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(atPath: root) }
        var cases: [Int: Case] = [:]
        for n in [100, big] {
            let path = "\(root)/\(n).sqlite"
            _ = try LedgerBench.build(path: path, tasks: n)
            cases[n] = try Case(path: path, tasks: n)
        }
        print("screen update, 120x40, medians of 5 interleaved rounds (the machine is shared: loaded)")
        var figures: [Int: [String: [Double]]] = [:]
        for _ in 0..<5 {
            for n in [100, big] {
                for (name, value) in try cases[n]!.round() {
                    figures[n, default: [:]][name, default: []].append(value)
                }
            }
        }
        let names = [
            ("tick", "progress tick (activity only)"),
            ("event", "another process's event, manual list: refresh, log, model, lines"),
            ("model", "  of which the screen model (counts, rows, lines)"),
            ("sortedEvent", "same, the list sorted by time added"),
            ("sortedChange", "an add or a delete in the sorted view: refresh, log, model, lines"),
            ("rename", "a rename in the name sort"),
            ("resolved", "a size resolved in the size sort"),
            ("finishedAgain", "a redownload, then its completion, in the sort by completion time"),
            ("restore", "a restore from the to-delete list, sorted by time added"),
            ("manualFiltered", "an add or a delete in the manual list filtered (unfinished)"),
            ("move", "a move between sections in the manual list filtered (finished: all shown)"),
            ("rebuild", "a sorted view indexed again (a sort changed)"),
        ]
        for (key, words) in names {
            let a = StoreBench.median(figures[100]![key]!)
            let b = StoreBench.median(figures[big]![key]!)
            var model = ""
            if let ma = figures[100]![key + ".model"], let mb = figures[big]![key + ".model"] {
                model = "; the screen model \(ms(StoreBench.median(ma))) / \(ms(StoreBench.median(mb))) ms"
            }
            print(
                "  \(words): \(ms(a)) ms with 100 tasks, \(ms(b)) ms with \(big) (ratio \(ratio(b, a)))\(model)"
            )
        }
        try idle(root: root, big: big)
    }

    /// One ledger of `tasks` finished tasks, a writer standing for another process, and the screen's ledger.
    final class Case {
        let writer: Ledger
        let reader: Ledger
        var model = UIModel(color: true)
        /// The task whose transfer the writer fails and starts again, in the middle of the list (on screen).
        let task: TaskID
        var failed = false

        init(path: String, tasks: Int) throws {
            writer = try Ledger(path: path)
            reader = try Ledger(path: path, readOnly: true)
            task = TaskID(tasks / 2)
            model.resize(columns: 120, rows: 40)
            model.setList(reader.list)
            for _ in 0..<(tasks / 2 / 37) { _ = model.handle(.pageDown) }
        }

        /// The next fact of a retried transfer (failed, started again), by the other process: not timed.
        func nextFact() throws {
            failed.toggle()
            let failure = TaskFailure(code: "timeout", detail: "no data for 30 s", retryable: true)
            try writer.record(
                failed
                    ? .transferFailed(id: task, failure: failure, bytes: 1000)
                    : .transferStarted(id: task, attempt: 2, offset: 1000))
        }

        /// What the screen does when the other process appended: timed whole, and its model part alone.
        func follow() throws -> (all: Double, model: Double) {
            var modelTime = Duration.zero
            let all = try ContinuousClock().measure {
                // As `dledger ui` does: the screen lets go of its list while the ledger folds.
                model.releaseList()
                _ = try reader.refresh()
                let list = reader.list
                let from = model.shownHead
                let entries = try reader.log(after: from, limit: Int(list.head - from))
                modelTime = ContinuousClock().measure {
                    model.setList(list, after: entries)
                    _ = model.lines()
                }
            }
            return (StoreBench.seconds(all), StoreBench.seconds(modelTime))
        }

        func round() throws -> [String: Double] {
            var out: [String: Double] = [:]
            out["tick"] = try LedgerBench.medianSeconds(100) {
                model.setActivity([TransferActivity(id: task, bytes: 1, expected: 9, speed: 1, eta: 1)])
                _ = model.lines()
            }
            model.setActivity([])
            var all: [Double] = []
            var modelOnly: [Double] = []
            for _ in 0..<50 {
                try nextFact()
                let t = try follow()
                all.append(t.all)
                modelOnly.append(t.model)
            }
            out["event"] = StoreBench.median(all)
            out["model"] = StoreBench.median(modelOnly)
            try writer.execute(.sort(.added, descending: false))
            _ = try follow()
            var sorted: [Double] = []
            for _ in 0..<50 {
                try nextFact()
                sorted.append(try follow().all)
            }
            out["sortedEvent"] = StoreBench.median(sorted)
            // An add, then its delete (to the to-delete list), by the other process, while the view is sorted.
            var changes: [Double] = []
            var changeModels: [Double] = []
            func follows() throws {
                let t = try follow()
                changes.append(t.all)
                changeModels.append(t.model)
            }
            for _ in 0..<5 {
                let id = writer.list.nextID
                try writer.execute(
                    .add(
                        urls: ["https://example.com/ui-bench-\(id).bin"], placement: .end, name: nil,
                        sha256: nil,
                        directory: nil))
                try follows()
                try writer.execute(.delete(.tasks([id]), mode: .record))
                try follows()
            }
            out["sortedChange"] = StoreBench.median(changes)
            out["sortedChange.model"] = StoreBench.median(changeModels)
            let list = reader.list
            out["rebuild"] = try LedgerBench.medianSeconds(5) {
                _ = RowIndex(list: list, filter: .all, now: list.headTime, utcOffsetSeconds: 0)
            }
            try writer.execute(.sort(.manual, descending: false))
            _ = try follow()
            out.merge(try reorderRound()) { a, _ in a }
            return out
        }
    }

    static func ms(_ s: Double) -> String { String(format: "%.3f", s * 1000) }
    static func pct(_ f: Double) -> String { String(format: "%.2f", f * 100) }
    static func ratio(_ a: Double, _ b: Double) -> String { String(format: "%.2f", a / b) }
}
