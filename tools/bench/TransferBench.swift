import Dispatch
import Foundation

#if canImport(Glibc)
    import Glibc
#endif

/// `ledger-bench transfer`: the transfer targets of issue 3, side by side in one run on loopback.
///
/// Debian's nginx serves one big file and many small ones from a temp directory; ours (the library in a child
/// process: `transfer-child`), curl and aria2c each download them into a fresh directory, every case once per
/// round, rounds interleaved, each workload's clients in an order that turns every round. Each command is measured
/// by wait4 (wall, CPU, peak RSS) and every downloaded file is checked for size and SHA-256 before it is deleted.
/// Prints the medians and the targets as Markdown.
enum TransferBench {
    struct Options {
        var runs = 3
        var bigBytes: Int64 = 1 << 30
        var smallCount = 200
        var smallBytes: Int64 = 1 << 20
        var parallel = 8
        var parent = ProcessInfo.processInfo.environment["TMPDIR"] ?? "/tmp"
        var keep = false
        var workloads: Set<String> = ["big", "small", "slow"]
        var slowBytes: Int64 = 64 << 20
        /// Bytes per second the throttling server sends on each connection.
        var slowRate = 4_000_000
        /// Clients left out (the start of their label), to iterate on one case without the others' time.
        var without: [String] = []
        /// Another build of this benchmark (its path), whose child runs beside ours in the same rounds.
        var base: String?
        /// Also ours without the periodic checkpoint (issue 24 §2), for the ratio of its cost.
        var checkpointCost = false
    }

    static let usage = """
        usage: ledger-bench transfer [--runs N] [--big-mib N] [--small N] [--small-kib N] [-j N]
                                     [--slow-mib N] [--slow-rate BYTES/S] [--only big|small|slow]
                                     [--without CLIENT]... [--base LEDGER-BENCH] [--work PARENT] [--keep]
                                     [--checkpoint-cost]
        """

    static func run(arguments: [String]) -> Int32 {
        BenchCommand.run(arguments, usage: usage, parse: parse, bench: bench)
    }

    private static func parse(_ arguments: [String]) -> Options? {
        var o = Options()
        var rest = arguments[...]
        while let flag = rest.popFirst() {
            if flag == "--keep" {
                o.keep = true
                continue
            }
            if flag == "--checkpoint-cost" {
                o.checkpointCost = true
                continue
            }
            guard let value = rest.popFirst() else { return nil }
            let number = Int64(value).flatMap { $0 > 0 ? $0 : nil }
            switch flag {
            case "--runs": o.runs = Int(number ?? 0)
            case "--big-mib": o.bigBytes = (number ?? 0) << 20
            case "--small": o.smallCount = Int(number ?? 0)
            case "--small-kib": o.smallBytes = (number ?? 0) << 10
            case "-j": o.parallel = Int(number ?? 0)
            case "--slow-mib": o.slowBytes = (number ?? 0) << 20
            case "--slow-rate": o.slowRate = Int(min(number ?? 0, 1 << 40))
            case "--only": o.workloads = [value]
            case "--work": o.parent = value
            case "--without": o.without.append(value)
            case "--base": o.base = value
            default: return nil
            }
        }
        let valid =
            o.runs > 0 && o.bigBytes > 0 && o.smallCount > 0 && o.smallBytes > 0 && o.parallel > 0
            && o.slowBytes > 0 && o.slowRate > 0
        return valid && o.workloads.isSubset(of: ["big", "small", "slow"]) ? o : nil
    }

    private static func bench(_ o: Options) throws {
        var template = Array((o.parent + "/ledger-bench-transfer.XXXXXX").utf8CString)
        guard let made = mkdtemp(&template) else {
            throw TransferBenchError("cannot create a temp dir in \(o.parent)")
        }
        let work = String(cString: made)
        defer {
            if !o.keep { try? FileManager.default.removeItem(atPath: work) }
        }
        let scratch = work + "/scratch.txt"
        printEnvironment(scratch: scratch)
        fflush(nil)
        print("generating \(o.bigBytes >> 20) MiB + \(o.smallCount) × \(o.smallBytes >> 10) KiB in \(work)")
        let fixtures = try TransferFixtures.make(
            root: work + "/www", bigBytes: o.bigBytes, smallCount: o.smallCount, smallBytes: o.smallBytes,
            slowBytes: o.workloads.contains("slow") ? o.slowBytes : 0, scratch: scratch)
        let nginx = try TransferNginx(root: fixtures.root, work: work)
        defer { nginx.stop() }
        let interrupts = cleanUpOnInterrupt(nginx: nginx.pid, work: o.keep ? nil : work)
        defer { interrupts.forEach { $0.cancel() } }

        let throttled = try TransferSlowServer(fixtures: fixtures, rate: o.slowRate)
        defer { throttled.stop() }
        try (throttled.url + "\n").write(toFile: work + "/slow.list", atomically: true, encoding: .utf8)
        let bigURL = nginx.url(fixtures.bigName)
        let smallURLs = fixtures.smallNames.map { nginx.url("small/" + $0) }
        try (bigURL + "\n").write(toFile: work + "/big.list", atomically: true, encoding: .utf8)
        try (smallURLs.joined(separator: "\n") + "\n")
            .write(toFile: work + "/small.list", atomically: true, encoding: .utf8)
        let curlConfig = zip(smallURLs, fixtures.smallNames).map { "url = \"\($0)\"\noutput = \"\($1)\"\n" }
        try curlConfig.joined().write(toFile: work + "/small.curl", atomically: true, encoding: .utf8)

        let cases = TransferCase.all(
            bench: try executablePath(), parallel: o.parallel, bigURL: bigURL, bigList: work + "/big.list",
            smallList: work + "/small.list", curlConfig: work + "/small.curl", slowURL: throttled.url,
            slowList: work + "/slow.list",
            served: (fixtures.root, fixtures.bigName, fixtures.smallNames.map { "small/" + $0 }),
            base: o.base,
            checkpointCost: o.checkpointCost
        ).filter { c in
            o.workloads.contains("\(c.workload)") && !o.without.contains { c.label.hasPrefix($0) }
        }
        let expected: [TransferCase.Workload: [String: String]] = [
            .big: [fixtures.bigName: fixtures.bigName],
            .small: Dictionary(uniqueKeysWithValues: fixtures.smallNames.map { ($0, "small/" + $0) }),
            .slow: [fixtures.slowName: fixtures.slowName],
        ]
        var results: [TransferCase.Key: [TransferMeasurement]] = [:]
        let directory = work + "/downloads"
        for round in 1...o.runs {
            for c in rotated(cases, by: round - 1) {
                try reset(directory)
                sync()
                let m = try TransferProcess.measure(c.command(directory), log: work + "/run.log")
                try fixtures.verify(directory: directory, expected: expected[c.workload]!, scratch: scratch)
                try fixtures.verifyDigests(printed: work + "/run.log", of: c.hashed)
                results[c.key, default: []].append(m)
                let label = c.label.padding(toLength: 34, withPad: " ", startingAt: 0)
                print(
                    "run \(round)  \(label)"
                        + String(
                            format: "wall %7.3f s  cpu %7.3f s  rss %6.1f MB", m.wall, m.cpu,
                            Double(m.peakRSS) / 1e6))
                fflush(nil)  // progress shows live even when stdout is a file
            }
        }
        try reset(directory, recreate: false)
        let report = TransferReport(
            results: results, labels: Dictionary(uniqueKeysWithValues: cases.map { ($0.key, $0.label) }),
            bigBytes: o.bigBytes, smallCount: o.smallCount, smallBytes: o.smallBytes, slowBytes: o.slowBytes,
            slowRate: o.slowRate, runs: o.runs)
        print("")
        print(report.render())
    }

    /// The cases of each workload in an order that turns by one every round (workloads keep their order), so no
    /// client always runs right after the same other one: what one leaves behind (page cache, memory the VM
    /// took back, files just deleted) falls on each in turn.
    static func rotated(_ cases: [TransferCase], by turn: Int) -> [TransferCase] {
        var order: [TransferCase] = []
        var start = 0
        while start < cases.count {
            var end = start
            while end < cases.count && cases[end].workload == cases[start].workload { end += 1 }
            let group = Array(cases[start..<end])
            let shift = turn % group.count
            order += group[shift...] + group[..<shift]
            start = end
        }
        return order
    }

    /// Removes the download directory and our ledger files beside it, then (by default) makes it anew.
    private static func reset(_ directory: String, recreate: Bool = true) throws {
        let files = FileManager.default
        for suffix in ["", ".ledger", ".ledger-wal", ".ledger-shm", ".ledger.lock", ".curl-log"] {
            if files.fileExists(atPath: directory + suffix) {
                try files.removeItem(atPath: directory + suffix)
            }
        }
        if recreate { try files.createDirectory(atPath: directory, withIntermediateDirectories: false) }
    }

    /// This binary, so the child runs exactly the build under test.
    private static func executablePath() throws -> String {
        var buffer = [CChar](repeating: 0, count: 4096)
        let n = readlink("/proc/self/exe", &buffer, buffer.count - 1)
        guard n > 0 else { throw TransferBenchError("cannot find this executable") }
        return String(decoding: buffer[..<n].map { UInt8(bitPattern: $0) }, as: UTF8.self)
    }

    private static func printEnvironment(scratch: String) {
        print(
            "transfer benchmark: loopback, nginx sendfile, \(ProcessInfo.processInfo.activeProcessorCount) CPUs"
        )
        for argv in [["uname", "-sr"], ["nginx", "-v"], ["curl", "--version"], ["aria2c", "--version"]] {
            print("  " + TransferProcess.firstLine(argv, scratch: scratch))
        }
    }

    /// On SIGINT/SIGTERM: stop nginx, remove the work directory, exit 130.
    private static func cleanUpOnInterrupt(nginx: pid_t, work: String?) -> [any DispatchSourceSignal] {
        [SIGINT, SIGTERM].map { number in
            signal(number, SIG_IGN)
            let source = DispatchSource.makeSignalSource(signal: number, queue: .global())
            source.setEventHandler {
                kill(nginx, SIGTERM)
                if let work { try? FileManager.default.removeItem(atPath: work) }
                exit(130)
            }
            source.resume()
            return source
        }
    }
}
