import DownloadLedger
import Foundation
import LoopbackHTTP
import Testing

/// Split transfers under the scheduler: the maximum download count counts tasks, not their connections, and a
/// split transfer paused by the user stops cleanly and resumes each missing piece with its own Range.
@Suite(.serialized) struct SegmentSchedulingTests {
    let server: LoopbackServer

    init() throws { server = try LoopbackServer() }

    @Test func theMaximumCountCountsTasksNotConnections() async throws {
        let box = try Sandbox()
        let ledger = try box.ledger()
        try ledger.execute(.setMaxDownloads(2))
        var urls: [String] = []
        for i in 1...3 {
            server.serve(
                "/t\(i).bin",
                Resource(
                    size: 2_000_000, seed: UInt64(90 + i), faults: Faults(throttleBytesPerSecond: 500_000)))
            urls.append(server.url("/t\(i).bin"))
        }
        try ledger.execute(
            .add(
                urls: urls, placement: .end, name: nil, sha256: nil, directory: nil,
                options: TaskOptions(connections: 4)))
        var config = TransferConfig()
        config.minPieceSize = 128 * 1024
        let scheduler = try Scheduler(ledger: ledger, config: config)
        scheduler.tick = .milliseconds(20)
        let watcher = Task {
            var most = (tasks: 0, connections: 0)
            while !Task.isCancelled {
                let activity = scheduler.currentActivity()
                most.tasks = max(most.tasks, activity.count)
                most.connections = max(most.connections, activity.reduce(0) { $0 + $1.connections })
                try? await Task.sleep(for: .milliseconds(10))
            }
            return most
        }
        try await scheduler.run(untilIdle: true)
        watcher.cancel()
        let most = await watcher.value
        for i in 1...3 {
            #expect(ledger.list.tasks[TaskID(i)]?.state == .finished)
            #expect(box.holds("t\(i).bin", seed: UInt64(90 + i), size: 2_000_000))
        }
        // Two tasks at once, each over its four connections: eight connections, never a third file. The server saw
        // the bodies of two files at once, more than one task's connections, and never a third file. (Its own count
        // of bodies can pass 8 for an instant: a connection cut at the end of its piece is noticed by the server
        // a moment after the client has opened the next one.)
        #expect(most.tasks == 2 && most.connections == 8, "\(most)")
        let peak = server.peakConcurrency
        #expect(peak.paths == 2 && peak.bodies > 4, "\(peak)")
    }

    /// (A pause holds a split transfer's connections instead: `LiveActivityTests` in DledgerTests.)
    @Test func aStoppedSplitTransferStopsCleanlyAndResumesEachMissingPieceWithItsOwnRange() async throws {
        let box = try Sandbox()
        let ledger = try box.ledger()
        let resource = Resource(
            size: 6_000_000, seed: 95, etag: "\"p4\"", faults: Faults(throttleBytesPerSecond: 300_000))
        server.serve("/p.bin", resource)
        try ledger.execute(
            .add(
                urls: [server.url("/p.bin")], placement: .end, name: nil, sha256: nil, directory: nil,
                options: TaskOptions(connections: 4)))
        var config = TransferConfig()
        config.minPieceSize = 256 * 1024
        let scheduler = try Scheduler(ledger: ledger, config: config)
        scheduler.tick = .milliseconds(20)
        // Not until idle: stopped, the task leaves nothing to do, and the run would end before the resume.
        let run = Task { try await scheduler.run() }
        let partial = box.downloads + "/.dledger/partial/1.part"
        // Stopped once a piece after the first is in: the file has a hole.
        #expect(await eventually { (PartialPieces.read(path: partial)?.written.count ?? 0) >= 2 })

        try ledger.execute(.stop(.tasks([1])))
        #expect(await eventually { ledger.list.tasks[1]?.state == .stopped })
        #expect(await eventually { scheduler.currentActivity().isEmpty })
        // Stopped: no connection goes on, nothing more reaches the file, and the map says what is missing.
        let map = try #require(PartialPieces.read(path: partial))
        let asked = server.requests("/p.bin").count
        try await Task.sleep(for: .milliseconds(400))
        #expect(PartialPieces.read(path: partial) == map)
        #expect(server.requests("/p.bin").count == asked)
        #expect(ledger.list.tasks[1]?.connectionKept == false)
        #expect(!map.missing.isEmpty && map.written.count >= 2)

        try ledger.execute(.resume(.tasks([1])))
        #expect(await eventually(20) { ledger.list.tasks[1]?.state == .finished })
        scheduler.requestStop()
        try await run.value
        let identical = box.contents("p.bin") == resource.body.allBytes
        #expect(identical, "p.bin differs from the served body")
        let resumed = server.requests("/p.bin")[asked...]
        let starts = resumed.compactMap { request -> Int64? in
            guard let range = request.range, range.hasPrefix("bytes="), !range.hasSuffix("-") else {
                return nil
            }
            return Int64(range.dropFirst(6).prefix { $0 != "-" })
        }
        #expect(starts.count == resumed.count, "a resumed request without a bounded Range")
        for hole in map.missing {
            #expect(starts.contains(hole.lowerBound), "hole \(hole) not asked with its own Range")
        }
        #expect(resumed.allSatisfy { $0.ifRange == "\"p4\"" })
    }
}
