import DownloadLedger
import Foundation
import LoopbackHTTP
import Testing

/// Transfers prepared ahead (``Scheduler/standby``): the next tasks' partial files are made while the running ones
/// download, and each starts when a slot frees, within the count, in list order; a pause or a stop of the run
/// leaves nothing of them behind.
extension SchedulerTests {
    func partialExists(_ box: Sandbox, _ id: TaskID) -> Bool {
        FileManager.default.fileExists(atPath: box.downloads + "/.dledger/partial/\(id).part")
    }

    /// Serves `count` files `/<prefix><n>.bin` of `size` bytes (seed n), each paced at `rate` bytes a second, and
    /// adds them to `ledger` in order: tasks 1…count.
    func addPaced(_ ledger: Ledger, prefix: String, count: Int, size: Int64, rate: Int) throws {
        var urls: [String] = []
        for i in 1...count {
            let faults = Faults(throttleBytesPerSecond: rate)
            server.serve("/\(prefix)\(i).bin", Resource(size: size, seed: UInt64(i), faults: faults))
            urls.append(server.url("/\(prefix)\(i).bin"))
        }
        try ledger.add(urls)
    }

    func startedIDs(_ ledger: Ledger) throws -> [TaskID] {
        try ledger.log().compactMap { e -> TaskID? in
            if case .transferStarted(let id, _, _) = e.entry.event { return id }
            return nil
        }
    }

    @Test func preparedTransfersStartInListOrderWithinTheCount() async throws {
        let box = try Sandbox()
        let ledger = try box.ledger()
        try addPaced(ledger, prefix: "s", count: 5, size: 300_000, rate: 1_000_000)
        let scheduler = try Scheduler(ledger: ledger, maxDownloads: 2)
        scheduler.tick = .milliseconds(20)
        #expect(scheduler.standby == 8)
        let run = Task { try await scheduler.run(untilIdle: true) }
        // While the first two download, the next two wait prepared, one per slot: their partial files exist,
        // nothing was asked of the server.
        let prepared = await eventually {
            ledger.list.tasks[1]?.state != .finished && ledger.list.tasks[2]?.state != .finished
                && partialExists(box, 3) && partialExists(box, 4)
        }
        #expect(prepared)
        #expect(!partialExists(box, 5))
        #expect(server.requests("/s4.bin").isEmpty)
        try await run.value
        #expect(server.peakConcurrency.paths == 2)
        let starts = try startedIDs(ledger)
        #expect(starts.prefix(2).sorted() == [1, 2] && Array(starts.dropFirst(2)) == [3, 4, 5], "\(starts)")
        for i in 1...5 {
            #expect(ledger.list.tasks[TaskID(i)]?.state == .finished)
            #expect(box.holds("s\(i).bin", seed: UInt64(i), size: 300_000))
            #expect(server.requests("/s\(i).bin").count == 1)
            #expect(!partialExists(box, TaskID(i)))
        }
        let report = try ledger.verify(checksums: true)
        #expect(report.isValid, "\(report.problems)")
    }

    @Test func aPreparedTaskThatIsPausedNeverStartsAndItsEmptyFileGoes() async throws {
        let box = try Sandbox()
        let ledger = try box.ledger()
        try addPaced(ledger, prefix: "p", count: 3, size: 400_000, rate: 1_000_000)
        let running = try startRunning(ledger, maxDownloads: 1)
        #expect(await eventually { partialExists(box, 2) && ledger.list.tasks[1]?.state != .finished })
        try ledger.execute(.pause(.tasks([2])))
        #expect(await eventually { !partialExists(box, 2) })
        #expect(
            await eventually {
                ledger.list.tasks[1]?.state == .finished && ledger.list.tasks[3]?.state == .finished
            })
        try await stop(running)
        #expect(ledger.list.tasks[2]?.state == .paused)
        #expect(server.requests("/p2.bin").isEmpty)
        #expect(try !startedIDs(ledger).contains(2))
        #expect(!partialExists(box, 2))
        #expect(box.holds("p3.bin", seed: 3, size: 400_000))
    }

    @Test func aStopOfTheRunLeavesNoPreparedFileAndStartsNothingMore() async throws {
        let box = try Sandbox()
        let ledger = try box.ledger()
        try addPaced(ledger, prefix: "q", count: 3, size: 900_000, rate: 300_000)
        let running = try startRunning(ledger, maxDownloads: 1)
        #expect(
            await eventually {
                partialExists(box, 2) && fileSize(box.downloads + "/.dledger/partial/1.part") > 0
            })
        try await stop(running)
        // The running one keeps its bytes for the resume; the prepared one had none and leaves nothing.
        #expect(ledger.list.tasks[1]?.state == .waiting)
        #expect(fileSize(box.downloads + "/.dledger/partial/1.part") > 0)
        #expect(!partialExists(box, 2) && !partialExists(box, 3))
        #expect(server.requests("/q2.bin").isEmpty && server.requests("/q3.bin").isEmpty)
        #expect(try startedIDs(ledger) == [1])
    }
}
