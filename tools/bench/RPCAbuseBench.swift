import Foundation
import Synchronization

#if canImport(Glibc)
    import Glibc
#endif

/// `ledger-bench rpc-abuse`: issue 26's hostile clients. For each abuse (``RPCAbuser``), `dledger serve` and
/// `aria2c --enable-rpc`, both under the same descriptor limit and list, are abused by one client for a window,
/// while another client asks `tellActive` over its own keep-alive connection ten times a second; the bench
/// reports that client's reply times, its errors, whether the server survived, and the server's peak RSS.
enum RPCAbuseBench {
    struct Options {
        var runs = 3
        var window = 8.0
        var descriptors = 1024
        var parent = ProcessInfo.processInfo.environment["TMPDIR"] ?? "/tmp"
        var servers = RPCTarget.Kind.allCases
        var abusers = RPCAbuser.allCases
    }

    struct Run {
        var p50: Double
        var p99: Double
        var max: Double
        var replies: Int
        var errors: Int
        var abuse: Int
        var survived: Bool
        var peakRSS: Int
        /// Seconds from a new client's connect to its first reply, asked near the end of the abuse; nil when it
        /// got none.
        var newClient: Double?
    }

    static let usage = """
        usage: ledger-bench rpc-abuse [--runs N] [--window S] [--descriptors N] [--only dledger|aria2c]
                                      [--abuse none|flood|nested|huge|slow|batch[,…]] [--work PARENT]
        """

    static let p99Target = 0.050

    static func run(arguments: [String]) -> Int32 {
        BenchCommand.run(arguments, usage: usage, parse: parse, bench: bench)
    }

    private static func parse(_ arguments: [String]) -> Options? {
        var o = Options()
        var rest = arguments[...]
        while let flag = rest.popFirst() {
            guard let value = rest.popFirst() else { return nil }
            let number = Int(value).flatMap { $0 > 0 && $0 <= 1_000_000 ? $0 : nil }
            switch flag {
            case "--runs": guard let n = number, n <= 100 else { return nil }; o.runs = n
            case "--window":
                guard let s = Double(value), s > 0, s <= 600 else { return nil }
                o.window = s
            case "--descriptors": guard let n = number, n >= 64 else { return nil }; o.descriptors = n
            case "--work": o.parent = value
            case "--only":
                guard let kind = RPCTarget.Kind(rawValue: value) else { return nil }
                o.servers = [kind]
            case "--abuse":
                let list = value.split(separator: ",").map { RPCAbuser(rawValue: String($0)) }
                guard !list.isEmpty, !list.contains(nil) else { return nil }
                o.abusers = list.compactMap { $0 }
            default: return nil
            }
        }
        return o
    }

    static func bench(_ o: Options) throws {
        let dledger = try BenchError.siblingDledger()
        let scratch = o.parent + "/rpc-abuse-version"
        print(
            "ledger-bench rpc-abuse: \(TransferProcess.firstLine(["aria2c", "--version"], scratch: scratch))")
        print("  load average before: \(RPCBench.loadAverage())")
        let files = try RPCFiles(active: 2, rate: 1_000_000, waiting: 100)
        print(
            "  2 transfers at 1 MB/s, 100 waiting; servers under 'prlimit --nofile=\(o.descriptors)'; a client asks"
                + " tellActive at 10 Hz over keep-alive HTTP for \(o.window) s while another abuses; \(o.runs) runs"
        )
        var runs: [String: [Run]] = [:]
        for round in 0..<o.runs {
            for abuser in o.abusers {
                let kinds = round % 2 == 0 ? o.servers : o.servers.reversed()
                for kind in kinds {
                    let r = try measure(kind, abuser, urls: files.urls, o, dledger: dledger)
                    runs["\(kind.rawValue) \(abuser.rawValue)", default: []].append(r)
                    print(
                        String(
                            format:
                                "  run %d %@ %@: p50 %6.1f ms p99 %7.1f ms max %7.1f ms, %d replies, %d errors,"
                                + " %d abusive requests or connections, %@, peak RSS %.1f MiB,"
                                + " a new client's first reply %.1f ms",
                            round + 1, kind.rawValue.padding(toLength: 7, withPad: " ", startingAt: 0),
                            abuser.rawValue.padding(toLength: 6, withPad: " ", startingAt: 0), r.p50 * 1000,
                            r.p99 * 1000, r.max * 1000, r.replies, r.errors, r.abuse,
                            r.survived ? "running" : "DIED", Double(r.peakRSS) / 1_048_576,
                            (r.newClient ?? .nan) * 1000))
                }
            }
        }
        files.stop()
        print("  load average after: \(RPCBench.loadAverage())")
        report(runs, o)
    }

    static func measure(
        _ kind: RPCTarget.Kind, _ abuser: RPCAbuser, urls: [String], _ o: Options, dledger: String
    ) throws -> Run {
        let target = try RPCTarget(
            kind, urls: urls, active: 2, parent: o.parent, dledger: dledger, descriptors: o.descriptors)
        defer { target.stop() }
        try target.waitForTransfers(2)
        let port = target.port
        let call = #"{"jsonrpc":"2.0","id":"victim","method":"aria2.tellActive","params":[["gid","status"]]}"#
        // The client under watch is connected, as a front end is, before the abuse begins.
        var socket: RPCSocket? = try RPCSocket(port: port, timeout: 10)
        _ = try socket?.post(call)
        let deadline = RPCSocket.now() + o.window
        let abuse = Mutex(0)
        let done = DispatchSemaphore(value: 0)
        Thread {
            let n = abuser.run(port: port, until: deadline)
            abuse.withLock { $0 = n }
            done.signal()
        }.start()
        usleep(500_000)  // the abuse under way
        var latencies: [Double] = []
        var errors = 0
        var newClient: Double?
        var next = RPCSocket.now()
        while RPCSocket.now() < deadline {
            if newClient == nil && RPCSocket.now() > deadline - 2 {
                // A client that connects during the abuse: how long until its first reply.
                let start = RPCSocket.now()
                if let reply = try? RPCSocket(port: port, timeout: 10).post(call),
                    RPCLoad.isResult(reply[...])
                {
                    newClient = RPCSocket.now() - start
                } else {
                    newClient = .infinity
                }
            }
            let start = RPCSocket.now()
            do {
                if socket == nil { socket = try RPCSocket(port: port, timeout: 10) }
                let reply = try socket!.post(call)
                latencies.append(RPCSocket.now() - start)
                if !RPCLoad.isResult(reply[...]) { errors += 1 }
            } catch {
                // A refused connection or a reply that never came: counted, and at its full wait.
                latencies.append(RPCSocket.now() - start)
                errors += 1
                socket = nil
            }
            next += 0.1
            let wait = next - RPCSocket.now()
            if wait > 0 { usleep(useconds_t(wait * 1e6)) }
        }
        done.wait()
        let survived = target.isRunning()
        let peak = target.peakRSS()
        let sorted = latencies.sorted()
        func percentile(_ p: Double) -> Double {
            sorted.isEmpty ? .nan : sorted[min(sorted.count - 1, Int(Double(sorted.count) * p))]
        }
        return Run(
            p50: percentile(0.5), p99: percentile(0.99), max: sorted.last ?? .nan, replies: sorted.count,
            errors: errors, abuse: abuse.withLock { $0 }, survived: survived, peakRSS: peak,
            newClient: newClient)
    }

    static func report(_ runs: [String: [Run]], _ o: Options) {
        print("")
        print(
            "| abuse | server | p50 | p99 tellActive (< 50 ms) | max | errors | survived | peak RSS"
                + " | a new client's first reply |")
        print("|---|---|---|---|---|---|---|---|---|")
        for abuser in o.abusers {
            for kind in RPCTarget.Kind.allCases {
                guard let list = runs["\(kind.rawValue) \(abuser.rawValue)"], !list.isEmpty else { continue }
                let p99 = RPCReport.median(list.map(\.p99))
                print(
                    "| \(abuser.rawValue) | \(kind == .dledger ? "dledger serve" : "aria2c --enable-rpc")"
                        + " | \(RPCReport.ms(RPCReport.median(list.map(\.p50))))"
                        + " | \(RPCReport.ms(p99)) \(kind == .dledger ? RPCReport.verdict(p99 < p99Target) : "")"
                        + " | \(RPCReport.ms(RPCReport.median(list.map(\.max))))"
                        + " | \(list.reduce(0) { $0 + $1.errors })"
                        + " | \(list.filter(\.survived).count)/\(list.count)"
                        + " | \(RPCReport.mib(RPCReport.median(list.map { Double($0.peakRSS) })))"
                        + " | \(RPCReport.ms(RPCReport.median(list.map { $0.newClient ?? .nan }))) |")
            }
            if let ours = runs["dledger \(abuser.rawValue)"], let theirs = runs["aria2c \(abuser.rawValue)"] {
                print(
                    "| \(abuser.rawValue) | ours / aria2c | | "
                        + RPCReport.ratio(zip(ours, theirs).map { $0.p99 / $1.p99 }) + " | | | | | |")
            }
        }
        print("\nAbuses: " + o.abusers.map { "\($0.rawValue): \($0.summary)" }.joined(separator: "; ") + ".")
        print(
            "Medians of \(o.runs) runs; the watched client connects before the abuse begins (as a front end"
                + " that is open); a failed call counts at the time it took to fail.")
    }
}
