/// How a subcommand with options runs: its usage (exit 64) when the arguments do not parse, one error line
/// (exit 1) when the bench fails, 0 when it ran.
enum BenchCommand {
    static func run<Options>(
        _ arguments: [String], usage: String, parse: ([String]) -> Options?, bench: (Options) throws -> Void
    ) -> Int32 {
        guard let options = parse(arguments) else {
            print(usage)
            return 64
        }
        do {
            try bench(options)
            return 0
        } catch {
            print("error: \(error)")
            return 1
        }
    }
}
