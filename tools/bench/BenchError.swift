import Foundation

/// A benchmark that could not run, with the reason.
struct BenchError: Error, CustomStringConvertible {
    let description: String
    init(_ description: String) { self.description = description }
}

extension BenchError {
    /// The `dledger` built beside this `ledger-bench` (the benchmarks run it as a user would).
    /// - Throws: when it has not been built.
    static func siblingDledger() throws -> String {
        let dledger = URL(fileURLWithPath: CommandLine.arguments[0]).deletingLastPathComponent()
            .appendingPathComponent("dledger").path
        guard FileManager.default.isExecutableFile(atPath: dledger) else {
            throw BenchError("build dledger first: swift build -c release --product dledger")
        }
        return dledger
    }
}
