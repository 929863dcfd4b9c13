#if canImport(Glibc)
    import Glibc
#endif

let arguments = Array(CommandLine.arguments.dropFirst())
switch arguments.first {
case "transfer": exit(TransferBench.run(arguments: Array(arguments.dropFirst())))
case "transfer-child": exit(await TransferChild.run(arguments: Array(arguments.dropFirst())))
default: print("bench")
}
