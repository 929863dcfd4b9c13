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
        /// Ours with the scheduler's periodic checkpoint off (`--checkpoint-cost`): what it costs.
        case oursBigNoCheckpoints, oursSmallNoCheckpoints
        case oursSlow, ariaSlow, curlSlow
    }

    let key: Key
    let workload: Workload
    /// The command line as the table shows it.
    let label: String
    /// The argv, given the fresh download directory.
    let command: (_ directory: String) -> [String]

    /// Every case, given the work directory's URL lists and the benchmark binary.
    /// - Parameters:
    ///   - bigURL: the big file's URL.
    ///   - bigList: a file holding `bigURL`; `smallList`: the small files' URLs, one a line.
    ///   - curlConfig: a curl config with a `url` and an `output` line per small file.
    ///   - checkpointCost: also ours without the periodic checkpoint, on the big file and the small ones.
    static func all(
        bench: String, parallel: Int, bigURL: String, bigList: String, smallList: String,
        curlConfig: String, slowURL: String, slowList: String, checkpointCost: Bool = false
    ) -> [TransferCase] {
        let aria = [
            "aria2c", "-q", "--file-allocation=none", "--summary-interval=0", "--allow-overwrite=true",
        ]
        let ours = { (list: String, directory: String) in
            [bench, "transfer-child", "--list", list, "--dir", directory, "-j", "\(parallel)"]
        }
        let slow = [
            TransferCase(key: .oursSlow, workload: .slow, label: "ours --connections 16") {
                ours(slowList, $0) + ["--connections", "16"]
            },
            TransferCase(key: .ariaSlow, workload: .slow, label: "aria2c -x16 -s16 -k1M") {
                aria + ["-x16", "-s16", "-k1M", "-d", $0, slowURL]
            },
            TransferCase(key: .curlSlow, workload: .slow, label: "curl -o (one connection)") {
                ["curl", "-sS", "-f", "-o", $0 + "/slow.bin", slowURL]
            },
        ]
        let withoutCheckpoints = [
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
        return (checkpointCost ? withoutCheckpoints : []) + [
            TransferCase(key: .oursBig, workload: .big, label: "ours (Ledger + Scheduler)") {
                ours(bigList, $0)
            },
            // What splitting a fast file would cost (the rule leaves it on one connection): the hash of the pieces
            // after the first waits for the gaps to close.
            TransferCase(key: .oursBigSplit, workload: .big, label: "ours --connections 16") {
                ours(bigList, $0) + ["--connections", "16"]
            },
            TransferCase(key: .curlBig, workload: .big, label: "curl -o") {
                ["curl", "-sS", "-f", "-o", $0 + "/big.bin", bigURL]
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
                [
                    "curl", "-sS", "-f", "-Z", "--parallel-max", "\(parallel)", "--output-dir", $0, "-K",
                    curlConfig,
                ]
            },
        ] + slow
    }
}
