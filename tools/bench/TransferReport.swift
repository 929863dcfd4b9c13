import Foundation

/// The transfer benchmark's figures as Markdown tables: medians per client, then each target of issue 3 with its
/// measured ratio and ok/MISSED. Every figure comes from the runs; MB is 10^6 bytes.
struct TransferReport {
    let results: [TransferCase.Key: [TransferMeasurement]]
    let labels: [TransferCase.Key: String]
    let bigBytes: Int64
    let smallCount: Int
    let smallBytes: Int64
    let slowBytes: Int64
    let slowRate: Int
    let runs: Int

    /// The RSS ceiling of issue 3, in bytes.
    static let rssTarget: Int64 = 64_000_000

    func render() -> String {
        var lines: [String] = []
        let bigKeys: [TransferCase.Key] = [
            .oursBig, .baseBig, .oursBigNoCheckpoints, .oursBigSplit, .curlBig, .curlBigHashed,
            .ariaBigSingle,
            .ariaBigDefault,
        ]
        lines += throughputTable(
            bigKeys, bytes: bigBytes, digits: 0, title: "1 file of \(mib(bigBytes)), median of \(runs) runs:")
        let smallKeys: [TransferCase.Key] = [
            .oursSmall, .baseSmall, .oursSmallNoCheckpoints, .ariaSmall, .curlSmall, .curlSmallHashed,
        ]
        if smallKeys.contains(where: { results[$0] != nil }) {
            lines.append("\(smallCount) files of \(mib(smallBytes)), median of \(runs) runs:")
            lines.append("")
            lines.append("| client | wall s | wall min–max | CPU s (user+sys) | peak RSS MB |")
            lines.append("|---|---:|---:|---:|---:|")
            for key in smallKeys {
                guard let m = median(key) else { continue }
                let figures = "\(f(m.wall, 3)) | \(range(key)) | \(f(m.cpu, 3)) | \(mb(m.peakRSS))"
                lines.append("| \(labels[key]!) | \(figures) |")
            }
            lines.append("")
        }
        let slowKeys: [TransferCase.Key] = [
            .oursSlowDefault, .baseSlowDefault, .oursSlow, .baseSlow, .ariaSlow, .ariaSlowDefault, .curlSlow,
        ]
        let slowTitle =
            "1 file of \(mib(slowBytes)) from LoopbackHTTP pacing each connection at "
            + "\(f(Double(slowRate) / 1e6, 1)) MB/s, median of \(runs) runs:"
        lines += throughputTable(slowKeys, bytes: slowBytes, digits: 1, title: slowTitle)
        lines.append("| target (issues 3, 14, 24) | measured | verdict |")
        lines.append("|---|---:|---|")
        lines += targets().map { row in
            let verdict = row.ok.map { $0 ? "ok" : "MISSED" } ?? "reported"
            return "| \(row.name) | \(row.value) | \(verdict) |"
        }
        return lines.joined(separator: "\n")
    }

    /// A table of one file's clients (throughput, wall, CPU, RSS), or nothing when none of `keys` ran.
    private func throughputTable(_ keys: [TransferCase.Key], bytes: Int64, digits: Int, title: String)
        -> [String]
    {
        guard keys.contains(where: { results[$0] != nil }) else { return [] }
        var lines = [title, "", "| client | MB/s | wall s | wall min–max | CPU s (user+sys) | peak RSS MB |"]
        lines.append("|---|---:|---:|---:|---:|---:|")
        for key in keys {
            guard let m = median(key) else { continue }
            let rate = Double(bytes) / m.wall / 1e6
            let figures =
                "\(f(rate, digits)) | \(f(m.wall, 3)) | \(range(key)) | \(f(m.cpu, 3)) | \(mb(m.peakRSS))"
            lines.append("| \(labels[key]!) | \(figures) |")
        }
        return lines + [""]
    }

    /// Each target whose figures were measured, and the floors' ratios (no verdict: `ok` nil).
    func targets() -> [(name: String, value: String, ok: Bool?)] {
        var rows: [(String, String, Bool?)] = []
        let big = mib(bigBytes)
        if let ours = median(.oursBig)?.wall {
            // Same bytes, so the throughput ratio is the inverse wall-time ratio.
            if let curl = median(.curlBig)?.wall {
                rows.append(("\(big): throughput ours / curl ≥ 0.9", f(curl / ours, 2), curl / ours >= 0.9))
                rows += floorRows(ours: ours, curl: curl, floor: median(.curlBigHashed)?.wall, name: big)
            }
            if let aria = median(.ariaBigSingle)?.wall {
                rows.append(
                    ("\(big): throughput ours / aria2c -x1 -s1 > 1", f(aria / ours, 2), aria / ours > 1))
            }
            if let aria = median(.ariaBigDefault)?.wall {
                rows.append(
                    ("\(big): throughput ours / aria2c (defaults) > 1", f(aria / ours, 2), aria / ours > 1))
            }
        }
        let small = "\(smallCount) × \(mib(smallBytes))"
        if let ours = median(.oursSmall)?.wall {
            if let aria = median(.ariaSmall)?.wall {
                rows.append(("\(small): wall ours / aria2c ≤ 1", f(ours / aria, 2), ours / aria <= 1))
            }
            if let curl = median(.curlSmall)?.wall {
                rows.append(("\(small): wall ours / curl ≤ 1.0", f(ours / curl, 2), ours / curl <= 1.0))
                rows += floorRows(ours: ours, curl: curl, floor: median(.curlSmallHashed)?.wall, name: small)
            }
        }
        let slow = "\(mib(slowBytes)) paced per connection"
        if let ours = median(.oursSlowDefault)?.wall {
            if let aria = median(.ariaSlow)?.wall {
                rows.append(
                    (
                        "\(slow): throughput ours (default) / aria2c -x16 -s16 -k1M ≥ 1", f(aria / ours, 2),
                        aria / ours >= 1
                    ))
            }
            if let aria = median(.ariaSlowDefault)?.wall {
                rows.append(
                    (
                        "\(slow): throughput ours (default) / aria2c (defaults) > 1", f(aria / ours, 2),
                        aria / ours > 1
                    ))
            }
        }
        if let ours = median(.oursSlow)?.wall {
            if let aria = median(.ariaSlow)?.wall {
                rows.append(
                    (
                        "\(slow): throughput ours --connections 16 / aria2c -x16 ≥ 1.05", f(aria / ours, 3),
                        aria / ours >= 1.05
                    ))
                // No client on 16 connections beats the pacing itself: 1.05 × aria2c asks aria2c to be 5 % over it.
                let floor = Double(slowBytes) / (16 * Double(slowRate))
                rows.append(
                    (
                        "\(slow): wall of ours --connections 16 / aria2c -x16 over the pacing's floor "
                            + "(\(f(floor, 3)) s on 16 connections)",
                        "\(f(ours / floor, 3)) / \(f(aria / floor, 3))", nil
                    ))
            }
            if let curl = median(.curlSlow)?.wall {
                rows.append(
                    ("\(slow): throughput ours / one connection ≥ 8", f(curl / ours, 2), curl / ours >= 8))
            }
        }
        // What the periodic checkpoint costs (issue 24 §2), with --checkpoint-cost.
        for (with, without, name) in [
            (TransferCase.Key.oursBig, TransferCase.Key.oursBigNoCheckpoints, big),
            (.oursSmall, .oursSmallNoCheckpoints, small),
        ] {
            if let ours = median(with)?.wall, let before = median(without)?.wall {
                rows.append(
                    (
                        "\(name): wall ours / ours without periodic checkpoints ≤ 1.1", f(ours / before, 2),
                        ours / before <= 1.1
                    ))
            }
        }
        let ourKeys: [TransferCase.Key] = [.oursBig, .oursBigSplit, .oursSmall, .oursSlowDefault, .oursSlow]
        let ourRuns = ourKeys.flatMap { results[$0] ?? [] }
        if let peak = ourRuns.map(\.peakRSS).max() {
            rows.append(("peak RSS of ours, every run ≤ 64 MB", mb(peak) + " MB", peak <= Self.rssTarget))
        }
        return rows
    }

    /// What the SHA-256 of every byte costs curl on this machine (its wall with the hash beside it, over its wall
    /// alone), and ours over that floor: wall times, so above 1 is slower.
    private func floorRows(ours: Double, curl: Double, floor: Double?, name: String)
        -> [(String, String, Bool?)]
    {
        guard let floor else { return [] }
        return [
            (
                "\(name): wall of curl with SHA-256 beside it / curl alone (the floor)", f(floor / curl, 2),
                nil
            ),
            ("\(name): wall ours / that floor", f(ours / floor, 2), nil),
        ]
    }

    /// The median of each figure separately over the runs of `key`.
    func median(_ key: TransferCase.Key) -> TransferMeasurement? {
        guard let runs = results[key], !runs.isEmpty else { return nil }
        func mid<T: Comparable>(_ values: [T]) -> T { values.sorted()[values.count / 2] }
        return TransferMeasurement(
            wall: mid(runs.map(\.wall)), cpu: mid(runs.map(\.cpu)), peakRSS: mid(runs.map(\.peakRSS)))
    }

    /// The fastest and slowest wall time of `key`, so the noise shows beside the median.
    private func range(_ key: TransferCase.Key) -> String {
        let walls = (results[key] ?? []).map(\.wall)
        guard let low = walls.min(), let high = walls.max() else { return "" }
        return "\(f(low, 2))–\(f(high, 2))"
    }

    private func f(_ value: Double, _ digits: Int) -> String { String(format: "%.\(digits)f", value) }
    private func mb(_ bytes: Int64) -> String { f(Double(bytes) / 1e6, 1) }
    private func mib(_ bytes: Int64) -> String {
        bytes % (1 << 30) == 0
            ? "\(bytes >> 30) GiB" : bytes % (1 << 20) == 0 ? "\(bytes >> 20) MiB" : "\(bytes) B"
    }
}
