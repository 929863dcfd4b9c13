import Foundation
import LoopbackHTTP
import Testing

/// `--max-size` and the ledger's `max-size` setting bound what a server can make a download grow to (issue 10 §6).
@Suite struct MaxSizeTests {
    // One store: the transfer's bound; the ledger's max-size setting runs on both below.
    @Test func anEndlessBodyFailsAtTheMaximumAndLeavesNothing() async throws {
        let box = try DledgerSandbox()
        let server = try LoopbackServer()
        var faults = Faults()
        faults.endlessBody = true
        server.serve("/endless", Resource(size: 1000, seed: 1, chunked: true, faults: faults))

        let r = try await box.run("get", server.url("/endless"), "--max-size", "1MB")

        #expect(r.status == 1)
        let words = "too large: the body went past the 1.0 MB maximum size without an announced length"
        #expect(r.err.contains("#1 endless: \(words)"), "\(r.err)")
        #expect(server.requests("/endless").count == 1)
        let hidden =
            (try? FileManager.default.contentsOfDirectory(atPath: box.downloads + "/.dledger/partial")) ?? []
        #expect(hidden.isEmpty, "\(hidden)")
        let visible = try FileManager.default.contentsOfDirectory(atPath: box.downloads).filter {
            $0 != ".dledger"
        }
        #expect(visible.isEmpty)
        let failure = try await box.task(1)?["failure"] as? [String: Any]
        #expect(failure?["code"] as? String == "tooLarge" && failure?["detail"] as? String == "1000000")
    }

    @Test(arguments: LedgerStoreKind.allCases)
    func theLedgerSettingRefusesALargerFileAndARunMayOverrideIt(store: LedgerStoreKind) async throws {
        let box = try DledgerSandbox(store: store)
        let server = try LoopbackServer()
        server.serve("/big.bin", Resource(size: 200_000, seed: 2))

        let set = try await box.run("set", "max-size", "100KB")
        #expect(set.status == 0, "\(set.err)")
        #expect(try await box.run("set").out.contains("max-size                   100 KB"))
        let settings = try await box.run("set", "--json").json as? [String: Any]
        #expect(settings?["max-size"] as? Int == 100_000)
        let refused = try await box.run("get", server.url("/big.bin"))
        #expect(refused.status == 1)
        #expect(
            refused.err.contains(
                "#1 big.bin: too large: the server announced 200 KB, over the 100 KB maximum size"),
            "\(refused.err)")
        #expect(server.requests("/big.bin").count == 1)

        // One run's own maximum wins over the ledger's.
        let allowed = try await box.run("get", server.url("/big.bin"), "--max-size", "1MiB")
        #expect(allowed.status == 0, "\(allowed.err)")
        #expect(box.contents("big.bin") == Body.generatedBytes(seed: 2, in: 0..<200_000))

        // Back to the default, and undo takes it back.
        #expect(try await box.run("set", "max-size", "default").status == 0)
        #expect(try await box.run("set").out.contains("max-size                   default"))
        #expect(try await box.run("undo").status == 0)
        #expect(try await box.run("set").out.contains("max-size                   100 KB"))
        let log = try await box.run("log").out
        #expect(log.contains("max-size set to 100 KB: a larger file fails"), "\(log)")
    }

    @Test(arguments: LedgerStoreKind.allCases)
    func aTasksOwnMaximumIsKeptWithItAndCanBeRemoved(store: LedgerStoreKind) async throws {
        let box = try DledgerSandbox(store: store)
        let server = try LoopbackServer()
        server.serve("/big.bin", Resource(size: 200_000, seed: 3))
        #expect(try await box.run("set", "max-size", "1M").status == 0)

        let add = try await box.run("add", server.url("/big.bin"), "--max-size", "100KB")
        #expect(add.status == 0, "\(add.err)")
        let own = try await box.run("option", "1", "--json").json as? [String: Any]
        #expect(own?["maxSize"] as? Int == 100_000)
        let refused = try await box.run("run", "--until-idle")
        #expect(refused.status == 1)
        let failure = try await box.task(1)?["failure"] as? [String: Any]
        #expect(failure?["detail"] as? String == "100000:200000", "\(String(describing: failure))")

        // Without its own, the ledger's 1 MB lets it through.
        #expect(try await box.run("option", "1", "--max-size", "default").status == 0)
        #expect(try await box.run("resume", "1").status == 0)
        let finished = try await box.run("run", "--until-idle")
        #expect(finished.status == 0, "\(finished.err)")
        #expect(box.contents("big.bin") == Body.generatedBytes(seed: 3, in: 0..<200_000))
        #expect(try await box.run("log").out.contains("max-size 100 KB"))
    }

    @Test(arguments: LedgerStoreKind.allCases)
    func badSizesAreRefusedAndChangeNothing(store: LedgerStoreKind) async throws {
        let box = try DledgerSandbox(store: store)
        try await box.run("add", "http://127.0.0.1:9/a.bin")
        let before = try await box.eventCount()
        for bad in ["abc", "0", "0.1K", "999", "2E", "1e9", "-5", "nan", "10QB", "5iB", ""] {
            let r = try await box.run("set", "max-size", bad)
            #expect(r.status == 64, "set max-size '\(bad)': \(r.status) \(r.err)")
            #expect(r.err.hasPrefix("error: "), "\(bad): \(r.err)")
            let run = try await box.run("run", "--until-idle", "--max-size", bad)
            #expect(run.status == 64, "run --max-size '\(bad)': \(run.status)")
            let add = try await box.run("add", "http://127.0.0.1:9/b.bin", "--max-size", bad)
            #expect(add.status == 64, "add --max-size '\(bad)': \(add.status)")
        }
        #expect(try await box.eventCount() == before)
    }
}
