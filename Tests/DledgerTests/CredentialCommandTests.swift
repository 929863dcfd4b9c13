import Foundation
import LoopbackHTTP
import Testing

/// Credentials through the CLI, end to end: `add --header … --proxy user:pass@…`, the server (origin and proxy)
/// gets them, and no byte of the ledger, its `-wal` while a downloader writes, a backup or any output holds them
/// (in clear, base64 or hex). Purge deletes the key and the log still verifies; an altered key fails the task.
@Suite struct CredentialCommandTests {
    static let bearer = "Bearer S3CR3T-cli-bearer-a8f1"
    static let cookie = "sid=S3CR3T-cli-cookie-b2e4"
    static let password = "S3CR3T-cli-pass-c7d9"
    /// A service's own key header: a credential by its name, though not one of the three standard ones.
    static let apiKey = "S3CR3T-cli-apikey-d3f6"
    static let secrets = [bearer, cookie, password, apiKey, "S3CR3T"]

    /// `add` arguments with both credential headers and a proxy (LoopbackHTTP serves absolute-form requests).
    static func credentialArguments(proxyPort: UInt16) -> [String] {
        [
            "--header", "Authorization: \(bearer)", "--header", "Cookie: \(cookie)", "--header",
            "X-Api-Key: \(apiKey)", "--proxy", "http://agent:\(password)@127.0.0.1:\(proxyPort)",
        ]
    }

    @Test(arguments: LedgerStoreKind.allCases)
    func theServerGetsTheCredentialsAndNoCopyOrOutputShowsThem(store: LedgerStoreKind) async throws {
        let box = try DledgerSandbox(store: store)
        let server = try LoopbackServer()
        server.serve("/c.bin", Resource(size: 200_000, seed: 91))
        server.serve(
            "/slow.bin", Resource(size: 3_000_000, seed: 92, faults: Faults(throttleBytesPerSecond: 300_000)))
        let credentials = Self.credentialArguments(proxyPort: server.port)
        let added = try await box.run(["add", "http://files.invalid/c.bin"] + credentials)
        #expect(added.status == 0, "\(added.err)")
        #expect(try await box.run("run", "--until-idle").status == 0)
        #expect(box.contents("c.bin") == Body.generatedBytes(seed: 91, in: 0..<200_000))
        let basic = "Basic " + Data("agent:\(Self.password)".utf8).base64EncodedString()
        let requests = server.requests("/c.bin")
        #expect(!requests.isEmpty)
        for r in requests {
            #expect(r.headers["authorization"] == Self.bearer && r.headers["cookie"] == Self.cookie)
            #expect(r.headers["proxy-authorization"] == basic)
            #expect(r.headers["x-api-key"] == Self.apiKey)
        }

        // While a downloader writes, the -wal holds the latest events: none of them in clear either (on
        // PostgreSQL: a dump of the ledger's schema).
        try await box.run(["add", "http://files.invalid/slow.bin"] + credentials)
        let runner = try box.start("run")
        #expect(await eventually { partialSize(box.partialPath(2)) > 0 })
        let copy = box.root + "/copy.sqlite"
        #expect(try await box.run("backup", copy).status == 0)
        let stored = try box.storedBytes() + [FileManager.default.contents(atPath: copy)].compactMap { $0 }
        for bytes in stored {
            #expect(SecretScan.leaks(Self.secrets, in: bytes).isEmpty, "\(store)")
        }
        #expect(stored.count == (store == .sqlite ? 3 : 2))
        runner.interrupt()
        #expect(await runner.wait().status == 130)
        #expect(server.requests("/slow.bin").allSatisfy { $0.headers["cookie"] == Self.cookie })

        var shown = ""
        for args in [
            ["export"], ["export", "--json"], ["log", "--json"], ["ls", "--json"], ["audit", "2", "--json"],
            ["--ledger", copy, "export", "--json"], ["--ledger", copy, "log"],
        ] {
            let out = try await box.run(args)
            #expect(out.status == 0, "\(args): \(out.err)")
            shown += out.out + out.err
        }
        #expect(shown.contains("[redacted]"))
        #expect(SecretScan.leaks(Self.secrets + ["agent:"], in: Data(shown.utf8)).isEmpty)
        // The log holds the sealed form, which the chain covers.
        #expect(try await box.run("log", "--json").out.contains("sealed:v1:2:"))

        // Purge: the key goes, the log still verifies, the other task keeps its key.
        #expect(try await box.run("rm", "1").status == 0)
        #expect(try await box.run("purge", "1").status == 0)
        #expect(try box.query("SELECT task FROM vault_keys ORDER BY task") == "2")
        let verify = try await box.run("verify", "--skip-files")
        #expect(verify.status == 0, "\(verify.out)\(verify.err)")
        // The backup taken before the purge still holds task 1's key: a copy is a whole ledger.
        #expect(try sqliteText(copy, "SELECT group_concat(task) FROM vault_keys") == "1,2")
    }

    /// A URL's own `user:password@`: sealed like any credential, sent to its host, never shown.
    @Test(arguments: LedgerStoreKind.allCases)
    func aLoginInTheURLIsSentButNeverLoggedOrShown(store: LedgerStoreKind) async throws {
        let box = try DledgerSandbox(store: store)
        let server = try LoopbackServer()
        server.serve("/l.bin", Resource(size: 150_000, seed: 93))
        let login = "bob:S3CR3T-cli-login-e5a0"
        let bare = server.url("/l.bin")
        let refused = try await box.run("add", bare.replacingOccurrences(of: "http://", with: "http://@"))
        #expect(try refused.status != 0 && !box.ledgerExists(), "\(refused.out)")
        let added = try await box.run(
            "add", bare.replacingOccurrences(of: "http://", with: "http://\(login)@"))
        #expect(added.status == 0, "\(added.err)")
        #expect(try await box.run("run", "--until-idle").status == 0)
        #expect(box.contents("l.bin") == Body.generatedBytes(seed: 93, in: 0..<150_000))
        let basic = "Basic " + Data(login.utf8).base64EncodedString()
        #expect(!server.requests("/l.bin").isEmpty)
        #expect(server.requests("/l.bin").allSatisfy { $0.headers["authorization"] == basic })
        var shown = added.out + added.err
        for args in [
            ["ls", "--json"], ["export", "--json"], ["log"], ["audit", "1"], ["option", "1", "--json"],
        ] {
            let out = try await box.run(args)
            #expect(out.status == 0, "\(args): \(out.err)")
            shown += out.out + out.err
        }
        #expect(shown.contains(bare) && shown.contains(#""login": "[redacted]""#))
        #expect(SecretScan.leaks(["S3CR3T", "bob:"], in: Data(shown.utf8)).isEmpty)
        for bytes in try box.storedBytes() {
            #expect(SecretScan.leaks(["S3CR3T", "bob:"], in: bytes).isEmpty)
        }
    }

    @Test(arguments: LedgerStoreKind.allCases)
    func anAlteredKeyFailsTheTaskWithTheReasonAndSendsNothing(store: LedgerStoreKind) async throws {
        let box = try DledgerSandbox(store: store)
        let server = try LoopbackServer()
        server.serve("/k.bin", Resource(size: 10_000, seed: 93))
        let credentials = Self.credentialArguments(proxyPort: server.port)
        #expect(try await box.run(["add", server.url("/k.bin")] + credentials).status == 0)
        switch store {
        case .sqlite: try box.editLedger("UPDATE vault_keys SET key = randomblob(32)")
        case .postgres:
            try box.editLedger(
                "UPDATE vault_keys SET key = decode(md5(random()::text) || md5(random()::text), 'hex')")
        }
        let run = try await box.run("run", "--until-idle")
        #expect(run.status == 1, "\(run.out)\(run.err)")  // a task failed during the run
        #expect(run.out.contains("credential: does not open"), "\(run.out)")
        let task = try #require(try await box.task(1))
        #expect(task["state"] as? String == "failed")
        let failure = try #require(task["failure"] as? [String: Any])
        #expect(failure["code"] as? String == "credential")
        #expect((failure["detail"] as? String)?.contains("GCM tag mismatch") == true)
        let ls = try await box.run("ls")
        #expect(ls.out.contains("credential: does not open"), "\(ls.out)")
        #expect(server.requests("/k.bin").isEmpty)
    }
}

/// Runs the sqlite3 shell and returns its output, trimmed.
@discardableResult
func sqliteText(_ path: String, _ sql: String) throws -> String {
    let p = Process()
    p.executableURL = URL(fileURLWithPath: "/usr/bin/sqlite3")
    p.arguments = [path, sql]
    let out = Pipe()
    p.standardOutput = out
    try p.run()
    let data = out.fileHandleForReading.readDataToEndOfFile()
    p.waitUntilExit()
    return String(decoding: data, as: UTF8.self).trimmingCharacters(in: .whitespacesAndNewlines)
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
                // The last characters depend on what follows the secret in the encoded stream: left out.
                let encoded = Data(bytes[shift...]).base64EncodedString().dropLast(4)
                forms.append(("base64", Array(encoded.utf8)))
            }
            let hex = bytes.map { String(format: "%02x", $0) }.joined()
            forms += [("hex", Array(hex.utf8)), ("HEX", Array(hex.uppercased().utf8))]
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

@Test func theSecretScanFindsEachFormItLooksFor() {
    let secret = "sid=S3CR3T-scan"
    let hex = secret.utf8.map { String(format: "%02X", $0) }.joined()
    for planted in ["x" + secret + "y", "ab" + Data(("z" + secret).utf8).base64EncodedString(), hex] {
        #expect(SecretScan.leaks([secret], in: Data(planted.utf8)).count == 1, "\(planted)")
    }
    #expect(SecretScan.leaks([secret], in: Data("sid=S3CR3T-sca".utf8)).isEmpty)
}
