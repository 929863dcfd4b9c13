import Foundation
import LoopbackHTTP
import Testing

@Suite struct RunCommandsTests {
    @Test(arguments: LedgerStoreKind.allCases)
    func getDownloadsByteIdenticalFilesAndExits0(store: LedgerStoreKind) async throws {
        let box = try DledgerSandbox(store: store)
        let server = try LoopbackServer()
        server.serve("/a.bin", Resource(size: 300_000, seed: 1))
        server.serve("/b.bin", Resource(size: 70_000, seed: 2, faults: Faults(failFirst: 1, failStatus: 503)))
        let r = try await box.run("get", server.url("/a.bin"), server.url("/b.bin"), "-j", "2")
        #expect(r.status == 0, "\(r.err)")
        #expect(r.out.contains("finished #1 a.bin (300 KB)"))
        #expect(r.out.contains("saved #2 \(box.downloads)/b.bin"))
        #expect(!r.out.contains("\u{1B}["))
        #expect(box.contents("a.bin") == Body.generatedBytes(seed: 1, in: 0..<300_000))
        #expect(box.contents("b.bin") == Body.generatedBytes(seed: 2, in: 0..<70_000))
        // The log says why #2 needed a second attempt.
        let audit = try await box.run("audit", "2")
        // The kind column is as wide as the longest kind the catalog has: whatever that is, one line says it.
        let retried = audit.out.split(separator: "\n").first { $0.contains(" transferRetrying ") }
        let text = retried.map { $0[$0.range(of: "transferRetrying")!.upperBound...].drop { $0 == " " } }
        #expect(
            text?.hasPrefix(
                "#2 attempt failed: the server answered HTTP 503 (Service Unavailable), retrying in ")
                == true, "\(audit.out)")
        let again = try await box.run("get", server.url("/a.bin"))
        #expect(again.status == 0)
        #expect(again.out.contains("already in the list: #1 (finished)"))
    }

    @Test(arguments: LedgerStoreKind.allCases)
    func getExits1WhenADownloadFails(store: LedgerStoreKind) async throws {
        let box = try DledgerSandbox(store: store)
        let server = try LoopbackServer()
        server.serve("/ok.bin", Resource(size: 10_000, seed: 1))
        let r = try await box.run("get", server.url("/ok.bin"), server.url("/missing.bin"))
        #expect(r.status == 1)
        #expect(r.out.contains("finished #1 ok.bin"))
        #expect(r.err.contains("#2 missing.bin: "))
        #expect(r.err.contains("error: 1 of 2 downloads did not finish"))
        #expect(try await box.task(2)?["state"] as? String == "failed")
    }

    @Test(arguments: LedgerStoreKind.allCases)
    func runFollowsAPauseFromAnotherProcess(store: LedgerStoreKind) async throws {
        let box = try DledgerSandbox(store: store)
        let server = try LoopbackServer()
        server.serve(
            "/slow.bin", Resource(size: 400_000, seed: 5, faults: Faults(throttleBytesPerSecond: 80_000)))
        try await box.run("add", server.url("/slow.bin"))
        let runner = try box.start("run")
        let partial = box.downloads + "/.dledger/partial/1.part"
        let started = await eventually { partialSize(partial) > 0 }
        #expect(started)
        let pause = try await box.run("pause", "1")
        #expect(pause.status == 0)
        #expect(pause.out == "paused #1\n")
        // A pause keeps the connection; ls and the log say so.
        let held = try await eventually(5) {
            try await box.run("log", "--task", "1", "--json").jsonLines.contains {
                $0["kind"] as? String == "transferHeld"
            }
        }
        #expect(held)
        let ls = try await box.run("ls").out
        #expect(ls.contains("paused") && ls.contains("slow.bin  (connection kept)"), "\(ls)")
        #expect(
            try await box.run("log", "--task", "1").out.contains(
                "connection kept (resumes the same response)"))
        runner.interrupt()
        let finished = await runner.wait()
        #expect(finished.status == 130)
        let kinds = try await box.run("log", "--task", "1", "--json").jsonLines.compactMap {
            $0["kind"] as? String
        }
        // Ctrl-C released the kept connection: the transfer stopped, to resume with a Range request.
        let paused = try #require(kinds.firstIndex(of: "tasksPaused"))
        let transferHeld = try #require(kinds.firstIndex(of: "transferHeld"))
        let transferPaused = try #require(kinds.firstIndex(of: "transferPaused"))
        #expect(paused < transferHeld && transferHeld < transferPaused)
        #expect(try await box.task(1)?["state"] as? String == "paused")
        #expect(finished.out.contains("paused   #1 slow.bin"))
    }

    @Test(arguments: LedgerStoreKind.allCases)
    func getInterruptedThenFinishedByRunWithARangeRequest(store: LedgerStoreKind) async throws {
        let box = try DledgerSandbox(store: store)
        let server = try LoopbackServer()
        let size: Int64 = 300_000
        server.serve(
            "/big.bin",
            Resource(size: size, seed: 9, etag: "\"v1\"", faults: Faults(throttleBytesPerSecond: 60_000)))
        let getter = try box.start("get", server.url("/big.bin"))
        let partial = box.downloads + "/.dledger/partial/1.part"
        let started = await eventually { partialSize(partial) > 20_000 }
        #expect(started)
        getter.interrupt()
        let interrupted = await getter.wait()
        #expect(interrupted.status == 130)
        #expect(interrupted.err.contains("interrupted: #1 will resume where they stopped with 'dledger run'"))
        #expect(try await box.task(1)?["state"] as? String == "waiting")
        let kept = try #require(try await box.task(1)?["bytes"] as? Int)
        #expect(kept > 0)
        server.serve("/big.bin", Resource(size: size, seed: 9, etag: "\"v1\""))
        let run = try await box.run("run", "--until-idle")
        #expect(run.status == 0, "\(run.err)")
        #expect(box.contents("big.bin") == Body.generatedBytes(seed: 9, in: 0..<size))
        let ranges = server.requests("/big.bin").compactMap(\.range)
        #expect(ranges.contains { $0.hasPrefix("bytes=") && !$0.hasPrefix("bytes=0-") })
    }

    /// With --json, stdout is one document a script can parse: every task's result (the progress lines go to
    /// stderr); a failure still exits 1.
    @Test(arguments: LedgerStoreKind.allCases)
    func getAndRunWithJSONPrintOneDocument(store: LedgerStoreKind) async throws {
        let box = try DledgerSandbox(store: store)
        let server = try LoopbackServer()
        server.serve("/a.bin", Resource(size: 50_000, seed: 3))
        let r = try await box.run("get", "--json", server.url("/a.bin"), server.url("/missing.bin"))
        #expect(r.status == 1)
        let doc = try #require(r.json as? [String: Any], "stdout: \(r.out)")
        #expect(doc["interrupted"] as? Bool == false)
        let tasks = try #require(doc["tasks"] as? [[String: Any]])
        #expect(tasks.map { $0["state"] as? String } == ["finished", "failed"])
        #expect(tasks[0]["file"] as? String == box.downloads + "/a.bin")
        #expect(box.contents("a.bin") == Body.generatedBytes(seed: 3, in: 0..<50_000))
        // The digest printed is the one recorded, and the recorded one is the file's (verify --checksums).
        #expect((tasks[0]["sha256"] as? String)?.count == 64)
        #expect(tasks[0]["sha256"] as? String == (try await box.task(1))?["sha256"] as? String)
        #expect(try await box.run("verify", "--checksums").status == 0)
        #expect((tasks[1]["failure"] as? [String: Any])?["code"] as? String == "http")
        #expect(r.err.contains("finished #1 a.bin"))
        server.serve("/b.bin", Resource(size: 1_000, seed: 4))
        _ = try await box.run("add", server.url("/b.bin"))
        let run = try await box.run("run", "--until-idle", "--json")
        #expect(run.status == 0, "\(run.err)")
        let summary = try #require(run.json as? [String: Any], "stdout: \(run.out)")
        #expect((summary["states"] as? [String: Any])?["finished"] as? Int == 2)
        #expect(summary["failed"] as? [Int] == [])
    }

    @Test(arguments: LedgerStoreKind.allCases)
    func runUntilIdleOnAnEmptyLedgerReturnsAtOnce(store: LedgerStoreKind) async throws {
        let box = try DledgerSandbox(store: store)
        let r = try await box.run("run", "--until-idle")
        #expect(r.status == 0)
        #expect(r.out.contains("idle: 0 finished"))
    }
}

func partialSize(_ path: String) -> Int64 {
    ((try? FileManager.default.attributesOfItem(atPath: path))?[.size] as? NSNumber)?.int64Value ?? 0
}
