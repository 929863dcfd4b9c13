#if canImport(Glibc)
    import Glibc
#endif

/// `ledger-bench <subcommand>`: each subcommand prints its figures and their ratio to their floor.
let usage = """
    usage: ledger-bench <subcommand>
      store [events]   event store: batched append rate, durable append vs raw SQLite, raw scan floor
      transfer [...]   1 GiB and 200 × 1 MiB from nginx: ours vs curl and aria2c (tools/bench/transfer-bench.sh)
    """

let arguments = Array(CommandLine.arguments.dropFirst())
do {
    switch arguments.first {
    case "store":
        print("ledger-bench store")
        try StoreBench.run(arguments: Array(arguments.dropFirst()))
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
