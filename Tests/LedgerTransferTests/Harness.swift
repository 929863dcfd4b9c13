import Foundation
import LedgerTransfer
import LoopbackHTTP
import Synchronization

/// A loopback server, an engine, a temporary download directory and a recorder of the engine's events.
final class Harness: Sendable {
    let server: LoopbackServer
    let engine: TransferEngine
    let events: EventRecorder
    /// A temporary folder that holds the download directory, so writes outside it can be detected.
    let root: String
    let directory: String

    init(config: TransferConfig = Harness.fastConfig) throws {
        server = try LoopbackServer()
        engine = try TransferEngine(config: config)
        events = EventRecorder(engine)
        root = try Harness.makeTemporaryDirectory()
        directory = root + "/downloads"
        try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: false)
    }

    static var fastConfig: TransferConfig {
        var config = TransferConfig()
        config.backoffBase = 0.02
        config.connectTimeout = 5
        config.lowSpeedTime = 10
        return config
    }

    static func makeTemporaryDirectory() throws -> String {
        let base = FileManager.default.temporaryDirectory.path + "/ledger-transfer-\(UUID().uuidString)"
        try FileManager.default.createDirectory(atPath: base, withIntermediateDirectories: true)
        return base
    }

    /// Stops everything and removes the temporary folder.
    func close() {
        engine.shutdown()
        server.stop()
        try? FileManager.default.removeItem(atPath: root)
    }

    func request(_ id: Int64, _ path: String, name: String? = nil, sha256: String? = nil) -> TransferRequest {
        TransferRequest(
            id: id, url: server.url(path), directory: directory, preferredName: name, expectedSHA256: sha256)
    }

    /// Starts `request` and waits for its terminal event; nil after 20 s.
    func run(_ request: TransferRequest) async -> TransferEvent? {
        engine.start(request)
        return await events.terminal(request.id)
    }

    func contents(_ name: String) -> [UInt8]? {
        FileManager.default.contents(atPath: directory + "/" + name).map { [UInt8]($0) }
    }

    /// Whether the file `name` in the download directory holds exactly `bytes` (a Bool, to keep failure output
    /// short).
    func holds(_ name: String, _ bytes: [UInt8]) -> Bool {
        contents(name) == bytes
    }

    /// Visible entries of the download directory (the hidden `.dledger` folder excluded).
    func visibleFiles() -> [String] {
        let names = (try? FileManager.default.contentsOfDirectory(atPath: directory)) ?? []
        return names.filter { $0 != ".dledger" }.sorted()
    }

    func partialExists(_ id: Int64) -> Bool {
        FileManager.default.fileExists(atPath: directory + "/.dledger/partial/\(id).part")
    }

    func writePartial(_ id: Int64, _ bytes: [UInt8]) throws {
        let folder = directory + "/.dledger/partial"
        try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
        try Data(bytes).write(to: URL(fileURLWithPath: folder + "/\(id).part"))
    }

    func partialSize(_ id: Int64) -> Int64 {
        let path = directory + "/.dledger/partial/\(id).part"
        let attributes = try? FileManager.default.attributesOfItem(atPath: path)
        return (attributes?[.size] as? NSNumber)?.int64Value ?? 0
    }

    /// Polls until `condition` holds; false after `timeout` seconds.
    static func eventually(timeout: Double = 20, _ condition: () -> Bool) async -> Bool {
        let deadline = Date().addingTimeInterval(timeout)
        while Date() < deadline {
            if condition() { return true }
            try? await Task.sleep(for: .milliseconds(5))
        }
        return condition()
    }

    /// SHA-256 by coreutils, independent of the engine's own hashing. The process is run and waited for on a
    /// thread of its own: blocking the test pool's few threads starves the polling of tests running beside.
    static func sha256sum(_ bytes: [UInt8]) async throws -> String {
        try await withCheckedThrowingContinuation { continuation in
            Thread { continuation.resume(with: Result { try sha256sumBlocking(bytes) }) }.start()
        }
    }

    private static func sha256sumBlocking(_ bytes: [UInt8]) throws -> String {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/sha256sum")
        let input = Pipe()
        let output = Pipe()
        process.standardInput = input
        process.standardOutput = output
        try process.run()
        input.fileHandleForWriting.write(Data(bytes))
        try input.fileHandleForWriting.close()
        let data = output.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        return String(decoding: data.prefix(64), as: UTF8.self)
    }
}

/// Drains an engine's single event stream into a list that tests can wait on.
final class EventRecorder: Sendable {
    private let log = Mutex<[TransferEvent]>([])
    private let ended = Mutex(false)

    init(_ engine: TransferEngine) {
        let stream = engine.events
        Task { [self] in
            for await event in stream {
                self.log.withLock { $0.append(event) }
            }
            self.ended.withLock { $0 = true }
        }
    }

    var all: [TransferEvent] { log.withLock { $0 } }

    /// Whether the engine's event stream has ended and every event was recorded.
    var hasEnded: Bool { ended.withLock { $0 } }

    func of(_ id: Int64) -> [TransferEvent] {
        all.filter { $0.id == id }
    }

    /// The terminal event of `id` (the latest, if it ran several times); nil after `timeout` seconds.
    func terminal(_ id: Int64, after count: Int = 0, timeout: Double = 20) async -> TransferEvent? {
        var found: TransferEvent?
        _ = await Harness.eventually(timeout: timeout) {
            found = of(id).filter(\.isTerminal).dropFirst(count).first
            return found != nil
        }
        return found
    }

    func startedAttempts(_ id: Int64) -> [Int] {
        of(id).compactMap {
            if case .started(_, let attempt, _) = $0 { attempt } else { nil }
        }
    }

    func restartReasons(_ id: Int64) -> [String] {
        of(id).compactMap {
            if case .resolved(_, _, _, _, _, _, let reason) = $0 { reason } else { nil }
        }
    }
}
