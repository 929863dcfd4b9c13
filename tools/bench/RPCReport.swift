import Foundation

/// The summary of `ledger-bench rpc`: per server and client count, the medians of the runs, the targets, and
/// ours against aria2c, as Markdown.
enum RPCReport {
    static let p99Target = 0.050
    static let slowdownTarget = 0.10
    /// Peak RSS at most 1.5 times aria2c's in the same run, and at most 64 MB above one client's (issue 26).
    static let rssRatioTarget = 1.5
    static let rssGrowthTarget = 64_000_000.0

    static func print(_ runs: [String: [RPCBench.Run]], _ o: RPCBench.Options) {
        Swift.print("")
        Swift.print(
            "| server | clients | p50 reply | p99 reply (< 50 ms) | transfers quiet → loaded | slowdown (≤ 10%) |"
                + " server CPU quiet → loaded | replies | peak RSS |")
        Swift.print("|---|---|---|---|---|---|---|---|---|")
        for clients in o.clients {
            for kind in RPCTarget.Kind.allCases {
                guard let list = runs["\(kind.rawValue) \(clients)"], !list.isEmpty else { continue }
                let p99 = median(list.map(\.p99))
                let slowdown = median(list.map(\.slowdown))
                let errors = list.reduce(0) { $0 + $1.errors + $1.unanswered }
                Swift.print(
                    "| \(kind == .dledger ? "dledger serve" : "aria2c --enable-rpc") | \(clients)"
                        + " | \(ms(median(list.map(\.p50)))) | \(ms(p99)) \(verdict(p99 < p99Target))"
                        + " | \(mb(median(list.map(\.quietRate)))) → \(mb(median(list.map(\.loadedRate)))) MB/s"
                        + " | \(String(format: "%.1f", slowdown * 100))% \(verdict(slowdown <= slowdownTarget))"
                        + " | \(String(format: "%.2f", median(list.map(\.quietCPU)))) → "
                        + "\(String(format: "%.2f", median(list.map(\.cpu)))) s/s"
                        + " | \(median(list.map { Double($0.replies) }).formatted())"
                        + (errors > 0 ? " (\(errors) errors or unanswered)" : "")
                        + " | \(mib(median(list.map { Double($0.peakRSS) }))) |")
            }
            if let ours = runs["dledger \(clients)"], let theirs = runs["aria2c \(clients)"] {
                // Ratios within each run pair (the same round), then their median.
                let pairs = zip(ours, theirs)
                Swift.print(
                    "| ours / aria2c | \(clients) | \(ratio(pairs.map { $0.p50 / $1.p50 }))"
                        + " | \(ratio(pairs.map { $0.p99 / $1.p99 })) | | | | |"
                        + " \(ratio(pairs.map { Double($0.peakRSS) / Double($1.peakRSS) }))"
                        + " \(verdict(median(pairs.map { Double($0.peakRSS) / Double($1.peakRSS) }) <= rssRatioTarget))"
                        + " (≤ 1.5×) |")
            }
        }
        if let one = runs["dledger 1"], let most = o.clients.max(), most > 1,
            let many = runs["dledger \(most)"]
        {
            let growth = median(many.map { Double($0.peakRSS) }) - median(one.map { Double($0.peakRSS) })
            Swift.print(
                "\ndledger serve peak RSS, \(most) clients − 1 client: \(mib(growth))"
                    + " \(verdict(growth <= rssGrowthTarget)) (≤ 64 MB)")
        }
        Swift.print(
            "\nMedians of \(o.runs) runs; a reply's time runs from its request written to its last byte read; "
                + "the slowdown is 1 − loaded / quiet throughput of the same run.")
    }

    static func median(_ values: [Double]) -> Double {
        let sorted = values.filter { !$0.isNaN }.sorted()
        guard !sorted.isEmpty else { return .nan }
        return sorted.count % 2 == 1
            ? sorted[sorted.count / 2] : (sorted[sorted.count / 2 - 1] + sorted[sorted.count / 2]) / 2
    }

    static func ms(_ seconds: Double) -> String { String(format: "%.1f ms", seconds * 1000) }
    static func mib(_ bytes: Double) -> String { String(format: "%.1f MiB", bytes / 1_048_576) }
    static func mb(_ rate: Double) -> String { String(format: "%.1f", rate / 1e6) }
    static func ratio(_ values: [Double]) -> String {
        let m = median(values)
        return String(format: m < 0.1 ? "%.3f×" : "%.2f×", m)
    }
    static func verdict(_ ok: Bool) -> String { ok ? "ok" : "MISSED" }
}
