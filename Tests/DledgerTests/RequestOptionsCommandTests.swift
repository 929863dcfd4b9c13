import Foundation
import LoopbackHTTP
import Testing

/// `add`/`get` request options, `option`, `connections`: logged with the task, shown redacted, refused in one line.
@Suite struct RequestOptionsCommandTests {
    /// The error lines of a refusal, hints left out.
    private func errors(_ r: Finished) -> [Substring] {
        r.err.split(separator: "\n").filter { !$0.hasPrefix("hint: ") }
    }

    @Test(arguments: LedgerStoreKind.allCases)
    func addKeepsTheOptionsWithTheTaskAndEveryOutputShowsThem(store: LedgerStoreKind) async throws {
        let box = try DledgerSandbox(store: store)
        let r = try await box.run(
            "add", "http://example.com/a.iso", "--header", "X-Trace: abc", "--header",
            "Accept-Language: fr",
            "--user-agent", "Mozilla/5.0 test", "--referer", "*", "--proxy", "socks5h://127.0.0.1:1080",
            "--max-speed", "500KB", "--connections", "4", "--mirror", "http://mirror.example.com/a.iso")
        #expect(r.status == 0, "\(r.err)")
        let task = try #require(try await box.task(1))
        let options = try #require(task["options"] as? [String: Any])
        #expect(options["headers"] as? [String] == ["X-Trace: abc", "Accept-Language: fr"])
        #expect(options["userAgent"] as? String == "Mozilla/5.0 test")
        #expect(options["referer"] as? String == "*")
        #expect(options["proxy"] as? String == "socks5h://127.0.0.1:1080")
        #expect(options["maxSpeed"] as? Int == 500_000)
        #expect(options["connections"] as? Int == 4)
        #expect(options["mirrors"] as? [String] == ["http://mirror.example.com/a.iso"])

        let audit = try await box.run("audit", "1")
        #expect(audit.out.contains("header X-Trace: abc") || audit.err.contains("header X-Trace: abc"))
        #expect(audit.out.contains("with header 'X-Trace: abc'"), "\(audit.out)")
        let shown = try await box.run("option", "1")
        #expect(shown.out.contains("max-speed   500000 B/s"), "\(shown.out)")
        #expect(shown.out.contains("mirror      http://mirror.example.com/a.iso"))
        // A task without options has them empty, not absent.
        try await box.run("add", "http://example.com/b")
        let plain = try #require(try await box.task(2)?["options"] as? [String: Any])
        #expect(plain["headers"] as? [String] == [] && plain["maxSpeed"] is NSNull)
    }

    @Test(arguments: LedgerStoreKind.allCases)
    func badValuesAreRefusedInOneLineAndCreateNothing(store: LedgerStoreKind) async throws {
        let box = try DledgerSandbox(store: store)
        for bad in [
            ["--header", "X-A: 1\r\nHost: evil"], ["--header", "no colon"], ["--header", "Range: bytes=0-"],
            ["--proxy", "ftp://127.0.0.1:21"], ["--proxy", "http://u:s3cret@127.0.0.1:3128/path"],
            ["--max-speed", "-1"], ["--connections", "65"], ["--user-agent", "a\u{1b}[31m"],
            ["--mirror", "file:///etc/passwd"], ["--referer", "nope"],
            ["--max-connection-per-server", "0"], ["--max-connection-per-server", "17"],
            ["--max-connection-per-server", "x"], ["--min-split-size", "1000K"], ["--min-split-size", "2G"],
            ["--min-split-size", "-1M"], ["--min-split-size", "lots"],
        ] {
            let r = try await box.run(["add", "http://example.com/a"] + bad)
            #expect(r.status == 64, "\(bad): \(r.err)")
            #expect(errors(r).count == 1 && errors(r).first?.hasPrefix("error: ") == true, "\(bad): \(r.err)")
            #expect(!r.err.contains("s3cret") && !r.err.contains("\u{1b}"), "\(r.err)")
            #expect(try !box.ledgerExists())
        }
        let two = try await box.run(
            "add", "http://example.com/a", "http://example.com/b", "--mirror", "http://example.org/a")
        #expect(two.status == 64 && two.err.contains("--mirror applies to a single URL"), "\(two.err)")
    }

    /// Credentials are sealed by the ledger: every output shows `[redacted]`, and no byte of the file holds them.
    @Test(arguments: LedgerStoreKind.allCases)
    func credentialsAreRedactedInEveryOutputAndAbsentFromTheFile(store: LedgerStoreKind) async throws {
        let box = try DledgerSandbox(store: store)
        let r = try await box.run(
            "add", "http://example.com/a", "--header", "Cookie: sid=s3cret-cookie", "--header",
            "Authorization: Bearer s3cret-token", "--proxy", "http://proxyuser:s3cret-pass@127.0.0.1:3128")
        #expect(r.status == 0, "\(r.err)")
        let options = try #require(try await box.task(1)?["options"] as? [String: Any])
        #expect(options["headers"] as? [String] == ["Cookie: [redacted]", "Authorization: [redacted]"])
        #expect(options["proxy"] as? String == "http://[redacted]@127.0.0.1:3128")
        try await box.run("option", "1", "--max-speed", "1MB")
        var shown = r.out + r.err
        for args in [
            ["ls"], ["ls", "--json"], ["audit", "1"], ["audit", "1", "--json"], ["log"], ["log", "--json"],
            ["option", "1"], ["option", "1", "--json"], ["export"], ["replay", "--to", "2", "--json"],
        ] {
            let out = try await box.run(args)
            #expect(out.status == 0, "\(args): \(out.err)")
            shown += out.out + out.err
        }
        #expect(shown.contains("[redacted]"))
        #expect(!shown.contains("s3cret") && !shown.contains("proxyuser"), "\(shown)")
        for bytes in try box.storedBytes() {
            #expect(bytes.range(of: Data("s3cret".utf8)) == nil, "\(store)")
        }
    }

    /// aria2's `-x` and `-k` per task: kept, shown by `option`, changed alone, refused out of range with nothing
    /// appended.
    @Test(arguments: LedgerStoreKind.allCases)
    func perServerConnectionsAndMinSplitSizeAreKeptShownAndChecked(store: LedgerStoreKind) async throws {
        let box = try DledgerSandbox(store: store)
        let r = try await box.run(
            "add", "http://example.com/a", "--max-connection-per-server", "2", "--min-split-size", "4M")
        #expect(r.status == 0, "\(r.err)")
        var options = try #require(try await box.task(1)?["options"] as? [String: Any])
        #expect(options["connectionsPerServer"] as? Int == 2 && options["minSplitSize"] as? Int == 4 << 20)
        let shown = try await box.run("option", "1")
        #expect(
            shown.out.contains("per-server  2") && shown.out.contains("min-split   4194304 bytes"),
            "\(shown.out)")
        let before = try await box.eventCount()
        for bad in [
            ["--max-connection-per-server", "17"], ["--min-split-size", "1G1"], ["--min-split-size", "1.5G"],
        ] {
            let refused = try await box.run(["option", "1"] + bad)
            #expect(refused.status == 64, "\(bad): \(refused.err)")
        }
        #expect(try await box.eventCount() == before)
        #expect(try await box.run("option", "1", "--min-split-size", "1GiB").status == 0)
        options = try #require(try await box.task(1)?["options"] as? [String: Any])
        #expect(options["connectionsPerServer"] as? Int == 2 && options["minSplitSize"] as? Int == 1 << 30)
        #expect(try await box.eventCount() == before + 1)
    }

    @Test(arguments: LedgerStoreKind.allCases)
    func optionChangesOnlyWhatIsGivenAsOneUndoableEvent(store: LedgerStoreKind) async throws {
        let box = try DledgerSandbox(store: store)
        try await box.run("add", "http://example.com/a", "--user-agent", "UA/1")
        let before = try await box.eventCount()
        let r = try await box.run("option", "1", "--max-speed", "1MB")
        #expect(r.status == 0, "\(r.err)")
        #expect(
            r.err.contains("#1 options set: user-agent 'UA/1', max-speed") || r.out.contains("#1 options set")
        )
        #expect(try await box.eventCount() == before + 1)
        var options = try #require(try await box.task(1)?["options"] as? [String: Any])
        #expect(options["maxSpeed"] as? Int == 1_000_000 && options["userAgent"] as? String == "UA/1")
        let same = try await box.run("option", "1", "--max-speed", "1MB")
        #expect(same.status == 1 && same.err.contains("already has these options"))
        try await box.run("undo")
        options = try #require(try await box.task(1)?["options"] as? [String: Any])
        #expect(options["maxSpeed"] is NSNull && options["userAgent"] as? String == "UA/1")
        try await box.run("option", "1", "--clear")
        options = try #require(try await box.task(1)?["options"] as? [String: Any])
        #expect(options["userAgent"] is NSNull)
        let missing = try await box.run("option", "9", "--max-speed", "1M")
        #expect(missing.status == 64 && missing.err.contains("no task #9"))
    }

    @Test(arguments: LedgerStoreKind.allCases)
    func theDefaultConnectionCountIsShownSetAndRangeChecked(store: LedgerStoreKind) async throws {
        let box = try DledgerSandbox(store: store)
        try await box.run("add", "http://example.com/a")
        #expect(
            try await box.run("connections", "--json").out.trimmingCharacters(in: .whitespacesAndNewlines)
                == "0")
        #expect(try await box.run("connections", "6").status == 0)
        #expect(try await box.run("connections").out == "connections per download: 6\n")
        let bad = try await box.run("connections", "65")
        #expect(bad.status == 64)
        #expect(
            try await box.run("connections", "--json").out.trimmingCharacters(in: .whitespacesAndNewlines)
                == "6")
    }

    // One store: what goes on the wire; options kept in a PostgreSQL ledger are the tests above.
    @Test func getSendsTheHeadersTheUserAgentAndTheReferer() async throws {
        let server = try LoopbackServer()
        defer { server.stop() }
        server.serve("/g.bin", Resource(size: 100_000, seed: 81))
        let box = try DledgerSandbox()
        let r = try await box.run(
            "get", server.url("/g.bin"), "--header", "X-From: cli", "--user-agent", "cli-agent/2",
            "--referer", "http://example.com/page")
        #expect(r.status == 0, "\(r.err)")
        #expect(box.contents("g.bin") == Body.generatedBytes(seed: 81, in: 0..<100_000))
        let seen = server.requests("/g.bin")
        #expect(!seen.isEmpty)
        for request in seen {
            #expect(request.headers["x-from"] == "cli")
            #expect(request.headers["user-agent"] == "cli-agent/2")
            #expect(request.headers["referer"] == "http://example.com/page")
        }
    }
}
