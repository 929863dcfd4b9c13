import Foundation

/// A scratch directory for benchmark files (under $TMPDIR), removed when released.
final class BenchDirectory {
    let path: String

    init() throws {
        path = NSTemporaryDirectory() + "ledger-bench-" + UUID().uuidString
        try FileManager.default.createDirectory(atPath: path, withIntermediateDirectories: true)
    }

    deinit { try? FileManager.default.removeItem(atPath: path) }

    func file(_ name: String) -> String { path + "/" + name }
}
