/// One measured command of the transfer benchmark: a client downloading one workload into a fresh directory.
struct TransferCase {
    enum Workload {
        /// The one big file.
        case big
        /// The many small files, 8 at a time.
        case small
        /// One file from a server that paces every connection (LoopbackHTTP).
        case slow
    }

    /// Which row of the report it fills.
    enum Key: String, CaseIterable {
        case oursBig, oursBigSplit, curlBig, ariaBigSingle, ariaBigDefault
        case oursSmall, ariaSmall, curlSmall
        /// curl with the SHA-256 of the same bytes running beside it (`hash-beside`): the floor of a client that
        /// does curl's work and hashes every byte, as ours does (issue 24 §3).
        case curlBigHashed, curlSmallHashed
        /// Ours with the scheduler's periodic checkpoint off (`--checkpoint-cost`): what it costs.
        case oursBigNoCheckpoints, oursSmallNoCheckpoints
        case oursSlowDefault, oursSlow, ariaSlow, ariaSlowDefault, curlSlow
        /// Ours as another build runs it (`--base PATH`), beside this one in the same rounds.
        case baseBig, baseSmall, baseSlowDefault, baseSlow
    }

    let key: Key
    let workload: Workload
    /// The command line as the table shows it.
    let label: String
    /// The served files (paths relative to the served root) whose digests the command prints, as `sha256sum`
    /// does, for the benchmark to check: the floors' hashes.
    var hashed: [String] = []
    /// The argv, given the fresh download directory.
    let command: (_ directory: String) -> [String]

    /// Every case, given the work directory's URL lists and the benchmark binary.
    /// - Parameters:
    ///   - bigURL: the big file's URL.
    ///   - bigList: a file holding `bigURL`; `smallList`: the small files' URLs, one a line.
    ///   - curlConfig: a curl config with a `url` and an `output` line per small file.
    ///   - served: the served root, and the big file's and the small files' paths in it (for the floors).
    ///   - base: another build of the benchmark, whose child runs ours again as that build does (`--base`).
    ///   - checkpointCost: also ours without the periodic checkpoint, on the big file and the small ones.
    static func all(
        bench: String, parallel: Int, bigURL: String, bigList: String, smallList: String,
        curlConfig: String, slowURL: String, slowList: String,
        served: (root: String, big: String, small: [String]), base: String? = nil,
        checkpointCost: Bool = false
    ) -> [TransferCase] {
        let cases =
            (checkpointCost
                ? withoutCheckpoints(bench: bench, parallel: parallel, bigList: bigList, smallList: smallList)
                : [])
            + fast(
                bench: bench, parallel: parallel, bigURL: bigURL, bigList: bigList, smallList: smallList,
                curlConfig: curlConfig)
            + floors(bench: bench, parallel: parallel, bigURL: bigURL, curlConfig: curlConfig, served: served)
        var slow = Self.slow(bench: bench, parallel: parallel, slowURL: slowURL, slowList: slowList)
        var bases: [TransferCase] = []
        if let base {
            slow += baseSlow(base: base, parallel: parallel, slowList: slowList)
            bases = baseFast(base: base, parallel: parallel, bigList: bigList, smallList: smallList)
        }
        // Each base case beside its workload's others, so the rounds interleave them too.
        return bases.reduce(cases + slow) { all, extra in
            let at = all.lastIndex { $0.workload == extra.workload }.map { $0 + 1 } ?? all.count
            return Array(all[..<at]) + [extra] + Array(all[at...])
        }
    }

    /// aria2c's flags common to every case: quiet, no preallocation, no summary, overwriting.
    private static let aria = [
        "aria2c", "-q", "--file-allocation=none", "--summary-interval=0", "--allow-overwrite=true",
    ]

    /// The argv of a benchmark binary's child downloading `list` into `directory`.
    private static func child(_ binary: String, _ list: String, _ directory: String, parallel: Int)
        -> [String]
    {
        [binary, "transfer-child", "--list", list, "--dir", directory, "-j", "\(parallel)"]
    }

    /// The big file and the small ones, by ours, curl and aria2c.
    private static func fast(
        bench: String, parallel: Int, bigURL: String, bigList: String, smallList: String, curlConfig: String
    ) -> [TransferCase] {
        let ours = { (list: String, directory: String) in child(bench, list, directory, parallel: parallel) }
        return [
            TransferCase(key: .oursBig, workload: .big, label: "ours (Ledger + Scheduler)") {
                ours(bigList, $0)
            },
            // What splitting a fast file would cost (the rule leaves it on one connection): the hash of the pieces
            // after the first waits for the gaps to close.
            TransferCase(key: .oursBigSplit, workload: .big, label: "ours --connections 16") {
                ours(bigList, $0) + ["--connections", "16"]
            },
            TransferCase(key: .curlBig, workload: .big, label: "curl -o") {
                curlBig(bigURL, into: $0)
            },
            TransferCase(key: .ariaBigSingle, workload: .big, label: "aria2c -x1 -s1") {
                aria + ["-x1", "-s1", "-d", $0, bigURL]
            },
            TransferCase(key: .ariaBigDefault, workload: .big, label: "aria2c (defaults)") {
                aria + ["-d", $0, bigURL]
            },
            TransferCase(key: .oursSmall, workload: .small, label: "ours -j \(parallel)") {
                ours(smallList, $0)
            },
            TransferCase(key: .ariaSmall, workload: .small, label: "aria2c -j \(parallel) -i list") {
                aria + ["-j", "\(parallel)", "-i", smallList, "-d", $0]
            },
            TransferCase(key: .curlSmall, workload: .small, label: "curl -Z --parallel-max \(parallel)") {
                curlSmall(curlConfig, parallel: parallel, into: $0)
            },
        ]
    }

    /// curl's argv for the big file: one `-o` into `directory`.
    private static func curlBig(_ url: String, into directory: String) -> [String] {
        ["curl", "-sS", "-f", "-o", directory + "/big.bin", url]
    }

    /// curl's argv for the small files: `parallel` at a time, each `url` and `output` of the config file `config`.
    private static func curlSmall(_ config: String, parallel: Int, into directory: String) -> [String] {
        ["curl", "-sS", "-f", "-Z", "--parallel-max", "\(parallel)", "--output-dir", directory, "-K", config]
    }

    /// curl on the big file and on the small ones, each with `hash-beside` hashing the served copies of the same
    /// bytes while it runs.
    private static func floors(
        bench: String, parallel: Int, bigURL: String, curlConfig: String,
        served: (root: String, big: String, small: [String])
    ) -> [TransferCase] {
        let beside = { (files: [String], directory: String) in
            [bench, "hash-beside", "--log", directory + ".curl-log"] + files.map { served.root + "/" + $0 }
                + ["--"]
        }
        return [
            TransferCase(
                key: .curlBigHashed, workload: .big, label: "curl -o, SHA-256 beside it", hashed: [served.big]
            ) {
                beside([served.big], $0) + curlBig(bigURL, into: $0)
            },
            TransferCase(
                key: .curlSmallHashed, workload: .small, label: "curl -Z, SHA-256 beside it",
                hashed: served.small
            ) {
                beside(served.small, $0) + curlSmall(curlConfig, parallel: parallel, into: $0)
            },
        ]
    }

    /// Ours on the big file and the small ones with the periodic checkpoint off.
    private static func withoutCheckpoints(
        bench: String, parallel: Int, bigList: String, smallList: String
    ) -> [TransferCase] {
        let ours = { (list: String, directory: String) in child(bench, list, directory, parallel: parallel) }
        return [
            TransferCase(key: .oursBigNoCheckpoints, workload: .big, label: "ours, no periodic checkpoint") {
                ours(bigList, $0) + ["--checkpoint-ms", "0"]
            },
            TransferCase(
                key: .oursSmallNoCheckpoints, workload: .small,
                label: "ours -j \(parallel), no periodic checkpoint"
            ) {
                ours(smallList, $0) + ["--checkpoint-ms", "0"]
            },
        ]
    }

    /// The paced file, by ours, aria2c and curl.
    private static func slow(bench: String, parallel: Int, slowURL: String, slowList: String)
        -> [TransferCase]
    {
        let ours = { (list: String, directory: String) in child(bench, list, directory, parallel: parallel) }
        return [
            // Without flags: one connection, split once it proves slow, ramping up while connections add speed.
            TransferCase(key: .oursSlowDefault, workload: .slow, label: "ours (default)") {
                ours(slowList, $0)
            },
            TransferCase(key: .oursSlow, workload: .slow, label: "ours --connections 16") {
                ours(slowList, $0) + ["--connections", "16"]
            },
            TransferCase(key: .ariaSlow, workload: .slow, label: "aria2c -x16 -s16 -k1M") {
                aria + ["-x16", "-s16", "-k1M", "-d", $0, slowURL]
            },
            // aria2c's own default: one connection per server (`-x1`), so `-s5` cannot split one URL.
            TransferCase(key: .ariaSlowDefault, workload: .slow, label: "aria2c (defaults)") {
                aria + ["-d", $0, slowURL]
            },
            TransferCase(key: .curlSlow, workload: .slow, label: "curl -o (one connection)") {
                ["curl", "-sS", "-f", "-o", $0 + "/slow.bin", slowURL]
            },
        ]
    }

    /// The paced file as another build (`--base`) downloads it.
    private static func baseSlow(base: String, parallel: Int, slowList: String) -> [TransferCase] {
        [
            TransferCase(key: .baseSlowDefault, workload: .slow, label: "base (default)") {
                child(base, slowList, $0, parallel: parallel)
            },
            TransferCase(key: .baseSlow, workload: .slow, label: "base --connections 16") {
                child(base, slowList, $0, parallel: parallel) + ["--connections", "16"]
            },
        ]
    }

    /// The big file and the small ones as another build (`--base`) downloads them.
    private static func baseFast(base: String, parallel: Int, bigList: String, smallList: String)
        -> [TransferCase]
    {
        [
            TransferCase(key: .baseBig, workload: .big, label: "base (Ledger + Scheduler)") {
                child(base, bigList, $0, parallel: parallel)
            },
            TransferCase(key: .baseSmall, workload: .small, label: "base -j \(parallel)") {
                child(base, smallList, $0, parallel: parallel)
            },
        ]
    }
}
