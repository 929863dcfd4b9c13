import DownloadLedger
import Foundation
import LoopbackHTTP

/// `ledger-bench claims [files] [--uri URI]`: several downloaders on one PostgreSQL ledger (docs/postgres.md,
/// "Several hosts: claims and leases"). The latency of one claim against one downloader fact appended the same way
/// (both a fold, a decision and one append), alternating; then `files` small files (default 300) from a throttled
/// LoopbackHTTP server downloaded by one host, then by three hosts sharing the list (three schedulers, each with its
/// own ledger connection and folder, in this process): the work is shared when three take about a third of the
/// time. Without `--uri`, a throwaway durable cluster is started and removed at the end.
enum ClaimsBench {
    /// Each file's size and the server's rate per connection: a file takes about a quarter of a second.
    static let fileSize: Int64 = 25_000
    static let rate = 100_000

    static func run(arguments: [String]) async throws {
        var files = 300
        var uri: String?
        var rest = arguments[...]
        while let argument = rest.popFirst() {
            if argument == "--uri", let given = rest.popFirst() {
                uri = given
            } else if let number = Int(argument), (3...100_000).contains(number) {
                files = number
            } else {
                throw BenchError("usage: ledger-bench claims [files] [--uri postgresql://…]")
            }
        }
        let cluster = uri == nil ? try BenchCluster() : nil
        defer { cluster?.stop() }
        let base = uri ?? cluster!.uri
        if let load = try? String(contentsOfFile: "/proc/loadavg", encoding: .utf8) {
            print("  (load average \(load.split(separator: " ").prefix(3).joined(separator: " ")))")
        }
        let separator = base.contains("?") ? "&" : "?"
        let run = String(UInt32.random(in: 0...UInt32.max), radix: 36)
        let folder = NSTemporaryDirectory() + "claims-bench-\(run)"
        try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(atPath: folder) }
        try claimLatency(uri: base + separator + "ledger=bench_claim_\(run)", folder: folder)

        let server = try LoopbackServer()
        defer { server.stop() }
        for n in 1...files {
            server.serve(
                "/f\(n).bin",
                Resource(
                    size: fileSize, seed: UInt64(n), etag: "\"f\(n)\"",
                    faults: Faults(throttleBytesPerSecond: rate)))
        }
        let urls = (1...files).map { server.url("/f\($0).bin") }
        let one = try await share(
            urls, hosts: 1, uri: base + separator + "ledger=bench_one_\(run)", folder: folder + "/one")
        let three = try await share(
            urls, hosts: 3, uri: base + separator + "ledger=bench_three_\(run)", folder: folder + "/three")
        let ratio = three.seconds / one.seconds
        print(
            "  \(files) files of \(fileSize / 1000) KB at \(rate / 1000) KB/s each, 3 at a time per host:"
                + " one host \(String(format: "%.2f", one.seconds)) s, three hosts"
                + " \(String(format: "%.2f", three.seconds)) s: ratio \(String(format: "%.2f", ratio))"
                + " (ideal 0.33; files per host \(three.perHost))")
    }

    /// The median and 99th percentile of one claim, against one fact appended by the same ledger.
    static func claimLatency(uri: String, folder: String) throws {
        let ledger = try Ledger(path: uri, creatingWithDirectory: folder)
        let count = 400
        try ledger.execute(
            .add(
                urls: (1...count).map { "https://example.invalid/c\($0).bin" }, placement: .end, name: nil,
                sha256: nil, directory: nil))
        var claims: [Double] = []
        var facts: [Double] = []
        let clock = ContinuousClock()
        for id in TaskID(1)...TaskID(count) {
            claims.append(
                StoreBench.seconds(
                    try clock.measure {
                        guard try ledger.claim([id], host: "bench").won == [id] else {
                            throw BenchError("claim of #\(id) refused")
                        }
                    }))
            facts.append(
                StoreBench.seconds(
                    try clock.measure {
                        try ledger.record(.transferConnections(id: id, connections: 1, detail: "bench"))
                    }))
        }
        let claimMedian = StoreBench.median(Array(claims.dropFirst(20)))
        let factMedian = StoreBench.median(Array(facts.dropFirst(20)))
        let p99 = claims.dropFirst(20).sorted()[(count - 20) * 99 / 100]
        print(
            "  claim of one task              median \(String(format: "%.3f", claimMedian * 1000)) ms,"
                + " p99 \(String(format: "%.3f", p99 * 1000)) ms; one fact appended"
                + " \(String(format: "%.3f", factMedian * 1000)) ms: ratio"
                + " \(String(format: "%.2f", claimMedian / factMedian))")
    }

    /// Downloads `urls` with `hosts` schedulers on one ledger, each into a folder of its own; how long until all
    /// are idle, and how many files each host completed.
    static func share(_ urls: [String], hosts: Int, uri: String, folder: String) async throws -> (
        seconds: Double, perHost: [Int]
    ) {
        let setup = try Ledger(path: uri, creatingWithDirectory: folder)
        try setup.execute(.add(urls: urls, placement: .end, name: nil, sha256: nil, directory: nil))
        let schedulers = try (1...hosts).map { n in
            try FileManager.default.createDirectory(
                atPath: folder + "/h\(n)", withIntermediateDirectories: true)
            return try Scheduler(
                ledger: try Ledger(path: uri), maxDownloads: 3, host: "h\(n)", folder: folder + "/h\(n)")
        }
        let start = ContinuousClock.now
        try await withThrowingTaskGroup(of: Void.self) { group in
            for scheduler in schedulers {
                group.addTask { try await scheduler.run(untilIdle: true) }
            }
            try await group.waitForAll()
        }
        let seconds = StoreBench.seconds(ContinuousClock.now - start)
        _ = try setup.refresh()
        let tasks = setup.list.orderedTasks
        guard tasks.count == urls.count, tasks.allSatisfy({ $0.state == .finished }) else {
            throw BenchError("not every file finished with \(hosts) hosts")
        }
        let perHost = (1...hosts).map { n in tasks.filter { $0.host == "h\(n)" }.count }
        return (seconds, perHost)
    }
}
