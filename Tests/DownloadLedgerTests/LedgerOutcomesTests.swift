import DownloadLedger
import Foundation
import LoopbackHTTP
import Testing

/// `Ledger.outcomes()`: each download that ends, finished with its path or failed with the reason, once, in log
/// order, whether this process or another one downloads it.
@Suite struct LedgerOutcomesTests {
    /// Collects the first `count` outcomes of `stream` (nil after `seconds`).
    func first(_ count: Int, of stream: AsyncStream<TaskOutcome>, within seconds: Double = 20) async
        -> [TaskOutcome]?
    {
        await withTaskGroup(of: [TaskOutcome]?.self) { group in
            group.addTask {
                var got: [TaskOutcome] = []
                for await outcome in stream {
                    got.append(outcome)
                    if got.count == count { return got }
                }
                return got
            }
            group.addTask {
                try? await Task.sleep(for: .seconds(seconds))
                return nil
            }
            let result = await group.next() ?? nil
            group.cancelAll()
            return result
        }
    }

    @Test func aFinishedAndAFailedDownloadOfThisProcessAreReportedOnceEach() async throws {
        let box = try Sandbox()
        let server = try LoopbackServer()
        server.serve("/ok.bin", Resource(size: 40_000, seed: 1))
        let ledger = try box.ledger()
        let outcomes = ledger.outcomes(pollInterval: .milliseconds(50))
        try ledger.add([server.url("/ok.bin"), server.url("/gone.bin")])
        let collecting = Task { await first(2, of: outcomes) }
        try await Scheduler(ledger: ledger).run(untilIdle: true)
        let got = try #require(await collecting.value)
        #expect(got.count == 2)
        let ok = try #require(got.first { $0.id == 1 })
        #expect(ok.url == server.url("/ok.bin") && ok.succeeded)
        #expect(ok.result == .finished(path: box.downloads + "/ok.bin"))
        #expect(box.holds("ok.bin", seed: 1, size: 40_000))
        let failed = try #require(got.first { $0.id == 2 })
        #expect(!failed.succeeded)
        guard case .failed(let failure) = failed.result else {
            Issue.record("#2 did not fail: \(failed)")
            return
        }
        #expect(failure.code == "http" && failure.detail.contains("404"), "\(failure)")
        // In the order of the log, each at the seq that recorded it.
        #expect(got.map(\.seq) == got.map(\.seq).sorted())
        let kinds = try ledger.log().filter { e in got.contains { $0.seq == e.seq } }.map(\.entry.event.kind)
        #expect(Set(kinds) == ["transferCompleted", "transferFailed"])
    }

    /// A second ledger object on the same file (as another process would be) sees the outcomes the first records;
    /// `after:` replays the ones logged before the stream began.
    @Test func outcomesRecordedElsewhereAndEarlierAreReported() async throws {
        let box = try Sandbox()
        let server = try LoopbackServer()
        server.serve("/a.bin", Resource(size: 20_000, seed: 2))
        server.serve("/b.bin", Resource(size: 30_000, seed: 3))
        let writer = try box.ledger()
        try writer.add([server.url("/a.bin")])
        try await Scheduler(ledger: writer).run(untilIdle: true)
        let reader = try Ledger(path: box.ledgerPath)
        let earlier = try #require(
            await first(1, of: reader.outcomes(after: 0, pollInterval: .milliseconds(50))))
        #expect(earlier.map(\.result) == [.finished(path: box.downloads + "/a.bin")])
        let live = reader.outcomes(pollInterval: .milliseconds(50))
        let collecting = Task { await first(1, of: live) }
        try writer.add([server.url("/b.bin")])
        try await Scheduler(ledger: writer).run(untilIdle: true)
        let later = try #require(await collecting.value)
        #expect(later.map(\.id) == [2])
        #expect(later.first?.result == .finished(path: box.downloads + "/b.bin"))
    }

    /// A folder is kept in its normal form, so the downloader never refuses it later; `..` is refused at once.
    @Test func aFolderIsNormalisedWhenItIsAccepted() async throws {
        let box = try Sandbox()
        let server = try LoopbackServer()
        server.serve("/n.bin", Resource(size: 15_000, seed: 4))
        let ledger = try Ledger(path: box.ledgerPath, creatingWithDirectory: box.root + "//downloads/")
        #expect(ledger.list.directory == box.downloads)
        let added = try ledger.execute(
            .add(
                urls: [server.url("/n.bin")], placement: .end, name: nil, sha256: nil,
                directory: box.root + "/./other//"))
        let id = try #require(added.decision.added.first)
        #expect(ledger.list.tasks[id]?.directory == box.root + "/other")
        try await Scheduler(ledger: ledger).run(untilIdle: true)
        #expect(ledger.list.tasks[id]?.state == .finished)
        #expect(
            FileManager.default.contents(atPath: box.root + "/other/n.bin").map(Array.init)
                == Body.generatedBytes(seed: 4, in: 0..<15_000))
        let head = ledger.list.head
        #expect(throws: LedgerError.self) {
            try ledger.execute(
                .add(
                    urls: ["http://example.com/x"], placement: .end, name: nil, sha256: nil,
                    directory: box.root + "/a/../b"))
        }
        #expect(ledger.list.head == head)
        let refused = box.root + "/refused.sqlite"
        #expect(throws: LedgerError.self) { try Ledger(path: refused, creatingWithDirectory: "/tmp/../x") }
        #expect(!FileManager.default.fileExists(atPath: refused))
        #expect(FileNaming.normalizedDirectory("/tmp/x//y/") == "/tmp/x/y")
        #expect(FileNaming.normalizedDirectory("/") == "/")
        #expect(FileNaming.normalizedDirectory("//") == "/")
        #expect(FileNaming.normalizedDirectory("relative/x") == nil)
    }

    /// `info(ofTask:)`: one task, its place and what is on disk for it.
    @Test func infoOfATaskSaysWhereItIsAndWhetherItsFileIsThere() async throws {
        let box = try Sandbox()
        let server = try LoopbackServer()
        server.serve("/i.bin", Resource(size: 9_000, seed: 5))
        let ledger = try box.ledger()
        try ledger.add([server.url("/i.bin"), "http://example.com/waits.bin"])
        try ledger.execute(.pause(.tasks([2])))
        try await Scheduler(ledger: ledger).run(untilIdle: true)
        let done = try ledger.info(ofTask: 1)
        #expect(done.file == .onDisk(path: box.downloads + "/i.bin") && done.file.exists)
        #expect(done.location == Location(section: 0, index: 0) && done.sectionTitle == "Downloads")
        #expect(done.task.bytes == 9_000 && done.trash == nil)
        let waiting = try ledger.info(ofTask: 2)
        #expect(waiting.file == .partial(path: box.downloads + "/.dledger/partial/2.part", bytes: nil))
        #expect(!waiting.file.exists && waiting.location == Location(section: 0, index: 1))
        try FileManager.default.removeItem(atPath: box.downloads + "/i.bin")
        #expect(try ledger.info(ofTask: 1).file == .missing(path: box.downloads + "/i.bin"))
        try ledger.execute(.delete(.tasks([1]), mode: .record))
        let deleted = try ledger.info(ofTask: 1)
        #expect(deleted.location == nil && deleted.trash?.section == 0 && deleted.sectionTitle == "Downloads")
        #expect(throws: LedgerError.noSuchTask(9)) { try ledger.info(ofTask: 9) }
    }
}
