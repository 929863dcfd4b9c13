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
    func startRunning(_ ledger: Ledger, maxDownloads: Int? = nil) throws -> (Scheduler, Task<Void, Error>) {
        let scheduler = try Scheduler(ledger: ledger, maxDownloads: maxDownloads)
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

    @Test func pauseFromAnotherProcessThenResumeContinuesWithRange() async throws {
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
        #expect(await eventually { (try? ledger.kinds().contains("transferPaused")) == true })
        let paused = try #require(ledger.list.tasks[id])
        #expect(paused.state == .paused)
        #expect(paused.bytes > 0)
        try other.execute(.resume(.tasks([id])))
        #expect(await eventually(15) { ledger.list.tasks[id]?.state == .finished })
        try await stop(running)
        #expect(box.holds("slow.bin", seed: 7, size: 1_000_000))
        let ranges = server.requests("/slow.bin").compactMap(\.range)
        #expect(ranges.contains { $0.hasPrefix("bytes=") && !$0.hasPrefix("bytes=0-") })
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
        try ledger.execute(.redownload([id]))
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
        let reopened = try Ledger(path: box.ledgerPath)
        try await Scheduler(ledger: reopened).run(untilIdle: true)
        #expect(
            reopened.list.tasks[id]?.state == .finished, "\((try? reopened.log().map(\.entry.event)) ?? [])")
        #expect(box.holds("k.bin", seed: 9, size: 900_000))
        #expect(server.requests("/k.bin").contains { $0.range.map { !$0.hasPrefix("bytes=0-") } == true })
    }
}

func fileSize(_ path: String) -> Int64 {
    ((try? FileManager.default.attributesOfItem(atPath: path))?[.size] as? NSNumber)?.int64Value ?? 0
}
