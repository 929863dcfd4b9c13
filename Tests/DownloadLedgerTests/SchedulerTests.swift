import DownloadLedger
import Foundation
import LoopbackHTTP
import Testing

/// End to end: a Ledger, a Scheduler and real HTTP on 127.0.0.1.
@Suite(.serialized) struct SchedulerTests {
    let server: LoopbackServer

    init() throws {
        server = try LoopbackServer()
    }

    /// Starts `run()` in the background; returns the scheduler and its task.
    func startRunning(_ ledger: Ledger, maxDownloads: Int? = nil, config: TransferConfig = .init()) throws
        -> (
            Scheduler, Task<Void, Error>
        )
    {
        let scheduler = try Scheduler(ledger: ledger, config: config, maxDownloads: maxDownloads)
        scheduler.tick = .milliseconds(50)
        let task = Task { try await scheduler.run() }
        return (scheduler, task)
    }

    func stop(_ running: (Scheduler, Task<Void, Error>)) async throws {
        running.0.requestStop()
        try await running.1.value
    }

    @Test func downloadsEverythingByteIdenticalInListOrderUpToTheCount() async throws {
        let box = try Sandbox()
        let ledger = try box.ledger()
        try ledger.execute(.setMaxDownloads(2))
        var urls: [String] = []
        for i in 1...4 {
            server.serve(
                "/f\(i).bin",
                Resource(size: 300_000, seed: UInt64(i), faults: Faults(throttleBytesPerSecond: 1_500_000)))
            urls.append(server.url("/f\(i).bin"))
        }
        try ledger.add(urls)
        let scheduler = try Scheduler(ledger: ledger)
        scheduler.tick = .milliseconds(20)
        let watcher = Task {
            var most = 0
            while !Task.isCancelled {
                most = max(most, scheduler.currentActivity().count)
                try? await Task.sleep(for: .milliseconds(10))
            }
            return most
        }
        try await scheduler.run(untilIdle: true)
        watcher.cancel()
        #expect(await watcher.value <= 2)
        for i in 1...4 {
            #expect(ledger.list.tasks[TaskID(i)]?.state == .finished)
            #expect(box.holds("f\(i).bin", seed: UInt64(i), size: 300_000))
        }
        let starts = try ledger.log().compactMap { e -> TaskID? in
            if case .transferStarted(let id, _, _) = e.entry.event { return id }
            return nil
        }
        #expect(Array(starts.prefix(2)).sorted() == [1, 2])
        let report = try ledger.verify(checksums: true)
        #expect(report.isValid, "\(report.problems)")
        #expect(report.filesChecked == 4)
    }

    /// A pause keeps the connection (curl_easy_pause): the resume goes on with the same response, one request.
    @Test func pauseFromAnotherProcessKeepsTheConnectionAndResumeGoesOnWithTheSameResponse() async throws {
        let box = try Sandbox()
        let ledger = try box.ledger()
        server.serve(
            "/slow.bin", Resource(size: 1_000_000, seed: 7, faults: Faults(throttleBytesPerSecond: 400_000)))
        let id = try ledger.add([server.url("/slow.bin")])[0]
        let running = try startRunning(ledger)
        let partial = box.downloads + "/.dledger/partial/\(id).part"
        #expect(await eventually { fileSize(partial) > 100_000 })
        let other = try Ledger(path: box.ledgerPath)
        try other.execute(.pause(.tasks([id])))
        #expect(await eventually { (try? ledger.kinds().contains("transferHeld")) == true })
        let paused = try #require(ledger.list.tasks[id])
        #expect(paused.state == .paused && paused.connectionKept)
        #expect(paused.bytes > 0)
        // Held, nothing arrives: the partial file stays as it was.
        let size = fileSize(partial)
        try await Task.sleep(for: .milliseconds(400))
        #expect(fileSize(partial) == size)
        try other.execute(.resume(.tasks([id])))
        #expect(await eventually(15) { ledger.list.tasks[id]?.state == .finished })
        try await stop(running)
        #expect(box.holds("slow.bin", seed: 7, size: 1_000_000))
        #expect(server.requests("/slow.bin").count == 1)
        let kinds = try ledger.kinds()
        #expect(kinds.contains("transferContinued") && !kinds.contains("transferPaused"))
        #expect(ledger.list.tasks[id]?.connectionKept == false)
    }

    /// A stop closes the connection: the resume is a Range request.
    @Test func stopClosesTheConnectionAndResumeContinuesWithRange() async throws {
        let box = try Sandbox()
        let ledger = try box.ledger()
        server.serve(
            "/st.bin", Resource(size: 1_000_000, seed: 8, faults: Faults(throttleBytesPerSecond: 400_000)))
        let id = try ledger.add([server.url("/st.bin")])[0]
        let running = try startRunning(ledger)
        let partial = box.downloads + "/.dledger/partial/\(id).part"
        #expect(await eventually { fileSize(partial) > 100_000 })
        try ledger.execute(.stop(.tasks([id])))
        #expect(await eventually { (try? ledger.kinds().contains("transferPaused")) == true })
        #expect(ledger.list.tasks[id]?.state == .stopped && ledger.list.tasks[id]?.connectionKept == false)
        try ledger.execute(.resume(.tasks([id])))
        #expect(await eventually(15) { ledger.list.tasks[id]?.state == .finished })
        try await stop(running)
        #expect(box.holds("st.bin", seed: 8, size: 1_000_000))
        let ranges = server.requests("/st.bin").compactMap(\.range)
        #expect(ranges.contains { $0.hasPrefix("bytes=") && !$0.hasPrefix("bytes=0-") })
        #expect(try !ledger.kinds().contains("transferHeld"))
    }

    /// Past the hold limit a paused transfer releases its connection; the resume falls back to a Range request.
    @Test func aPauseHeldPastTheLimitReleasesTheConnectionAndResumesWithRange() async throws {
        let box = try Sandbox()
        let ledger = try box.ledger()
        server.serve(
            "/h.bin", Resource(size: 1_000_000, seed: 9, faults: Faults(throttleBytesPerSecond: 400_000)))
        let id = try ledger.add([server.url("/h.bin")])[0]
        var config = TransferConfig()
        config.holdLimit = 0.3
        let running = try startRunning(ledger, config: config)
        let partial = box.downloads + "/.dledger/partial/\(id).part"
        #expect(await eventually { fileSize(partial) > 100_000 })
        try ledger.execute(.pause(.tasks([id])))
        #expect(await eventually { (try? ledger.kinds().contains("transferPaused")) == true })
        let kinds = try ledger.kinds()
        #expect(kinds.firstIndex(of: "transferHeld")! < kinds.firstIndex(of: "transferPaused")!)
        #expect(ledger.list.tasks[id]?.state == .paused && ledger.list.tasks[id]?.connectionKept == false)
        try ledger.execute(.resume(.tasks([id])))
        #expect(await eventually(15) { ledger.list.tasks[id]?.state == .finished })
        try await stop(running)
        #expect(box.holds("h.bin", seed: 9, size: 1_000_000))
        #expect(server.requests("/h.bin").compactMap(\.range).contains { !$0.hasPrefix("bytes=0-") })
    }

    @Test func deleteWhileDownloadingStopsAndRestoreResumes() async throws {
        let box = try Sandbox()
        let ledger = try box.ledger()
        server.serve(
            "/d.bin", Resource(size: 800_000, seed: 3, faults: Faults(throttleBytesPerSecond: 400_000)))
        let id = try ledger.add([server.url("/d.bin")])[0]
        let running = try startRunning(ledger)
        #expect(await eventually { ledger.list.tasks[id]?.state == .downloading })
        try ledger.execute(.delete(.tasks([id]), mode: .all))
        #expect(
            await eventually {
                running.0.currentActivity().isEmpty && (try? ledger.kinds().last) == "transferPaused"
            })
        #expect(ledger.list.isTrashed(id))
        #expect(box.contents("d.bin") == nil)
        try ledger.execute(.restore([id], to: nil))
        #expect(await eventually(15) { ledger.list.tasks[id]?.state == .finished })
        try await stop(running)
        #expect(box.holds("d.bin", seed: 3, size: 800_000))
    }

    @Test func redownloadWhileDownloadingRestartsFromZero() async throws {
        let box = try Sandbox()
        let ledger = try box.ledger()
        server.serve(
            "/r.bin", Resource(size: 600_000, seed: 4, faults: Faults(throttleBytesPerSecond: 300_000)))
        let id = try ledger.add([server.url("/r.bin")])[0]
        let running = try startRunning(ledger)
        let partial = box.downloads + "/.dledger/partial/\(id).part"
        #expect(await eventually { fileSize(partial) > 50_000 })
        try ledger.execute(.redownload(.tasks([id])))
        #expect(await eventually(15) { ledger.list.tasks[id]?.state == .finished })
        try await stop(running)
        #expect(box.holds("r.bin", seed: 4, size: 600_000))
        // The restart asked for the whole file again.
        #expect(server.requests("/r.bin").count >= 2)
        #expect(server.requests("/r.bin").last?.range == nil)
    }

    @Test func loweringTheCountSendsExtraTransfersBackToWaiting() async throws {
        let box = try Sandbox()
        let ledger = try box.ledger()
        var urls: [String] = []
        for i in 1...3 {
            server.serve(
                "/m\(i).bin",
                Resource(size: 2_000_000, seed: UInt64(i), faults: Faults(throttleBytesPerSecond: 200_000)))
            urls.append(server.url("/m\(i).bin"))
        }
        try ledger.add(urls)
        let running = try startRunning(ledger)
        #expect(await eventually { running.0.currentActivity().count == 3 })
        try ledger.execute(.setMaxDownloads(1))
        #expect(await eventually { running.0.currentActivity().map(\.id) == [1] })
        #expect(
            await eventually {
                ledger.list.tasks[2]?.state == .waiting && ledger.list.tasks[3]?.state == .waiting
            })
        try await stop(running)
        #expect(ledger.list.tasks.values.allSatisfy { $0.state == .waiting })
    }

    @Test func aSecondRunnerIsRefused() async throws {
        let box = try Sandbox()
        let ledger = try box.ledger()
        let running = try startRunning(ledger)
        try await Task.sleep(for: .milliseconds(200))
        let second = try Scheduler(ledger: try Ledger(path: box.ledgerPath))
        await #expect(throws: LedgerOpenError.self) { try await second.run(untilIdle: true) }
        try await stop(running)
    }

    @Test func aFailureIsRecordedAndOthersCarryOn() async throws {
        let box = try Sandbox()
        let ledger = try box.ledger()
        server.serve("/ok.bin", Resource(size: 10_000, seed: 1))
        server.serve("/bad-sum.bin", Resource(size: 10_000, seed: 2))
        let ok = try ledger.add([server.url("/ok.bin"), server.url("/missing.bin")])
        let sum = try ledger.add([server.url("/bad-sum.bin")], sha256: String(repeating: "ab", count: 32))
        let scheduler = try Scheduler(ledger: ledger)
        try await scheduler.run(untilIdle: true)
        #expect(ledger.list.tasks[ok[0]]?.state == .finished)
        #expect(ledger.list.tasks[ok[1]]?.state == .failed)
        #expect(ledger.list.tasks[ok[1]]?.failure?.code == "http")
        #expect(ledger.list.tasks[ok[1]]?.failure?.retryable == false)
        #expect(ledger.list.tasks[sum[0]]?.failure?.code == "checksumMismatch")
        #expect(box.contents("bad-sum.bin") == nil)
    }

    @Test func resumeAfterAnInterruptedRunContinuesFromThePartialFile() async throws {
        let box = try Sandbox()
        let ledger = try box.ledger()
        server.serve(
            "/k.bin", Resource(size: 900_000, seed: 9, faults: Faults(throttleBytesPerSecond: 450_000)))
        let id = try ledger.add([server.url("/k.bin")])[0]
        let running = try startRunning(ledger)
        let partial = box.downloads + "/.dledger/partial/\(id).part"
        #expect(await eventually { fileSize(partial) > 200_000 })
        try await stop(running)
        #expect(ledger.list.tasks[id]?.state == .waiting)
        // The partial file carries what it was written under (generation 0, the server's validator).
        let mark = PartialMark.read(path: partial)
        #expect(mark == PartialMark(generation: 0, validator: ledger.list.tasks[id]?.validator))
        let reopened = try Ledger(path: box.ledgerPath)
        try await Scheduler(ledger: reopened).run(untilIdle: true)
        #expect(
            reopened.list.tasks[id]?.state == .finished, "\((try? reopened.log().map(\.entry.event)) ?? [])")
        #expect(box.holds("k.bin", seed: 9, size: 900_000))
        #expect(server.requests("/k.bin").contains { $0.range.map { !$0.hasPrefix("bytes=0-") } == true })
    }

    // The moments a kill -9 can leave behind that the log cannot explain alone, set up on disk as such a kill
    // leaves them (killing a process at an exact instruction is not possible in a test).

    /// Killed after the first body bytes were written but before transferStarted/transferResolved were logged:
    /// the partial file's mark says it belongs to the task as it is, so the next run resumes it with Range and
    /// the validator the mark kept (If-Range), and the file ends byte-identical.
    @Test func bytesWrittenBeforeTheStartWasLoggedResumeWithRangeAndIfRange() async throws {
        let box = try Sandbox()
        let ledger = try box.ledger()
        server.serve("/m.bin", Resource(size: 300_000, seed: 4, etag: "\"m1\""))
        let id = try ledger.add([server.url("/m.bin")])[0]
        #expect(ledger.list.tasks[id]?.attempts == 0)
        let partial = try writePartial(box, id: id, Body.generatedBytes(seed: 4, in: 0..<120_000))
        let marked = PartialMark(generation: 0, validator: "\"m1\"").write(to: partial)
        try #require(marked, "this file system keeps no user extended attributes")
        try await Scheduler(ledger: ledger).run(untilIdle: true)
        #expect(ledger.list.tasks[id]?.state == .finished)
        #expect(box.holds("m.bin", seed: 4, size: 300_000))
        let requests = server.requests("/m.bin")
        #expect(requests.map(\.range) == ["bytes=120000-"])
        #expect(requests.first?.ifRange == "\"m1\"")
    }

    /// A partial file of an older generation (written before a redownload that a kill kept from removing it)
    /// is discarded: the download starts from zero, without Range.
    @Test func aPartialOfAnOlderGenerationIsDiscarded() async throws {
        let box = try Sandbox()
        let ledger = try box.ledger()
        server.serve("/g.bin", Resource(size: 100_000, seed: 5))
        let id = try ledger.add([server.url("/g.bin")])[0]
        // A run started it (and was killed); the redownload discards what that generation wrote.
        try ledger.record(.transferStarted(id: id, attempt: 1, offset: 0))
        try ledger.execute(.redownload(.tasks([id])))
        #expect(ledger.list.tasks[id]?.resets == 1)
        let partial = try writePartial(box, id: id, [UInt8](repeating: 7, count: 40_000))
        try #require(PartialMark(generation: 0, validator: nil).write(to: partial))
        try await Scheduler(ledger: ledger).run(untilIdle: true)
        #expect(box.holds("g.bin", seed: 5, size: 100_000))
        #expect(server.requests("/g.bin").map(\.range) == [nil])
    }

    /// Killed after the finished file was placed but before transferCompleted was recorded: the partial is still
    /// there as a second link to the placed file, so the next run asks for the rest (416: nothing left), finds the
    /// name already holding this very file, and records it: no second copy "m (1).bin", no download again.
    @Test func aPlacementNotYetRecordedIsRecordedNotRepeated() async throws {
        let box = try Sandbox()
        let ledger = try box.ledger()
        let size: Int64 = 200_000
        server.serve("/p.bin", Resource(size: size, seed: 6, etag: "\"p1\""))
        let id = try ledger.add([server.url("/p.bin")])[0]
        try ledger.record([
            .transferStarted(id: id, attempt: 1, offset: 0),
            .transferResolved(
                id: id, size: size, serverName: nil, validator: "\"p1\"", acceptsRanges: true,
                restartedFromZero: nil),
        ])
        let partial = try writePartial(box, id: id, Body.generatedBytes(seed: 6, in: 0..<size))
        #expect(link(partial, box.downloads + "/p.bin") == 0)
        try await Scheduler(ledger: ledger).run(untilIdle: true)
        let task = try #require(ledger.list.tasks[id])
        #expect(task.state == .finished)
        #expect(task.fileName == "p.bin")
        #expect(box.holds("p.bin", seed: 6, size: size))
        let visible = try FileManager.default.contentsOfDirectory(atPath: box.downloads).filter {
            !$0.hasPrefix(".")
        }
        #expect(visible == ["p.bin"])
        #expect(!FileManager.default.fileExists(atPath: partial))
        #expect(server.requests("/p.bin").map(\.range) == ["bytes=\(size)-"])
    }

    /// After a normal completion the partial (kept until the fact was recorded) is gone.
    @Test func aRecordedCompletionLeavesNoPartial() async throws {
        let box = try Sandbox()
        let ledger = try box.ledger()
        server.serve("/r.bin", Resource(size: 10_000, seed: 8))
        let id = try ledger.add([server.url("/r.bin")])[0]
        try await Scheduler(ledger: ledger).run(untilIdle: true)
        #expect(ledger.list.tasks[id]?.state == .finished)
        let left = try FileManager.default.contentsOfDirectory(atPath: box.downloads + "/.dledger/partial")
        #expect(left.isEmpty)
    }

    private func writePartial(_ box: Sandbox, id: TaskID, _ bytes: [UInt8]) throws -> String {
        let folder = box.downloads + "/.dledger/partial"
        try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
        let path = folder + "/\(id).part"
        #expect(FileManager.default.createFile(atPath: path, contents: Data(bytes)))
        return path
    }
}

func fileSize(_ path: String) -> Int64 {
    ((try? FileManager.default.attributesOfItem(atPath: path))?[.size] as? NSNumber)?.int64Value ?? 0
}
