import Foundation
import LoopbackHTTP
import PostgresSupport
import Testing

/// `dledger serve` and `dledger ui` on a ledger in PostgreSQL: RPC calls, another process's commands reaching them
/// by NOTIFY, and the ui telling whose downloader runs from the server's run lock (there is no `.lock` file).
struct PostgresServeUITests {
    @Test(.timeLimit(.minutes(2))) func serveOnAPostgresLedgerAnswersRPCAndDownloadsWhatAnotherProcessAdds()
        async throws
    {
        let box = try DledgerSandbox()
        let uri = try PostgresTestCluster.freshLedger("serve")
        let files = try LoopbackServer()
        files.serve("/a.bin", Resource(size: 100_000, seed: 3))
        files.serve("/b.bin", Resource(size: 80_000, seed: 4))
        let (server, port) = try await ServeCommandTests.serve(
            box, secret: "pw", env: ["DLEDGER_LEDGER": uri])
        func call(_ body: String) throws -> [String: Any] { try ServeCommandTests.call(port, body) }
        let added = try call(
            #"{"jsonrpc":"2.0","id":1,"method":"aria2.addUri","params":["token:pw",["\#(files.url("/a.bin"))"]]}"#
        )
        let gid = try #require(added["result"] as? String, "\(added)")
        let complete = try await eventually {
            let s = try call(
                #"{"jsonrpc":"2.0","id":2,"method":"aria2.tellStatus","params":["token:pw","\#(gid)",["status","totalLength"]]}"#
            )
            let status = s["result"] as? [String: String]
            return status?["status"] == "complete" && status?["totalLength"] == "100000"
        }
        #expect(complete, "\(server.output)")
        #expect(box.contents("a.bin") == Body.generatedBytes(seed: 3, in: 0..<100_000))
        // Another process's add reaches serve's downloader by NOTIFY.
        let other = try await box.run("add", files.url("/b.bin"), env: ["DLEDGER_LEDGER": uri])
        #expect(other.status == 0, "\(other.err)")
        #expect(await eventually { box.contents("b.bin") == Body.generatedBytes(seed: 4, in: 0..<80_000) })
        // A second downloader on the same ledger is refused while serve runs.
        let second = try await box.run("run", "--until-idle", env: ["DLEDGER_LEDGER": uri])
        #expect(second.status != 0 && second.err.contains("another downloader"), "\(second.err)")
        let bye = try call(#"{"jsonrpc":"2.0","id":3,"method":"aria2.shutdown","params":["token:pw"]}"#)
        #expect(bye["result"] as? String == "OK")
        #expect(await server.wait().status == 0)
        let list = try await box.run("ls", "--json", env: ["DLEDGER_LEDGER": uri])
        let tasks = ((list.json as? [String: Any])?["sections"] as? [[String: Any]] ?? [])
            .flatMap { $0["tasks"] as? [[String: Any]] ?? [] }
        #expect(
            list.status == 0 && tasks.map { $0["state"] as? String } == ["finished", "finished"],
            "\(list.out)")
        #expect(!FileManager.default.fileExists(atPath: box.ledger))
    }

    @Test(.enabled(if: TmuxTerminal.isAvailable, "needs tmux"), .timeLimit(.minutes(2)))
    func uiOnAPostgresLedgerShowsTheListItsChangesAndWhoseDownloaderRuns() async throws {
        let box = try DledgerSandbox()
        let uri = try PostgresTestCluster.freshLedger("ui")
        let env = ["DLEDGER_LEDGER": uri]
        #expect(
            try await box.run("add", "http://127.0.0.1:9/a.iso", "http://127.0.0.1:9/b.iso", env: env).status
                == 0)
        #expect(try await box.run("pause", "--all", env: env).status == 0)
        let t = try UITests().ui(box, "--watch", environment: env)
        defer { t.close() }
        let first = try await t.waitFor("#2 b.iso", seconds: 15)
        #expect(first?[0].contains("not downloading") == true, "\(t.shown)")
        #expect(first?[1].contains("2 paused") == true, "\(t.shown)")
        // Another process's change shows up without a key.
        #expect(try await box.run("section", "add", "Later", env: env).status == 0)
        #expect(try await t.waitFor("1 Later", seconds: 10) != nil, "\(t.shown)")
        // A downloader started elsewhere is named by the pid its session gives the server.
        let run = try Running(box.process(["run"], env: env), stdin: nil)
        let pid = run.process.processIdentifier
        let watching = try await t.waitFor(15) {
            $0.first?.contains("watching: pid \(pid) downloads") == true
        }
        #expect(watching != nil, "\(t.shown)")
        run.interrupt()
        _ = await run.wait()
        let gone = try await t.waitFor(15) { $0.first?.contains("not downloading") == true }
        #expect(gone != nil, "\(t.shown)")
        try t.keys("q")
        try await UITests().expectRestored(t, exit: 0)
        #expect(!FileManager.default.fileExists(atPath: box.ledger))
        #expect(!FileManager.default.fileExists(atPath: box.ledger + ".lock"))
    }
}
