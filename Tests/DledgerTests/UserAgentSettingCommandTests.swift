import Foundation
import LoopbackHTTP
import Testing

/// `dledger set user-agent TEXT|default`: the User-Agent every download of the ledger sends unless the task has
/// its own (`add --user-agent`), one undoable event, shown by `set` and offered by the completions.
@Suite struct UserAgentSettingCommandTests {
    @Test(arguments: LedgerStoreKind.allCases)
    func downloadsSendItUnlessTheTaskHasItsOwnAndUndoTakesItBack(store: LedgerStoreKind) async throws {
        let box = try DledgerSandbox(store: store)
        let server = try LoopbackServer()
        server.serve("/a.bin", Resource(size: 20_000, seed: 1))
        server.serve("/b.bin", Resource(size: 20_000, seed: 2))
        server.serve("/c.bin", Resource(size: 20_000, seed: 3))
        let set = try await box.run("set", "user-agent", "fetcher/2.0 (+https://example.com)")
        #expect(set.status == 0, "\(set.err)")
        #expect(set.out == "user-agent set to fetcher/2.0 (+https://example.com)\n")
        #expect(
            try await box.run("set").out.contains(
                "user-agent                 fetcher/2.0 (+https://example.com)\n"))
        let json = try #require(try await box.run("set", "--json").json as? [String: Any])
        #expect(json["user-agent"] as? String == "fetcher/2.0 (+https://example.com)")
        #expect(try await box.run("log").out.contains("userAgentChanged"))

        try await box.run("add", server.url("/a.bin"))
        try await box.run("add", "--user-agent", "own/1", server.url("/b.bin"))
        #expect(try await box.run("run", "--until-idle").status == 0)
        #expect(
            server.requests("/a.bin").map { $0.headers["user-agent"] } == [
                "fetcher/2.0 (+https://example.com)"
            ])
        #expect(server.requests("/b.bin").map { $0.headers["user-agent"] } == ["own/1"])

        // `default` gives the downloader's own back; undo takes that back.
        #expect(try await box.run("set", "user-agent", "default").out == "user-agent: default\n")
        #expect(try await box.run("set").out.contains("user-agent                 default\n"))
        try await box.run("add", server.url("/c.bin"))
        #expect(try await box.run("run", "--until-idle").status == 0)
        let sent = try #require(server.requests("/c.bin").first?.headers["user-agent"])
        #expect(sent.hasPrefix("DownloadLedger/"), "\(sent)")
        let undo = try await box.run("undo", "2")
        #expect(undo.status != 0, "the add of c.bin downloaded data: undo stops there")
        #expect(try await box.run("undo", "--past").status == 0)
        #expect(
            try await box.run("set").out.contains(
                "user-agent                 fetcher/2.0 (+https://example.com)\n"))
    }

    @Test(arguments: LedgerStoreKind.allCases)
    func badValuesAreRefusedAndChangeNothing(store: LedgerStoreKind) async throws {
        let box = try DledgerSandbox(store: store)
        try await box.run("limit", "4")
        let before = try await box.eventCount()
        for bad in ["", "   ", "a\u{1}b", String(repeating: "x", count: 1025)] {
            let r = try await box.run("set", "user-agent", bad)
            #expect(r.status != 0 && r.err.split(separator: "\n").count <= 2, "\(r.err)")
        }
        let missing = try await box.run("set", "user-agent")
        #expect(missing.status == 64, "\(missing.err)")
        #expect(try await box.eventCount() == before)
        let again = try await box.run("set", "user-agent", "default")
        #expect(again.status == 1 && again.err.contains("already the default"), "\(again.err)")
    }

    // No ledger: completions.
    @Test func theCompletionsOfferIt() async throws {
        let box = try DledgerSandbox()
        for shell in ["bash", "zsh", "fish"] {
            let script = try await box.run("completions", shell).out
            #expect(script.contains("user-agent"), "\(shell)")
        }
    }
}
