import Foundation
import LedgerStore
import LoopbackHTTP
import Testing

@testable import DownloadLedger

/// Credentials end to end through the downloader: the server sees them, the ledger's bytes never do.
@Suite(.serialized) struct CredentialRunTests {
    let server: LoopbackServer

    init() throws { server = try LoopbackServer() }

    static let bearer = "Bearer S3CR3T-run-bearer-0a1b2c"
    static let cookie = "sid=S3CR3T-run-cookie-3d4e5f"
    static let proxyUser = "agent"
    static let proxyPassword = "S3CR3T-run-proxy-6a7b8c"

    /// LoopbackHTTP is the proxy too: it serves an absolute-form request by its path.
    func options() throws -> TaskOptions {
        TaskOptions(
            headers: [
                try Validation.header("Authorization: \(Self.bearer)"),
                try Validation.header("Cookie: \(Self.cookie)"),
            ],
            proxy: "http://\(Self.proxyUser):\(Self.proxyPassword)@127.0.0.1:\(server.port)")
    }

    @Test func theServerGetsTheCredentialsAndNoCopyOfTheLedgerHoldsThem() async throws {
        let box = try Sandbox()
        let ledger = try box.ledger()
        server.serve("/c.bin", Resource(size: 300_000, seed: 81))
        try ledger.execute(
            .add(
                urls: ["http://files.invalid/c.bin"], placement: .end, name: nil, sha256: nil, directory: nil,
                options: try options()))
        let scheduler = try Scheduler(ledger: ledger)
        scheduler.tick = .milliseconds(20)
        try await scheduler.run(untilIdle: true)
        #expect(ledger.list.tasks[1]?.state == .finished)
        #expect(box.holds("c.bin", seed: 81, size: 300_000))
        let requests = server.requests("/c.bin")
        #expect(!requests.isEmpty)
        let basic = "Basic " + Data("\(Self.proxyUser):\(Self.proxyPassword)".utf8).base64EncodedString()
        for r in requests {
            #expect(r.headers["authorization"] == Self.bearer)
            #expect(r.headers["cookie"] == Self.cookie)
            #expect(r.headers["proxy-authorization"] == basic)
        }
        let secrets = [Self.bearer, Self.cookie, Self.proxyPassword, "S3CR3T"]
        let wal = try Data(contentsOf: URL(fileURLWithPath: box.ledgerPath + "-wal"))
        // In clear here; DledgerTests' credential test also looks for base64 and hex, in every copy.
        for secret in secrets { #expect(wal.range(of: Data(secret.utf8)) == nil) }
        let copy = box.root + "/copy.sqlite"
        _ = try ledger.backup(to: copy)
        #expect(ledger.checkpoint())
        for path in [box.ledgerPath, copy] {
            let bytes = try Data(contentsOf: URL(fileURLWithPath: path))
            for secret in secrets { #expect(bytes.range(of: Data(secret.utf8)) == nil, "\(path)") }
        }
        // The backup is a whole ledger: its vault opens the credentials too.
        guard case .sealed(let auth) = try #require(ledger.list.tasks[1]).options.headers[0].value else {
            Issue.record("not sealed")
            return
        }
        let opened = try Ledger(path: copy).openCredential(auth, task: 1, context: "header:authorization")
        #expect(opened == Self.bearer)
    }

    /// `user:password@` in the URL: logged sealed, sent as curl sends a URL's login, to the URL's host only.
    @Test func aLoginInTheURLIsSealedAndNeverSentToAMirror() async throws {
        let box = try Sandbox()
        let ledger = try box.ledger()
        let resource = Resource(
            size: 3_000_000, seed: 83, etag: "\"u\"", faults: Faults(throttleBytesPerSecond: 3_000_000))
        server.serve("/a/u.bin", resource)
        server.serve("/b/u.bin", resource)
        let own = server.url("/a/u.bin")
        let withLogin = own.replacingOccurrences(of: "http://", with: "http://alice:p%40ss-S3CR3T-url@")
        try ledger.execute(
            .add(
                urls: [withLogin], placement: .end, name: nil, sha256: nil, directory: nil,
                options: TaskOptions(connections: 4, mirrors: [server.url("/b/u.bin")])))
        #expect(ledger.list.tasks[1]?.url == own)
        var config = TransferConfig()
        config.minPieceSize = 256 * 1024
        let scheduler = try Scheduler(ledger: ledger, config: config)
        scheduler.tick = .milliseconds(20)
        try await scheduler.run(untilIdle: true)
        #expect(box.holds("u.bin", seed: 83, size: 3_000_000))
        let basic = "Basic " + Data("alice:p@ss-S3CR3T-url".utf8).base64EncodedString()
        let toURL = server.requests("/a/u.bin")
        let toMirror = server.requests("/b/u.bin")
        #expect(!toURL.isEmpty && !toMirror.isEmpty)
        for r in toURL { #expect(r.headers["authorization"] == basic) }
        for r in toMirror { #expect(r.headers["authorization"] == nil) }
        #expect(ledger.checkpoint())
        let bytes = try Data(contentsOf: URL(fileURLWithPath: box.ledgerPath))
        for secret in ["S3CR3T-url", "p%40ss", "alice:"] {
            #expect(bytes.range(of: Data(secret.utf8)) == nil, "\(secret)")
        }
    }

    /// Repeated, with a time limit: the failure is recorded inside the scheduler's pass, and a run that was not
    /// woken for the slot it freed waited forever now and then (the change notification does not count the
    /// scheduler's own facts).
    @Test(.timeLimit(.minutes(1)), arguments: 0..<8)
    func aCredentialThatDoesNotOpenFailsTheTaskWithoutARequest(round: Int) async throws {
        let box = try Sandbox()
        let ledger = try box.ledger()
        server.serve("/t\(round).bin", Resource(size: 1000, seed: 82))
        try ledger.execute(
            .add(
                urls: [server.url("/t\(round).bin")], placement: .end, name: nil, sha256: nil, directory: nil,
                options: try options()))
        try sqlite3(box.ledgerPath, "UPDATE vault_keys SET key = randomblob(32)")
        let scheduler = try Scheduler(ledger: ledger)
        scheduler.tick = .milliseconds(20)
        try await scheduler.run(untilIdle: true)
        let task = try #require(ledger.list.tasks[1])
        #expect(task.state == .failed)
        #expect(task.failure?.code == "credential")
        #expect(task.failure?.detail.contains("GCM tag mismatch") == true)
        #expect(server.requests("/t\(round).bin").isEmpty)
    }
}
