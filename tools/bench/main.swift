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
      scale [tasks] [--no-million] [--written-by DLEDGER]
                       dledger stats/log/audit/ls/export on 100,000 tasks built three ways, two of them
                       also followed by 1, 300 and 5,000 small events (and, with --written-by,
                       the same two lists written by another build's dledger), vs a 1-task ledger,
                       stats vs --version, peak RSS of ls/verify/export, one add of 1,000,000 URLs
      ui [tasks]       dledger ui: a screen update with 100,000 tasks vs 100; idle CPU vs dledger run
      transfer [...]   1 GiB and 200 × 1 MiB from nginx: ours vs curl and aria2c (tools/bench/transfer-bench.sh)
      rpc [...]        200 WebSocket clients polling dledger serve vs aria2c --enable-rpc while 8 transfers run
      rpc-abuse [...]  one client's tellActive while another floods, nests, trickles or batches: serve vs aria2c
      postgres [events] [--open-tasks N] [--uri URI]
                       PostgreSQL store: durable single append vs a raw INSERT, batched append vs COPY,
                       replay vs a raw SELECT (default 1,000,000 events; a throwaway cluster without --uri),
                       NOTIFY to changes() and fan-out to 1/10/50 listeners, 1/4/8 writer processes,
                       open of an N-task ledger vs SQLite (default 100,000; 0 skips it)
      claims [files] [--uri URI]
                       PostgreSQL ledger shared by hosts: claim latency vs one fact; three hosts vs one on
                       300 small files from a throttled server
    """

let arguments = Array(CommandLine.arguments.dropFirst())
do {
    switch arguments.first {
    case "store":
        print("ledger-bench store")
        try StoreBench.run(arguments: Array(arguments.dropFirst()))
    case "postgres":
        print("ledger-bench postgres")
        try PostgresBench.run(arguments: Array(arguments.dropFirst()))
    case "claims":
        print("ledger-bench claims")
        try await ClaimsBench.run(arguments: Array(arguments.dropFirst()))
    case "postgres-writer":
        try PostgresBench.writer(arguments: Array(arguments.dropFirst()))
    case "ledger":
        print("ledger-bench ledger")
        try LedgerBench.run(arguments: Array(arguments.dropFirst()))
    case "scale":
        print("ledger-bench scale")
        try ScaleBench.run(arguments: Array(arguments.dropFirst()))
    case "build-ledger":
        print(try LedgerBench.build(path: arguments[1], tasks: Int(arguments[2]) ?? 100_000))
    case "replay":
        let (rate, seconds, list) = try LedgerBench.replay(path: arguments[1])
        print(Int(rate), "events/s", seconds, "s", list.tasks.count, "tasks")
    case "open":
        let seconds = try LedgerBench.openSeconds(path: arguments[1])
        print(seconds * 1000, "ms")
    case "open-parts":
        // Where opening with a snapshot goes: reading the blob in place, then decoding it (each list freed).
        let store = try SQLiteEventStore(path: arguments[1], readOnly: true)
        var size = 0
        let read = try LedgerBench.medianSeconds(5) {
            size =
                try store.withLatestSnapshot(reducerVersion: DownloadList.reducerVersion, atOrBefore: nil) {
                    $1.count
                } ?? 0
        }
        let both = try LedgerBench.medianSeconds(5) {
            let list = try store.withLatestSnapshot(
                reducerVersion: DownloadList.reducerVersion, atOrBefore: nil
            ) {
                try DownloadList(snapshot: $1)
            }
            guard list?.tasks.isEmpty == false else {
                throw BenchError("open-parts needs a ledger with a snapshot of a non-empty list")
            }
        }
        print("read \(read * 1000) ms, read + decode \(both * 1000) ms, \(size) bytes")
    case "rss-replay":
        try LedgerBench.rssReplay(path: arguments[1])
    case "ui":
        print("ledger-bench ui")
        try UIBench.run(arguments: Array(arguments.dropFirst()))
    case "transfer":
        exit(TransferBench.run(arguments: Array(arguments.dropFirst())))
    case "rpc":
        exit(RPCBench.run(arguments: Array(arguments.dropFirst())))
    case "rpc-abuse":
        exit(RPCAbuseBench.run(arguments: Array(arguments.dropFirst())))
    case "hash-beside":
        exit(TransferHashBeside.run(arguments: Array(arguments.dropFirst())))
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
