import Foundation
import LedgerStore
import Testing

@testable import DownloadLedger

/// Credentials through the library: sealed before the append, keys committed and purged with their events, opened
/// only by the downloader's path.
@Suite struct CredentialTests {
    static let bearer = "Bearer S3CR3T-lib-bearer-7f3a"
    static let cookie = "sid=S3CR3T-lib-cookie-91c2"
    static let proxyPassword = "S3CR3T-lib-proxy-5d0e"

    static func secretOptions() throws -> TaskOptions {
        TaskOptions(
            headers: [
                try Validation.header("Authorization: \(bearer)"), try Validation.header("Cookie: \(cookie)"),
                try Validation.header("X-Plain: visible"),
            ],
            proxy: "http://user:\(proxyPassword)@127.0.0.1:3128")
    }

    static func add(_ ledger: Ledger, _ url: String, options: TaskOptions) throws -> Outcome {
        try ledger.execute(
            .add(urls: [url], placement: .end, name: nil, sha256: nil, directory: nil, options: options))
    }

    static let secrets = [bearer, cookie, proxyPassword]

    /// Every stored payload, as one byte string.
    static func payloads(_ box: Sandbox) throws -> [UInt8] {
        let store = try SQLiteEventStore(path: box.ledgerPath, readOnly: true)
        return try store.events(after: 0, through: nil, limit: nil).flatMap(\.payload)
    }

    @Test func anAddSealsEveryCredentialAndTheDownloaderAloneOpensThem() throws {
        let box = try Sandbox()
        let ledger = try box.ledger()
        let outcome = try Self.add(ledger, "https://example.com/a.iso", options: try Self.secretOptions())
        let task = try #require(ledger.list.tasks[1])
        let o = task.options
        #expect(o.proxy == "http://127.0.0.1:3128" && !o.hasPlainCredentials)
        #expect(o.headers[2].value == .plain("visible"))
        guard case .sealed(let auth) = o.headers[0].value, case .sealed(let cookie) = o.headers[1].value,
            case .sealed(let user)? = o.proxyUserinfo
        else {
            Issue.record("credentials not sealed: \(o.redactedLines)")
            return
        }
        // What the caller gets back is the sealed entry too.
        if case .tasksAdded(let tasks, _, _, _) = outcome.entry.event {
            #expect(tasks[0].options == o)
        }
        let payload = String(decoding: try Self.payloads(box), as: UTF8.self)
        #expect(payload.contains(auth.ciphertext) && payload.contains("\"X-Plain\""))
        for secret in Self.secrets { #expect(!payload.contains(secret)) }
        #expect(try ledger.openCredential(auth, task: 1, context: "header:authorization") == Self.bearer)
        #expect(try ledger.openCredential(cookie, task: 1, context: "header:cookie") == Self.cookie)
        #expect(try ledger.openCredential(user, task: 1, context: "proxy") == "user:\(Self.proxyPassword)")
        // Out of place, it does not open.
        #expect(throws: VaultError.self) {
            try ledger.openCredential(cookie, task: 1, context: "header:authorization")
        }
        #expect(throws: VaultError.self) {
            try ledger.openCredential(cookie, task: 2, context: "header:cookie")
        }
        #expect(try SQLiteEventStore(path: box.ledgerPath, readOnly: true).vaultTasks() == [1])
        // The log, reopened from the file, carries the same sealed values.
        #expect(try Ledger(path: box.ledgerPath).list.tasks[1]?.options == o)
    }

    @Test func aPurgeDeletesTheKeyAndTheLogStillVerifies() throws {
        let box = try Sandbox()
        let ledger = try box.ledger()
        _ = try Self.add(ledger, "https://example.com/a.iso", options: try Self.secretOptions())
        _ = try Self.add(ledger, "https://example.com/b.iso", options: try Self.secretOptions())
        guard case .sealed(let auth) = try #require(ledger.list.tasks[1]).options.headers[0].value else {
            Issue.record("not sealed")
            return
        }
        try ledger.execute(.delete(.tasks([1]), mode: .all))
        #expect(try ledger.openCredential(auth, task: 1, context: "header:authorization") == Self.bearer)
        try ledger.execute(.purge([1]))
        let store = try SQLiteEventStore(path: box.ledgerPath, readOnly: true)
        #expect(try store.vaultTasks() == [2])
        let error = #expect(throws: VaultError.self) {
            try ledger.openCredential(auth, task: 1, context: "header:authorization")
        }
        #expect(error == .purged(task: 1))
        #expect("\(error!)".hasPrefix("credential purged"))
        let report = try ledger.verify(checkFiles: false)
        #expect(report.isValid, "\(report.problems)")
    }

    @Test func aRefusedCommandStoresNoKeyAndCreatesNoLedger() throws {
        let box = try Sandbox()
        let ledger = try Ledger(
            path: box.ledgerPath, creatingWithDirectory: box.downloads, deferringCreation: true)
        var bad = try Self.secretOptions()
        bad.mirrors = ["https://example.com/a.iso"]  // its own URL: refused
        #expect(throws: LedgerError.self) { try Self.add(ledger, "https://example.com/a.iso", options: bad) }
        #expect(!FileManager.default.fileExists(atPath: box.ledgerPath))
        // The first command that succeeds writes the file whole: its events and its key.
        _ = try Self.add(ledger, "https://example.com/a.iso", options: try Self.secretOptions())
        let store = try SQLiteEventStore(path: box.ledgerPath, readOnly: true)
        #expect(try store.vaultTasks() == [1])
        guard case .sealed(let auth) = try #require(ledger.list.tasks[1]).options.headers[0].value else {
            Issue.record("not sealed")
            return
        }
        #expect(try ledger.openCredential(auth, task: 1, context: "header:authorization") == Self.bearer)
        for secret in Self.secrets {
            #expect(!String(decoding: try Self.payloads(box), as: UTF8.self).contains(secret))
        }
    }

    @Test func newOptionsReuseTheTasksKeyAndUndoKeepsItWhileRedoCan() throws {
        let box = try Sandbox()
        let ledger = try box.ledger()
        _ = try Self.add(ledger, "https://example.com/a.iso", options: TaskOptions())
        var options = TaskOptions(headers: [try Validation.header("Cookie: \(Self.cookie)")])
        try ledger.execute(.setOptions(1, options))
        let store = try SQLiteEventStore(path: box.ledgerPath, readOnly: true)
        let key = try #require(try store.vaultKey(task: 1))
        options.headers[0] = try Validation.header("Cookie: other-S3CR3T")
        try ledger.execute(.setOptions(1, options))
        #expect(try store.vaultKey(task: 1) == key)
        #expect(try store.vaultTasks() == [1])
        // An add undone keeps its key while redo can bring the task back; once nothing can, the next purge
        // deletes it.
        _ = try Self.add(ledger, "https://example.com/b.iso", options: try Self.secretOptions())
        try ledger.execute(.undo)
        #expect(ledger.list.tasks[2] == nil)
        #expect(try store.vaultTasks() == [1, 2])
        try ledger.execute(.redo)
        guard case .sealed(let auth) = try #require(ledger.list.tasks[2]).options.headers[0].value else {
            Issue.record("not sealed")
            return
        }
        #expect(try ledger.openCredential(auth, task: 2, context: "header:authorization") == Self.bearer)
        try ledger.execute(.undo)
        try ledger.add(["https://example.com/c.iso"])  // clears the redo stack
        try ledger.execute(.delete(.tasks([3]), mode: .all))
        try ledger.execute(.purge([3]))
        #expect(try store.vaultTasks() == [1])
    }

    @Test func aKeyOrValueAlteredInTheFileFailsClearly() throws {
        let box = try Sandbox()
        let ledger = try box.ledger()
        _ = try Self.add(ledger, "https://example.com/a.iso", options: try Self.secretOptions())
        guard case .sealed(let auth) = try #require(ledger.list.tasks[1]).options.headers[0].value else {
            Issue.record("not sealed")
            return
        }
        var box2 = try #require(SealedSecret(auth)).box
        box2[0] ^= 1
        let edited = SealedValue(SealedSecret(keyTask: 1, nonce: SealedSecret(auth)!.nonce, box: box2))
        let error = #expect(throws: VaultError.self) {
            try ledger.openCredential(edited, task: 1, context: "header:authorization")
        }
        #expect("\(error!)".contains("GCM tag mismatch"))
        #expect(throws: VaultError.self) {
            try ledger.openCredential(
                SealedValue(ciphertext: "not sealed"), task: 1, context: "header:authorization")
        }
        try sqlite3(box.ledgerPath, "UPDATE vault_keys SET key = randomblob(32)")
        #expect(throws: VaultError.failedToOpen(task: 1, reason: "authentication failed (GCM tag mismatch)"))
        {
            try ledger.openCredential(auth, task: 1, context: "header:authorization")
        }
    }
}
