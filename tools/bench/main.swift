import DownloadLedger

#if canImport(Glibc)
    import Glibc
#endif

/// `ledger-bench <subcommand>`: each subcommand prints its figures and their ratio to their floor.
let usage = """
    usage: ledger-bench <subcommand>
      store [events]   event store: batched append rate, durable append vs raw SQLite, raw scan floor
      ledger [tasks]   replay vs raw scan, open with a snapshot vs full replay, projection peak RSS,
                       dledger ls start-up (10 events per task: 100,000 tasks = 1,000,001 events)
      transfer [...]   1 GiB and 200 × 1 MiB from nginx: ours vs curl and aria2c (tools/bench/transfer-bench.sh)
    """

let arguments = Array(CommandLine.arguments.dropFirst())
do {
    switch arguments.first {
    case "store":
        print("ledger-bench store")
        try StoreBench.run(arguments: Array(arguments.dropFirst()))
    case "ledger":
        print("ledger-bench ledger")
        try LedgerBench.run(arguments: Array(arguments.dropFirst()))
    case "build-ledger":
        print(try LedgerBench.build(path: arguments[1], tasks: Int(arguments[2]) ?? 100_000))
    case "replay":
        let (rate, seconds, list) = try LedgerBench.replay(path: arguments[1])
        print(Int(rate), "events/s", seconds, "s", list.tasks.count, "tasks")
    case "open":
        let seconds = try LedgerBench.openSeconds(path: arguments[1])
        print(seconds * 1000, "ms")
    case "open-parts":
        let store = try SQLiteEventStore(path: arguments[1], readOnly: true)
        var bytes: [UInt8] = []
        let read = try LedgerBench.medianSeconds(5) {
            bytes = try store.latestSnapshot(reducerVersion: DownloadList.reducerVersion, atOrBefore: nil)!
                .bytes
        }
        var lists: [DownloadList] = []
        let decode = try LedgerBench.medianSeconds(5) { lists.append(try DownloadList(snapshot: bytes)) }
        print("read \(read * 1000) ms, decode \(decode * 1000) ms, \(bytes.count) bytes")
    case "rss-replay":
        try LedgerBench.rssReplay(path: arguments[1])
    case "transfer":
        exit(TransferBench.run(arguments: Array(arguments.dropFirst())))
    case "transfer-child":
        exit(await TransferChild.run(arguments: Array(arguments.dropFirst())))
    case "-h", "--help", "help":
        print(usage)
    default:
        print(usage)
        exit(64)
    }
} catch {
    print("error: \(error)")
    exit(1)
}
