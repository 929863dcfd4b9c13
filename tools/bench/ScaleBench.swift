import DownloadLedger
import Foundation

/// `ledger-bench scale`: start-up and memory of `dledger` at any history shape, each against its floor in the
/// same run (issue 10 §5).
///
/// Three ledgers of the same number of tasks, built the ways a user builds them (one add of every URL; adds of
/// 1,000; a downloader's 10 events per task), and a ledger of one task as the floor (an empty ledger has no task
/// to audit). Every command runs as a fresh process under GNU time (wall, CPU, peak RSS from the kernel), the four
/// ledgers in turn within each round, so that a busy moment of the machine moves both sides of a ratio.
enum ScaleBench {
    static let startupCeiling = 3.0
    static let statsToVersionCeiling = 3.0
    static let rssCeilingMB = 100.0
    static let millionRSSCeilingMB = 1024.0
    static let millionSecondsCeiling = 10.0

    struct Shape {
        var name: String
        var path: String
        var auditID: Int
        /// The section `ls --section` shows.
        var section = 0
        /// That section holds every task (the downloader's log of 10 events a task): `ls --section` then prints the
        /// whole list, and is held to `ls` of the same ledger rather than to the 1-task floor.
        var sectionIsWholeList = false
    }

    struct Run {
        var dledger: String
        var directory: BenchDirectory
        /// The binary that writes the big lists (`--written-by`: another build's, such as main's); ours by default.
        var writer: String?

        func measure(_ arguments: [String]) throws -> TransferMeasurement {
            try TransferProcess.measure([dledger] + arguments, log: directory.file("out.log"))
        }

        /// Runs the writer's `dledger` (building a ledger).
        func write(_ arguments: [String]) throws -> TransferMeasurement {
            try TransferProcess.measure([writer ?? dledger] + arguments, log: directory.file("out.log"))
        }
    }

    static func run(arguments: [String]) throws {
        let tasks = arguments.first.flatMap(Int.init) ?? 100_000
        let rounds = 5
        let dledger = try BenchError.siblingDledger()
        let run = Run(dledger: dledger, directory: try BenchDirectory())
        var shapes = try build(tasks: tasks, run)
        var bases = Array(shapes[1...2])
        // The same big lists written by another build (main's): what a ledger of today's users holds.
        if let i = arguments.firstIndex(of: "--written-by"), i + 1 < arguments.count {
            var other = run
            other.writer = arguments[i + 1]
            let lists = try buildLists(tasks: tasks, other, tag: "main")
            shapes += lists
            bases += lists
        }
        for base in bases {
            for count in tails {
                shapes.append(
                    try withTail(base, count: count, tasks: tasks, sections: base.section + 1, run))
            }
        }
        print(
            "  built: each base followed by \(tails.map(String.init).joined(separator: ", ")) small events"
        )
        try startup(shapes, rounds: rounds, run)
        try statsAgainstVersion(shapes, rounds: rounds, run)
        print("  peak RSS on \(tasks) tasks (ceiling \(Int(rssCeilingMB)) MB):")
        for arguments in [["ls"], ["verify", "--skip-files"], ["export"]] {
            var line =
                "    " + arguments.joined(separator: " ").padding(toLength: 20, withPad: " ", startingAt: 0)
            for shape in shapes.dropFirst() {
                let mb = megabytes(try run.measure(arguments + ["--ledger", shape.path]).peakRSS)
                line +=
                    " \(shape.name) \(String(format: "%.0f", mb)) MB \(LedgerBench.verdict(mb <= rssCeilingMB));"
            }
            print(line)
        }
        if !arguments.contains("--no-million") { try million(run) }
    }

    /// Medians of `rounds` rounds of each command on each ledger, and each shape's ratio to the floor; `ls` and
    /// `export` print the whole list, so they are also compared with the same list without a tail (they may grow
    /// with what they print, not with the history).
    static func startup(_ shapes: [Shape], rounds: Int, _ run: Run) throws {
        print(
            "  start-up, median of \(rounds) rounds, wall (CPU); ratio to the 1-task ledger, ceiling \(startupCeiling)x:"
        )
        let commands: [(String, (Shape) -> [String])] = [
            ("stats", { _ in ["stats"] }), ("log --first 1", { _ in ["log", "--first", "1"] }),
            ("log --limit 1", { _ in ["log", "--limit", "1"] }),
            ("audit ID", { ["audit", "\($0.auditID)"] }),
            ("ls --section N", { ["ls", "--section", "\($0.section)"] }),
            ("ls", { _ in ["ls"] }), ("export", { _ in ["export"] }),
        ]
        var wall: [String: [Double]] = [:]
        var cpu: [String: [Double]] = [:]
        for _ in 0..<rounds {
            for (name, arguments) in commands {
                for shape in shapes {
                    let m = try run.measure(arguments(shape) + ["--ledger", shape.path])
                    wall["\(name)|\(shape.name)", default: []].append(m.wall)
                    cpu["\(name)|\(shape.name)", default: []].append(m.cpu)
                }
            }
        }
        for (name, _) in commands {
            let whole = name == "ls" || name == "export"
            let base = StoreBench.median(wall["\(name)|\(shapes[0].name)"]!)
            let baseCPU = StoreBench.median(cpu["\(name)|\(shapes[0].name)"]!)
            print("    \(name): \(shapes[0].name) \(ms(base)) (\(ms(baseCPU)))")
            for shape in shapes.dropFirst() {
                let t = StoreBench.median(wall["\(name)|\(shape.name)"]!)
                let c = StoreBench.median(cpu["\(name)|\(shape.name)"]!)
                var line =
                    "      \(shape.name.padding(toLength: 24, withPad: " ", startingAt: 0)) \(ms(t)) (\(ms(c)))"
                if name == "ls --section N" && shape.sectionIsWholeList,
                    let list = wall["ls|\(shape.name)"]
                {
                    line +=
                        "  its section is the whole list: \(ratio(t / StoreBench.median(list), 1.5)) its ls"
                } else if whole {
                    line += "  \(String(format: "%.2f", t / base))x the 1-task ledger"
                    if let plus = shape.name.range(of: " +"),
                        let untailed = wall["\(name)|\(shape.name[..<plus.lowerBound])"]
                    {
                        line += ", \(ratio(t / StoreBench.median(untailed), 1.5)) without the tail"
                    }
                } else {
                    line += "  \(ratio(t / base, startupCeiling))"
                }
                print(line + " (CPU \(String(format: "%.2f", c / baseCPU))x)")
            }
        }
    }

    /// `stats` on each ledger against the bare start-up of the binary, alternating.
    static func statsAgainstVersion(_ shapes: [Shape], rounds: Int, _ run: Run) throws {
        var version: [Double] = []
        var versionCPU: [Double] = []
        var stats: [String: (wall: [Double], cpu: [Double])] = [:]
        for _ in 0..<rounds {
            let v = try run.measure(["--version"])
            version.append(v.wall)
            versionCPU.append(v.cpu)
            for shape in shapes {
                let s = try run.measure(["stats", "--ledger", shape.path])
                stats[shape.name, default: ([], [])].wall.append(s.wall)
                stats[shape.name, default: ([], [])].cpu.append(s.cpu)
            }
        }
        let v = StoreBench.median(version)
        let vc = StoreBench.median(versionCPU)
        print("  dledger stats vs dledger --version \(ms(v)) (\(ms(vc))), ceiling \(statsToVersionCeiling)x:")
        for shape in shapes {
            let s = StoreBench.median(stats[shape.name]!.wall)
            let c = StoreBench.median(stats[shape.name]!.cpu)
            print(
                "    \(shape.name.padding(toLength: 24, withPad: " ", startingAt: 0)) \(ms(s)) (\(ms(c)))"
                    + "  \(ratio(s / v, statsToVersionCeiling)) (CPU \(String(format: "%.2f", c / vc))x)")
        }
    }

    /// The 1-task floor, then one add of `tasks` URLs, adds of 1,000, and the downloader's log of 10 events a
    /// task (snapshotted by the first writer that opens it, as any dledger command would).
    static func build(tasks: Int, _ run: Run) throws -> [Shape] {
        let directory = run.directory
        let floor = Shape(name: "1 task", path: directory.file("floor.sqlite"), auditID: 1)
        try writeURLs(directory.file("one.txt"), range: 1...1, prefix: "https://mirror.example.org/one")
        _ = try run.measure(["add", "--from-file", directory.file("one.txt"), "--ledger", floor.path, "-q"])
        let lists = try buildLists(tasks: tasks, run, tag: nil)

        let events = Shape(
            name: "10 events a task", path: directory.file("events.sqlite"), auditID: tasks / 2,
            sectionIsWholeList: true)
        let count = try LedgerBench.build(path: events.path, tasks: tasks)
        _ = try run.measure(["limit", "5", "--ledger", events.path])
        print("  built: \(count) events over \(tasks) tasks, snapshotted by 'dledger limit 5'")
        return [floor] + lists + [events]
    }

    /// One add of `tasks` URLs, and adds of 1,000 in seven sections, each with a small section of ten after the
    /// big ones; written by `run`'s writer, named with `tag` (another build's).
    static func buildLists(tasks: Int, _ run: Run, tag: String?) throws -> [Shape] {
        let directory = run.directory
        let suffix = tag.map { " (\($0))" } ?? ""
        let file = tag.map { "-\($0)" } ?? ""
        var oneAdd = Shape(
            name: "one add\(suffix)", path: directory.file("one-add\(file).sqlite"), auditID: tasks / 2)
        try writeURLs(
            directory.file("all.txt"), range: 1...tasks, prefix: "https://mirror.example.org/pub/all")
        let add = try run.write([
            "add", "--from-file", directory.file("all.txt"), "--ledger", oneAdd.path, "-q",
        ])
        print(
            "  built\(suffix): one add of \(tasks) URLs in \(String(format: "%.2f", add.wall)) s,"
                + " peak RSS \(String(format: "%.0f", megabytes(add.peakRSS))) MB")

        var batches = Shape(
            name: "adds of 1,000\(suffix)", path: directory.file("batches\(file).sqlite"), auditID: tasks / 2)
        let titles = ["Linux", "Media", "Documents", "Games", "Music", "Books", "Other"]
        var slowest = 0.0
        for start in stride(from: 1, through: tasks, by: 1000) {
            let file = directory.file("batch.txt")
            try writeURLs(
                file, range: start...min(tasks, start + 999), prefix: "https://mirror.example.org/pub/b")
            slowest = max(
                slowest,
                try run.write([
                    "add", "--from-file", file, "--section", titles[(start / 1000) % titles.count],
                    "--ledger",
                    batches.path, "-q",
                ]).wall)
        }
        print(
            "  built\(suffix): \((tasks + 999) / 1000) adds of 1,000 URLs in 7 sections, the slowest \(String(format: "%.2f", slowest)) s"
        )
        // A small section of ten beside the big ones, the one `ls --section` shows: it prints ten rows whatever
        // the list and its history.
        try writeURLs(directory.file("later.txt"), range: 1...10, prefix: "https://mirror.example.org/later")
        for shape in [oneAdd, batches] {
            _ = try run.write([
                "add", "--from-file", directory.file("later.txt"), "--new-section", "Later", "--ledger",
                shape.path, "-q",
            ])
        }
        oneAdd.section = 1
        batches.section = 7
        return [oneAdd, batches]
    }

    /// One add of a million URLs into a new ledger: wall time and peak RSS; then later commands on it.
    static func million(_ run: Run) throws {
        let file = run.directory.file("million.txt")
        try writeURLs(file, range: 1...1_000_000, prefix: "https://mirror.example.org/pub/million")
        let path = run.directory.file("million.sqlite")
        let add = try run.measure(["add", "--from-file", file, "--ledger", path, "-q"])
        let mb = megabytes(add.peakRSS)
        print(
            "  add --from-file of 1,000,000 URLs: \(String(format: "%.2f", add.wall)) s"
                + " (CPU \(String(format: "%.2f", add.cpu)) s; ceiling \(Int(millionSecondsCeiling)) s)"
                + " \(LedgerBench.verdict(add.wall <= millionSecondsCeiling)),"
                + " peak RSS \(String(format: "%.0f", mb)) MB (ceiling \(Int(millionRSSCeilingMB)) MB)"
                + " \(LedgerBench.verdict(mb <= millionRSSCeilingMB))")
        for arguments in [
            ["stats"], ["log", "--first", "1"], ["log", "--limit", "1"], ["audit", "500000"], ["ls"],
            ["pause", "1"],
        ] {
            let m = try run.measure(arguments + ["--ledger", path])
            print(
                "    then \(arguments.joined(separator: " ")): \(ms(m.wall)) (CPU \(ms(m.cpu))),"
                    + " peak RSS \(String(format: "%.0f", megabytes(m.peakRSS))) MB")
        }
    }

    static func writeURLs(_ path: String, range: ClosedRange<Int>, prefix: String) throws {
        var text = ""
        text.reserveCapacity(range.count * (prefix.count + 16))
        for n in range { text += "\(prefix)/file-\(n).iso\n" }
        try text.write(toFile: path, atomically: false, encoding: .utf8)
    }

    static func megabytes(_ bytes: Int64) -> Double { Double(bytes) / 1_048_576 }

    static func ms(_ seconds: Double) -> String { String(format: "%.1f ms", seconds * 1000) }

    static func ratio(_ value: Double, _ ceiling: Double) -> String {
        "\(String(format: "%.2f", value))x \(LedgerBench.verdict(value <= ceiling))"
    }
}
