import Foundation
import LoopbackHTTP
import Testing

/// A referer's `user:password` (issue 26 §7): sealed like a URL's or a proxy's login, so neither the ledger file
/// nor its `-wal` while a downloader writes holds it, every output shows `[redacted]`, and the server gets the
/// real `Referer`.
@Suite struct RefererCredentialTests {
    static let password = "S3CR3T-cli-referer-f1b2"
    static let referer = "http://agent:\(password)@portal.example/page?from=ledger"

    @Test(arguments: LedgerStoreKind.allCases)
    func aReferersPasswordIsSentButNeverKeptOrShownInClear(store: LedgerStoreKind) async throws {
        let box = try DledgerSandbox(store: store)
        let server = try LoopbackServer()
        defer { server.stop() }
        server.serve("/r.bin", Resource(size: 120_000, seed: 94))
        server.serve(
            "/slow.bin", Resource(size: 3_000_000, seed: 95, faults: Faults(throttleBytesPerSecond: 300_000)))
        let added = try await box.run("add", server.url("/r.bin"), "--referer", Self.referer)
        #expect(added.status == 0, "\(added.err)")
        #expect(try await box.run("run", "--until-idle").status == 0)
        #expect(box.contents("r.bin") == Body.generatedBytes(seed: 94, in: 0..<120_000))
        #expect(!server.requests("/r.bin").isEmpty)
        #expect(server.requests("/r.bin").allSatisfy { $0.headers["referer"] == Self.referer })

        // While a downloader writes, neither the file nor its -wal holds the password (on PostgreSQL: a dump of the
        // ledger's schema).
        try await box.run("add", server.url("/slow.bin"), "--referer", Self.referer)
        let runner = try box.start("run")
        #expect(await eventually { partialSize(box.partialPath(2)) > 0 })
        let stored = try box.storedBytes()
        for bytes in stored {
            #expect(SecretScan.leaks([Self.password, "agent:"], in: bytes).isEmpty, "\(store)")
        }
        #expect(stored.count == (store == .sqlite ? 2 : 1))
        runner.interrupt()
        #expect(await runner.wait().status == 130)
        #expect(server.requests("/slow.bin").allSatisfy { $0.headers["referer"] == Self.referer })

        var shown = added.out + added.err
        for args in [
            ["log"], ["log", "--json"], ["export"], ["export", "--json"], ["ls", "--json"], ["audit", "1"],
            ["option", "1"], ["option", "1", "--json"],
        ] {
            let out = try await box.run(args)
            #expect(out.status == 0, "\(args): \(out.err)")
            #expect(out.out.contains("[redacted]@portal.example/page"), "\(args)")
            shown += out.out + out.err
        }
        #expect(SecretScan.leaks([Self.password, "agent:"], in: Data(shown.utf8)).isEmpty)
        #expect(try await box.run("verify", "--skip-files").status == 0)

        // A referer changed by `option` is sealed too, and replaces the old login.
        let other = "S3CR3T-cli-referer-other-77"
        let changed = try await box.run("option", "1", "--referer", "https://bob:\(other)@intranet.example/")
        #expect(changed.status == 0, "\(changed.err)")
        let now = try await box.run("option", "1")
        #expect(now.out.contains("https://[redacted]@intranet.example/"), "\(now.out)")
        for bytes in try box.storedBytes() {
            #expect(SecretScan.leaks([other, "bob:", Self.password], in: bytes).isEmpty)
        }
        let log = try await box.run("log")
        #expect(SecretScan.leaks([other, "bob:"], in: Data((log.out + changed.out).utf8)).isEmpty)
    }

    @Test(arguments: LedgerStoreKind.allCases)
    func aBadRefererIsRefusedWithoutEchoingItsPassword(store: LedgerStoreKind) async throws {
        let box = try DledgerSandbox(store: store)
        let r = try await box.run(
            "add", "http://example.org/a.bin", "--referer", "ftp://agent:\(Self.password)@portal.example/")
        #expect(r.status == 64)
        #expect(r.err.hasPrefix("error: bad referer 'ftp://[redacted]@portal.example/'"), "\(r.err)")
        #expect(!r.err.contains(Self.password))
        #expect(try !box.ledgerExists())
    }
}
