import DownloadLedger
import Foundation
import LoopbackHTTP
import TestSupport
import Testing

/// A temporary folder with a ledger path and a download directory, removed at the end.
final class Sandbox {
    private let folder: TemporaryDirectory
    var root: String { folder.path }
    var ledgerPath: String { root + "/ledger.sqlite" }
    var downloads: String { root + "/downloads" }

    init() throws {
        folder = try TemporaryDirectory(prefix: "dl-test-", subfolders: ["downloads"])
    }

    func ledger(clock: @escaping @Sendable () -> Int64 = Ledger.wallClock) throws -> Ledger {
        try Ledger(path: ledgerPath, creatingWithDirectory: downloads, clock: clock)
    }

    /// Whether the downloaded file is byte-identical to LoopbackHTTP's generated body.
    func holds(_ name: String, seed: UInt64, size: Int64) -> Bool {
        contents(name) == Body.generatedBytes(seed: seed, in: 0..<size)
    }

    func contents(_ name: String) -> [UInt8]? {
        FileManager.default.contents(atPath: downloads + "/" + name).map { Array($0) }
    }

    /// The device, inode and modification time of `name` in the download directory.
    func identity(of name: String) -> FileIdentity? {
        identity(path: downloads + "/" + name)
    }

    func identity(path: String) -> FileIdentity? {
        var info = stat()
        guard lstat(path, &info) == 0 else { return nil }
        return FileIdentity(
            device: UInt64(info.st_dev), inode: UInt64(info.st_ino),
            modified: Int64(info.st_mtim.tv_sec) * 1_000_000_000 + Int64(info.st_mtim.tv_nsec))
    }
}

/// Polls `condition` until it holds or `seconds` pass; returns whether it held.
func eventually(_ seconds: Double = 10, _ condition: () throws -> Bool) async rethrows -> Bool {
    let deadline = Date().addingTimeInterval(seconds)
    while Date() < deadline {
        if try condition() { return true }
        try? await Task.sleep(for: .milliseconds(20))
    }
    return try condition()
}

extension Ledger {
    /// Adds URLs at the end of the first section and returns their ids.
    @discardableResult
    func add(_ urls: [String], name: String? = nil, sha256: String? = nil) throws -> [TaskID] {
        try execute(.add(urls: urls, placement: .end, name: name, sha256: sha256, directory: nil)).decision
            .added
    }

    func kinds() throws -> [String] { try log().map(\.entry.event.kind) }
}

/// A clock tests move by hand.
final class ManualClock: @unchecked Sendable {
    private let lock = NSLock()
    private var value: Int64

    init(_ start: Int64 = 1_800_000_000_000) { value = start }

    var now: Int64 { lock.withLock { value } }
    func advance(_ ms: Int64) { lock.withLock { value += ms } }
    var function: @Sendable () -> Int64 { { [self] in now } }
}

/// Runs the sqlite3 shell on a ledger file (tests that tamper or inspect without our code).
func sqlite3(_ path: String, _ sql: String) throws {
    let p = Process()
    p.executableURL = URL(fileURLWithPath: "/usr/bin/sqlite3")
    p.arguments = [path, sql]
    try p.run()
    p.waitUntilExit()
    if p.terminationStatus != 0 { throw LedgerError.fileSystem("sqlite3 failed: \(sql)") }
}

extension Ledger {
    /// Adds 300 tasks (`…/t/file-N.iso`) and snapshots at that add, then stops snapshotting and adds one task in a
    /// new section "Later": the start of a tail after a snapshot. Returns the snapshot's seq.
    func addSnapshottedListThenLater() throws -> Int64 {
        snapshotWork = 1
        try add((1...300).map { "https://mirror.example.org/t/file-\($0).iso" })
        let snapshot = try #require(try latestSnapshotSeq())
        #expect(snapshot == list.head)
        snapshotWork = Int.max
        try execute(
            .add(
                urls: ["https://mirror.example.org/later.iso"],
                placement: .newSection(title: "Later", at: nil),
                name: nil, sha256: nil, directory: nil))
        return snapshot
    }

    /// The connection counts the log's `transferConnections` facts give for a task, in order.
    func loggedConnections(_ id: TaskID) throws -> [Int] {
        try log().compactMap { e -> Int? in
            if case .transferConnections(id, let n, _) = e.entry.event { n } else { nil }
        }
    }
}
