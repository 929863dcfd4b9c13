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
        // The scan finds each form it looks for (so an empty answer below means something).
        for planted in [
            "x" + Self.cookie, Data(Self.cookie.utf8).base64EncodedString(),
            Self.cookie.utf8.map { String(format: "%02X", $0) }.joined(),
        ] {
            #expect(!SecretScan.leaks([Self.cookie], in: Data(planted.utf8)).isEmpty, "\(planted)")
        }
        let wal = try Data(contentsOf: URL(fileURLWithPath: box.ledgerPath + "-wal"))
        #expect(SecretScan.leaks(secrets, in: wal).isEmpty)
        let copy = box.root + "/copy.sqlite"
        _ = try ledger.backup(to: copy)
        #expect(ledger.checkpoint())
        for path in [box.ledgerPath, copy] {
            let bytes = try Data(contentsOf: URL(fileURLWithPath: path))
            #expect(SecretScan.leaks(secrets, in: bytes).isEmpty, "\(path)")
        }
        // The backup is a whole ledger: its vault opens the credentials too.
        guard case .sealed(let auth) = try #require(ledger.list.tasks[1]).options.headers[0].value else {
            Issue.record("not sealed")
            return
        }
        let opened = try Ledger(path: copy).openCredential(auth, task: 1, context: "header:authorization")
        #expect(opened == Self.bearer)
    }

    @Test func aCredentialThatDoesNotOpenFailsTheTaskWithoutARequest() async throws {
        let box = try Sandbox()
        let ledger = try box.ledger()
        server.serve("/t.bin", Resource(size: 1000, seed: 82))
        try ledger.execute(
            .add(
                urls: [server.url("/t.bin")], placement: .end, name: nil, sha256: nil, directory: nil,
                options: try options()))
        try sqlite3(box.ledgerPath, "UPDATE vault_keys SET key = randomblob(32)")
        let scheduler = try Scheduler(ledger: ledger)
        scheduler.tick = .milliseconds(20)
        try await scheduler.run(untilIdle: true)
        let task = try #require(ledger.list.tasks[1])
        #expect(task.state == .failed)
        #expect(task.failure?.code == "credential")
        #expect(task.failure?.detail.contains("GCM tag mismatch") == true)
        #expect(server.requests("/t.bin").isEmpty)
    }
}

/// Finds secrets in bytes: in clear, base64 (at each of the three alignments) and hex (either case).
enum SecretScan {
    static func leaks(_ secrets: [String], in data: Data) -> [String] {
        let haystack = [UInt8](data)
        var found: [String] = []
        for secret in secrets {
            let bytes = Array(secret.utf8)
            var forms: [(String, [UInt8])] = [("clear", bytes)]
            for shift in 0..<3 where bytes.count > shift + 6 {
                // Drop the last characters, which depend on what follows the secret in the encoded stream.
                let encoded = Data(bytes[shift...]).base64EncodedString().dropLast(4)
                forms.append(("base64", Array(encoded.utf8)))
            }
            let hex = bytes.map { String(format: "%02x", $0) }.joined()
            forms.append(("hex", Array(hex.utf8)))
            forms.append(("HEX", Array(hex.uppercased().utf8)))
            for (form, needle) in forms where contains(haystack, needle) {
                found.append("\(secret) as \(form)")
            }
        }
        return found
    }

    private static func contains(_ haystack: [UInt8], _ needle: [UInt8]) -> Bool {
        guard !needle.isEmpty, haystack.count >= needle.count else { return false }
        var start = haystack.startIndex
        while let at = haystack[start...].firstIndex(of: needle[0]), at + needle.count <= haystack.count {
            if haystack[at..<at + needle.count].elementsEqual(needle) { return true }
            start = at + 1
        }
        return false
    }
}
