import Testing

@testable import DownloadLedger

/// The facts a downloader keeps while its database is out of reach: in the order they happened, never dropped,
/// leaving from the front once appended.
struct FactBacklogTests {
    private func started(_ id: Int64) -> Event { .transferStarted(id: TaskID(id), attempt: 1, offset: 0) }
    private func paused(_ id: Int64) -> Event { .transferPaused(id: TaskID(id), bytes: id * 10) }

    @Test func factsWaitInOrderAndLeaveFromTheFront() {
        let backlog = FactBacklog(limit: 4)
        #expect(backlog.adding([]).isEmpty && !backlog.isInOutage && backlog.status == nil)
        #expect(backlog.adding([started(1), started(2)]) == [started(1), started(2)])
        backlog.failed(reason: "server closed the connection", headBefore: 7)
        #expect(backlog.isInOutage && backlog.headBefore == 7)
        // A second failure keeps the first head (an append after it may be the one that committed).
        #expect(backlog.adding([paused(1)]) == [started(1), started(2), paused(1)])
        backlog.failed(reason: "connection refused", headBefore: 9)
        #expect(backlog.headBefore == 7)
        #expect(backlog.status?.waiting == 3 && backlog.status?.reason == "connection refused")
        #expect(!backlog.isFull)
        // Past the limit nothing is dropped: the scheduler stops its transfers, their last facts wait too.
        #expect(backlog.adding([paused(2), started(3)]).count == 5)
        #expect(backlog.isFull)
        // Not over while facts wait.
        #expect(!backlog.endOutage())
        backlog.recorded(2)
        #expect(backlog.adding([]) == [paused(1), paused(2), started(3)])
        #expect(backlog.headBefore == 7)
        backlog.recorded(3)
        #expect(backlog.count == 0 && backlog.headBefore == nil)
        #expect(backlog.endOutage())
        #expect(!backlog.isInOutage && backlog.status == nil)
    }

    @Test func theStatusLineSaysWhenTheNextTryIsAndWhatWaits() {
        let now = ContinuousClock.now
        var status = OutageStatus(
            waitingFacts: 14, reason: "refused", since: now, nextTry: now + .milliseconds(1500))
        #expect(status.line(now: now) == "database unreachable, retrying in 2 s (14 facts waiting)")
        status.waitingFacts = 1
        status.nextTry = nil
        #expect(status.line(now: now) == "database unreachable, retrying now (1 fact waiting)")
    }
}
