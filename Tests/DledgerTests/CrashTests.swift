import Foundation
import Glibc
import LoopbackHTTP
import Testing

/// `kill -9` of a running `dledger` (ARCHITECTURE.md, invariant 8): no acknowledged event is lost, the hash chain
/// stays intact, the dead process's run lock blocks nobody, and the next run resumes each partial file with a
/// Range request from the byte where it stopped.
@Suite struct CrashTests {
    @Test(arguments: LedgerStoreKind.allCases)
    func killedTwiceWhileDownloadingThenEveryFileResumesWithARange(store: LedgerStoreKind) async throws {
        let box = try DledgerSandbox(store: store)
        let server = try LoopbackServer()
        defer { server.stop() }
        let size: Int64 = 1_500_000
        let paths = (1...3).map { "/f\($0).bin" }
        for (n, path) in paths.enumerated() {
            let faults = Faults(throttleBytesPerSecond: 400_000)
            server.serve(
                path, Resource(size: size, seed: UInt64(n + 1), etag: "\"f\(n + 1)\"", faults: faults))
        }
        let added = try await box.run(["add"] + paths.map(server.url))
        #expect(added.status == 0, "\(added.err)")

        let early = try await box.killRun(tasks: 1...3, whenEachPartialHas: 30_000)
        try await box.expectIntact(after: early)
        let later = try await box.killRun(tasks: 1...3, whenEachPartialHas: 500_000)
        try await box.expectIntact(after: later)

        let run = try await box.run("run", "--until-idle", "-j", "3")
        #expect(run.status == 0, "\(run.err)")
        #expect(!(run.out + run.err).contains("another downloader"))
        for (n, path) in paths.enumerated() {
            let identical =
                box.contents("f\(n + 1).bin") == Body.generatedBytes(seed: UInt64(n + 1), in: 0..<size)
            #expect(identical, "f\(n + 1).bin differs from the served body")
            let ranges = server.requests(path).compactMap(\.range)
            for kill in [early, later] {
                let kept = kill.partials[n]
                #expect(kept > 0)
                #expect(ranges.contains("bytes=\(kept)-"), "\(path): no resume at \(kept) in \(ranges)")
            }
        }
        for id in 1...3 { #expect(try await box.task(id)?["state"] as? String == "finished") }
        #expect(!FileManager.default.fileExists(atPath: box.downloads + "/.dledger/partial/1.part"))
    }

    // One store: the validator check is the transfer's; kill -9 on PostgreSQL is in the tests above and below.
    @Test func contentChangedWhileKilledRestartsFromZeroInsteadOfSplicing() async throws {
        let box = try DledgerSandbox()
        let server = try LoopbackServer()
        defer { server.stop() }
        let size: Int64 = 600_000
        let original = Resource(
            size: size, seed: 7, etag: "\"v1\"", faults: Faults(throttleBytesPerSecond: 200_000))
        server.serve("/doc.bin", original)
        #expect(try await box.run("add", server.url("/doc.bin")).status == 0)
        let kill = try await box.killRun(tasks: 1...1, whenEachPartialHas: 50_000)
        try await box.expectIntact(after: kill)

        var changed = original.changedContent()
        changed.faults = Faults()
        server.serve("/doc.bin", changed)
        let run = try await box.run("run", "--until-idle")
        #expect(run.status == 0, "\(run.err)")
        let whole = box.contents("doc.bin") == changed.body.allBytes
        #expect(whole, "the file is not the new content: the old partial was spliced with new bytes")
        let resume = server.requests("/doc.bin").last { $0.range != nil }
        #expect(
            resume?.ifRange == "\"v1\"", "a resume after a crash must carry the validator it started with")
    }

    /// Killed while the next transfers were prepared ahead (``Scheduler/standby``: their partial files made, nothing
    /// asked of the server, nothing logged): the next run downloads each whole, from the start, and leaves no
    /// partial file.
    @Test func killedWhileTheNextTransfersWerePreparedThenEachDownloadsWhole() async throws {
        let box = try DledgerSandbox()
        let server = try LoopbackServer()
        defer { server.stop() }
        let size: Int64 = 600_000
        let paths = (1...3).map { "/n\($0).bin" }
        for (n, path) in paths.enumerated() {
            let faults = Faults(throttleBytesPerSecond: 300_000)
            let etag = "\"n\(n + 1)\""
            server.serve(path, Resource(size: size, seed: UInt64(n + 1), etag: etag, faults: faults))
        }
        #expect(try await box.run(["add"] + paths.map(server.url)).status == 0)
        let runner = try box.start("run", "-j", "1")
        // One slot, one prepared.
        let prepared = await eventually(15) {
            partialSize(box.partialPath(1)) >= 30_000
                && FileManager.default.fileExists(atPath: box.partialPath(2))
        }
        #expect(prepared, "the next transfer was not prepared while the first downloaded")
        let acknowledged = try await box.run("log", "--json").out.split(separator: "\n").map(String.init)
        let pid = runner.process.processIdentifier
        kill(pid, SIGKILL)
        let dead = await runner.wait()
        #expect(dead.status == SIGKILL, "the run ended before the kill: \(dead.err)")
        let kill = KilledRun(
            pid: pid, partials: (1...3).map { partialSize(box.partialPath($0)) }, acknowledged: acknowledged)
        try await box.expectIntact(after: kill)
        // What the kill left of the prepared one: its empty partial file, nothing in the log.
        #expect(FileManager.default.fileExists(atPath: box.partialPath(2)) && kill.partials[1] == 0)
        #expect(server.requests(paths[1]).isEmpty && server.requests(paths[2]).isEmpty)

        let run = try await box.run("run", "--until-idle", "-j", "1")
        #expect(run.status == 0, "\(run.err)")
        for (n, path) in paths.enumerated() {
            let identical =
                box.contents("n\(n + 1).bin") == Body.generatedBytes(seed: UInt64(n + 1), in: 0..<size)
            #expect(identical, "n\(n + 1).bin differs from the served body")
            #expect(try await box.task(n + 1)?["state"] as? String == "finished")
            #expect(!FileManager.default.fileExists(atPath: box.partialPath(n + 1)))
            // The prepared ones: asked for once, from the start.
            if n > 0 { #expect(server.requests(path).map(\.range) == [nil], "\(path)") }
        }
        #expect(server.requests(paths[0]).contains { $0.range == "bytes=\(kill.partials[0])-" })
        #expect(try await box.run("verify").status == 0)
    }

    @Test(arguments: LedgerStoreKind.allCases)
    func killedWhileAppendingFactsFastLosesNoAcknowledgedEvent(store: LedgerStoreKind) async throws {
        let box = try DledgerSandbox(store: store)
        let server = try LoopbackServer()
        defer { server.stop() }
        let count = 60
        for n in 1...count { server.serve("/t\(n).bin", Resource(size: 2_048, seed: UInt64(100 + n))) }
        let urls = (1...count).map { server.url("/t\($0).bin") }
        let added = try await box.run(["add"] + urls)
        #expect(added.status == 0, "\(added.err)")

        let runner = try box.start("run", "-j", "8")
        let busy = await eventually(15) { finishedIDs(runner.output).count >= 8 }
        #expect(busy)
        let pid = runner.process.processIdentifier
        kill(pid, SIGKILL)
        let dead = await runner.wait()
        #expect(dead.status == SIGKILL)
        // Printed by the killed process after the events were committed: each must have survived.
        let acknowledged = finishedIDs(dead.out)
        #expect(acknowledged.count >= 8)

        let verify = try await box.run("verify", "--skip-files")
        #expect(verify.status == 0, "\(verify.out)\(verify.err)")
        for id in acknowledged {
            #expect(try await box.task(id)?["state"] as? String == "finished", "#\(id)")
        }

        let run = try await box.run("run", "--until-idle", "-j", "8")
        #expect(run.status == 0, "\(run.err)")
        let list = try await box.run("ls", "--json").json as? [String: Any]
        let tasks = (list?["sections"] as? [[String: Any]] ?? []).flatMap {
            $0["tasks"] as? [[String: Any]] ?? []
        }
        #expect(tasks.count == count)
        #expect(tasks.allSatisfy { $0["state"] as? String == "finished" })
        for n in 1...count {
            let identical =
                box.contents("t\(n).bin") == Body.generatedBytes(seed: UInt64(100 + n), in: 0..<2_048)
            #expect(identical, "t\(n).bin differs from the served body")
        }
        #expect(try await box.run("verify").status == 0)
    }
}

/// The ids in the `finished #N` lines a run printed.
private func finishedIDs(_ output: String) -> Set<Int> {
    var ids: Set<Int> = []
    for line in output.split(separator: "\n") where line.hasPrefix("finished #") {
        let digits = line.dropFirst("finished #".count).prefix { $0.isNumber }
        if let id = Int(digits) { ids.insert(id) }
    }
    return ids
}
