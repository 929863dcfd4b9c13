import CPostgres
import DownloadLedger
import Foundation
import LedgerStore
import Synchronization

/// How fast another connection's commit reaches a follower: a Ledger's `changes()` (what a scheduler, `ui` and
/// `serve` follow), and raw LISTEN connections fanned out 1, 10 and 50 wide.
extension PostgresBench {
    /// Milliseconds from the start of an append on one Ledger until another Ledger's `changes()` yields its head:
    /// p50 and p99 of `rounds`.
    static func followerLatency(uri: String, rounds: Int) throws -> (p50: Double, p99: Double) {
        let folder = NSTemporaryDirectory() + "ledger-bench-notify"
        let writer = try Ledger(path: uri, creatingWithDirectory: folder)
        let follower = try Ledger(path: uri)
        let seen = Mutex<[Int64: ContinuousClock.Instant]>([:])
        let stream = follower.changes(pollInterval: .seconds(3600))
        let following = Task {
            for await list in stream { seen.withLock { $0[list.head] = $0[list.head] ?? .now } }
        }
        defer { following.cancel() }
        var latencies: [Double] = []
        for n in 0..<(rounds + 5) {
            let started = ContinuousClock.now
            let head = try writer.execute(
                .add(
                    urls: ["https://example.com/\(n)"], placement: .end, name: nil, sha256: nil,
                    directory: nil)
            ).seq
            let at = try waitUntil(limit: .seconds(10)) { seen.withLock { $0[head] } }
            if n >= 5 { latencies.append(milliseconds(at - started)) }
        }
        return percentiles(latencies)
    }

    /// Milliseconds from the start of an append until each of `listeners` LISTEN connections (a thread each,
    /// sleeping in `poll`) has its notification: p50 and p99 over every listener and append, and p99 of the last
    /// listener of each append.
    static func fanOut(uri: String, listeners: Int, rounds: Int) throws -> (
        p50: Double, p99: Double, lastP99: Double
    ) {
        let location = try PostgresLocation(uri)
        let store = try PostgresEventStore(location: location)
        var head = try store.append([event(0)], expectingHead: 0, time: 1)
        let heard = Mutex<[[ContinuousClock.Instant]]>(Array(repeating: [], count: listeners))
        let stop = Atomic<Bool>(false)
        let ready = Atomic<Int>(0)
        var threads: [Thread] = []
        for index in 0..<listeners {
            let thread = Thread {
                guard let connection = PQconnectdb(location.conninfo), PQstatus(connection) == CONNECTION_OK
                else { return }
                defer { PQfinish(connection) }
                PQclear(PQexec(connection, "LISTEN \"\(location.schema)\""))
                ready.add(1, ordering: .sequentiallyConsistent)
                while !stop.load(ordering: .relaxed) {
                    var descriptor = pollfd(fd: PQsocket(connection), events: Int16(POLLIN), revents: 0)
                    guard poll(&descriptor, 1, 100) > 0 else { continue }
                    _ = PQconsumeInput(connection)
                    while let notification = PQnotifies(connection) {
                        PQfreemem(notification)
                        let now = ContinuousClock.now
                        heard.withLock { $0[index].append(now) }
                    }
                }
            }
            thread.start()
            threads.append(thread)
        }
        defer { stop.store(true, ordering: .relaxed) }
        _ = try waitUntil(limit: .seconds(30)) {
            ready.load(ordering: .sequentiallyConsistent) == listeners ? true : nil
        }
        var all: [Double] = []
        var lasts: [Double] = []
        for round in 1...rounds {
            let started = ContinuousClock.now
            head = try store.append([event(Int64(round))], expectingHead: head, time: 1)
            let times = try waitUntil(limit: .seconds(10)) { () -> [ContinuousClock.Instant]? in
                heard.withLock { lists in
                    lists.allSatisfy { $0.count >= round } ? lists.map { $0[round - 1] } : nil
                }
            }
            let each = times.map { milliseconds($0 - started) }
            all += each
            lasts.append(each.max() ?? 0)
            Thread.sleep(forTimeInterval: 0.005)
        }
        let spread = percentiles(all)
        return (spread.p50, spread.p99, percentiles(lasts).p99)
    }

    /// Spins (1 ms sleeps) until `found` gives a value; throws after `limit`.
    static func waitUntil<T>(limit: Duration, _ found: () -> T?) throws -> T {
        let deadline = ContinuousClock.now + limit
        while ContinuousClock.now < deadline {
            if let value = found() { return value }
            Thread.sleep(forTimeInterval: 0.0005)
        }
        throw BenchError("nothing arrived within \(limit)")
    }

    static func milliseconds(_ duration: Duration) -> Double { StoreBench.seconds(duration) * 1000 }

    /// The median and the 99th percentile (nearest rank) of `values`.
    static func percentiles(_ values: [Double]) -> (p50: Double, p99: Double) {
        let sorted = values.sorted()
        guard !sorted.isEmpty else { return (0, 0) }
        let rank = max(0, Int((Double(sorted.count) * 0.99).rounded(.up)) - 1)
        return (sorted[sorted.count / 2], sorted[rank])
    }
}
