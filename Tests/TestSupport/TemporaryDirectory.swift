import Foundation

/// A fresh folder under the system's temporary folder (`$TMPDIR`), removed with everything in it when released:
/// the sandbox every test that touches files works in.
public final class TemporaryDirectory: Sendable {
    /// Its absolute path, without a trailing slash.
    public let path: String

    /// Creates `<tmp>/<prefix><UUID>` and, inside it, each of `subfolders` (relative paths).
    public init(prefix: String = "dledger-test-", subfolders: [String] = []) throws {
        var base = NSTemporaryDirectory()
        while base.count > 1, base.hasSuffix("/") { base.removeLast() }
        path = base + "/" + prefix + UUID().uuidString
        try FileManager.default.createDirectory(atPath: path, withIntermediateDirectories: true)
        for folder in subfolders {
            try FileManager.default.createDirectory(
                atPath: path + "/" + folder, withIntermediateDirectories: true)
        }
    }

    deinit {
        // A test may have taken write permission away (read-only ledgers): give it back so that all can go.
        try? FileManager.default.setAttributes([.posixPermissions: 0o700], ofItemAtPath: path)
        try? FileManager.default.removeItem(atPath: path)
    }

    /// The path of `name` inside the folder.
    public func file(_ name: String) -> String { path + "/" + name }
}
