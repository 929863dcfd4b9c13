import Foundation

#if canImport(Glibc)
    import Glibc
#endif

/// `ledger-bench rpc`: issue 13's load. While `active` transfers run (each held to `rate` bytes/s by a throttled
/// LoopbackHTTP, so their sum is known), `clients` WebSocket clients poll `tellActive`, `tellWaiting(0, 1000)` and
/// `getGlobalStat` at `hz`; the same on `dledger serve` and on `aria2c --enable-rpc`, rounds interleaved. Each run
/// measures the transfers' throughput in a quiet window (clients connected, silent) and in the loaded window
/// that follows it, so the slowdown is a ratio within one run of one server.
enum RPCBench {
    struct Options {
        var runs = 3
        var clients = [200, 50, 1]
        var hz = 4.0
        var active = 8
        var waiting = 100
        var rate = 2_000_000
        var quiet = 5.0
        var loaded = 8.0
        var parent = ProcessInfo.processInfo.environment["TMPDIR"] ?? "/tmp"
        var servers = RPCTarget.Kind.allCases
    }

    static let usage = """
        usage: ledger-bench rpc [--runs N] [--clients N[,N…]] [--hz N] [--active N] [--waiting N]
                                [--rate BYTES/S] [--quiet S] [--loaded S] [--only dledger|aria2c]
                                [--work PARENT]
        """

    struct Run {
        var p50: Double
        var p99: Double
        var max: Double
        var quietRate: Double
        var loadedRate: Double
        var replies: Int
        var errors: Int
        var unanswered: Int
        var cpu: Double
        /// The server's CPU in the quiet window (its transfers alone).
        var quietCPU: Double
        /// The server's peak resident memory over the run, in bytes.
        var peakRSS: Int
        var slowdown: Double { 1 - loadedRate / quietRate }
    }

    static func run(arguments: [String]) -> Int32 {
        BenchCommand.run(arguments, usage: usage, parse: parse, bench: bench)
    }

    private static func parse(_ arguments: [String]) -> Options? {
        var o = Options()
        var rest = arguments[...]
        while let flag = rest.popFirst() {
            guard let value = rest.popFirst() else { return nil }
            let number = Int(value).flatMap { $0 > 0 && $0 <= 1_000_000_000 ? $0 : nil }
            let seconds = Double(value).flatMap { $0 > 0 && $0 <= 3600 ? $0 : nil }
            switch flag {
            case "--runs": guard let n = number, n <= 100 else { return nil }; o.runs = n
            case "--clients":
                let list = value.split(separator: ",").compactMap { Int($0) }.filter { $0 > 0 && $0 <= 5000 }
                guard !list.isEmpty, list.count == value.split(separator: ",").count else { return nil }
                o.clients = list
            case "--hz": guard let s = seconds, s <= 100 else { return nil }; o.hz = s
            case "--active": guard let n = number, n <= 64 else { return nil }; o.active = n
            case "--waiting": guard let n = number, n <= 100_000 else { return nil }; o.waiting = n
            case "--rate": guard let n = number else { return nil }; o.rate = n
            case "--quiet": guard let s = seconds else { return nil }; o.quiet = s
            case "--loaded": guard let s = seconds else { return nil }; o.loaded = s
            case "--work": o.parent = value
            case "--only":
                guard let kind = RPCTarget.Kind(rawValue: value) else { return nil }
                o.servers = [kind]
            default: return nil
            }
        }
        return o
    }

    static func bench(_ o: Options) throws {
        let dledger = try BenchError.siblingDledger()
        let scratch = o.parent + "/rpc-bench-version"
        print("ledger-bench rpc: \(TransferProcess.firstLine(["aria2c", "--version"], scratch: scratch))")
        print("  load average before: \(loadAverage())")
        let files = try RPCFiles(active: o.active, rate: o.rate, waiting: o.waiting)
        print(
            "  \(o.active) transfers at \(o.rate / 1000) kB/s each, \(o.waiting) waiting; "
                + "\(o.clients.map(String.init).joined(separator: ", ")) WebSocket clients at \(o.hz) Hz; "
                + "windows \(o.quiet) s quiet, \(o.loaded) s loaded; \(o.runs) runs, interleaved")
        var runs: [String: [Run]] = [:]
        for round in 0..<o.runs {
            for clients in o.clients {
                let kinds = round % 2 == 0 ? o.servers : o.servers.reversed()
                for kind in kinds {
                    let r = try measure(kind, clients: clients, urls: files.urls, o, dledger: dledger)
                    runs["\(kind.rawValue) \(clients)", default: []].append(r)
                    print(
                        String(
                            format: "  run %d %@ %4d clients: p50 %6.1f ms p99 %6.1f ms max %6.1f ms, "
                                + "%5.1f → %5.1f MB/s (slowdown %5.1f%%), server CPU %4.2f → %4.2f s/s, %d replies, "
                                + "%d errors, %d unanswered, peak RSS %.1f MiB",
                            round + 1, kind.rawValue.padding(toLength: 7, withPad: " ", startingAt: 0),
                            clients,
                            r.p50 * 1000, r.p99 * 1000, r.max * 1000, r.quietRate / 1e6, r.loadedRate / 1e6,
                            r.slowdown * 100, r.quietCPU, r.cpu, r.replies, r.errors, r.unanswered,
                            Double(r.peakRSS) / 1_048_576))
                }
            }
        }
        files.stop()
        print("  load average after: \(loadAverage())")
        RPCReport.print(runs, o)
    }

    /// One run: the server started with the list, its transfers under way, the quiet then the loaded window.
    static func measure(
        _ kind: RPCTarget.Kind, clients: Int, urls: [String], _ o: Options, dledger: String
    ) throws -> Run {
        let target = try RPCTarget(kind, urls: urls, active: o.active, parent: o.parent, dledger: dledger)
        defer { target.stop() }
        try target.waitForTransfers(o.active)
        usleep(2_000_000)  // past the transfers' start
        let load = try RPCLoad(port: target.port, count: clients)
        defer { load.close() }
        let (_, q0) = try target.activeBytes()
        let t0 = TransferProcess.now()
        let quietCPU0 = target.cpuSeconds()
        usleep(useconds_t(o.quiet * 1e6))
        let (_, q1) = try target.activeBytes()
        let t1 = TransferProcess.now()
        let cpu0 = target.cpuSeconds()
        let quietCPU = (cpu0 - quietCPU0) / (t1 - t0)
        load.run(seconds: o.loaded, hz: o.hz)
        let (_, l1) = try target.activeBytes()
        let t2 = TransferProcess.now()
        let cpu = (target.cpuSeconds() - cpu0) / (t2 - t1)
        let result = load.drain()
        let peakRSS = target.peakRSS()
        let sorted = result.latencies.sorted()
        func percentile(_ p: Double) -> Double {
            sorted.isEmpty ? .nan : sorted[min(sorted.count - 1, Int(Double(sorted.count) * p))]
        }
        return Run(
            p50: percentile(0.5), p99: percentile(0.99), max: sorted.last ?? .nan,
            quietRate: Double(q1 - q0) / (t1 - t0), loadedRate: Double(l1 - q1) / (t2 - t1),
            replies: sorted.count, errors: result.errors, unanswered: result.unanswered, cpu: cpu,
            quietCPU: quietCPU, peakRSS: peakRSS)
    }

    static func loadAverage() -> String {
        let text = (try? String(contentsOfFile: "/proc/loadavg", encoding: .utf8)) ?? "?"
        return text.split(separator: " ").prefix(3).joined(separator: " ")
    }
}
