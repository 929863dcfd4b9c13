import DownloadLedger
import Foundation
import LoopbackHTTP
import Testing

/// How the downloader's facts reach the log: in shared commits, without holding back the end of a run.
extension SchedulerTests {
    /// A file whose slot its last byte freed while others download waits to share a commit (``Scheduler/factDelay``)
    /// instead of committing alone; the run's last completion commits at once, with every fact waiting before it.
    /// With a delay of a minute, all six completions land in one commit, and the run does not wait the minute out.
    @Test func completionsShareACommitAndTheLastOneCommitsAtOnce() async throws {
        let box = try Sandbox()
        let ledger = try box.ledger()
        // Paced so that each file takes about 50 ms: completions one commit apiece would not share a millisecond.
        try addPaced(ledger, prefix: "c", count: 6, size: 50_000, rate: 1_000_000)
        let scheduler = try Scheduler(ledger: ledger, maxDownloads: 2)
        scheduler.factDelay = .seconds(60)
        let clock = ContinuousClock()
        let began = clock.now
        try await scheduler.run(untilIdle: true)
        #expect(began.duration(to: clock.now) < .seconds(30))
        let completions = try ledger.log().compactMap { logged -> Int64? in
            if case .transferCompleted = logged.entry.event { return logged.time }
            return nil
        }
        #expect(completions.count == 6)
        #expect(Set(completions).count == 1, "commit times of the completions: \(completions)")
        for i in 1...6 {
            #expect(ledger.list.tasks[TaskID(i)]?.state == .finished)
            #expect(box.holds("c\(i).bin", seed: UInt64(i), size: 50_000))
        }
    }
}
