import Testing

@testable import DownloadLedger

/// The plan on a ledger shared by several hosts: tasks another live host holds are left to it, an expired claim is
/// taken over (from zero), and of two hosts claiming one task only the first claim stands.
extension SchedulePlanTests {
    @Test func tasksAnotherLiveHostHoldsAreLeftToIt() throws {
        var f = try Fixture()
        f.record(.transferClaimed(id: f.c, host: "other", leaseMs: 30_000), at: 1_000)
        let plan = f.plan(as: "me", at: 2_000)
        #expect(f.started(plan) == [f.d, f.a, f.b])
        #expect(plan.heldElsewhere && !plan.idle)
        // The holder itself goes on with it.
        var holder = try Fixture()
        holder.record(.transferClaimed(id: holder.c, host: "other", leaseMs: 30_000), at: 1_000)
        #expect(holder.started(holder.plan(as: "other", at: 2_000)) == [holder.c, holder.d, holder.a])
    }

    @Test func anExpiredClaimIsTakenOverFromZero() throws {
        var f = try Fixture()
        f.record(.transferClaimed(id: f.c, host: "other", leaseMs: 30_000), at: 1_000)
        f.record(.transferStarted(id: f.c, attempt: 1, offset: 0), at: 1_100)
        f.record(
            .transferRetrying(
                id: f.c, failure: TaskFailure(code: "x", detail: "", retryable: true), bytes: 500, delayMs: 1),
            at: 1_200)
        let later: Int64 = 1_000 + 30_000
        #expect(f.list.tasks[f.c]?.liveHolder(at: later - 1) == "other")
        #expect(f.list.tasks[f.c]?.liveHolder(at: later) == nil)
        let plan = f.plan(as: "me", at: later)
        #expect(f.started(plan) == [f.c, f.d, f.a])
        #expect(!plan.heldElsewhere)
        // The claim names the host whose lease ran out, and the task's bytes (on that host) are void.
        let claims = f.list.claims(of: [f.c], by: "me", at: later, renewing: false)
        #expect(claims == [.transferClaimed(id: f.c, host: "me", leaseMs: 30_000, expired: "other")])
        let resets = f.list.tasks[f.c]!.resets
        f.record(claims[0], at: later)
        let t = try #require(f.list.tasks[f.c])
        #expect(t.host == "me" && t.bytes == 0 && t.resets == resets + 1 && t.leaseUntil == later + 30_000)
    }

    @Test func aPartialOnALiveHostWaitsForThatHost() throws {
        var f = try Fixture()
        f.record(.transferClaimed(id: f.c, host: "other", leaseMs: 30_000), at: 1_000)
        f.record(.transferClaimed(id: f.a, host: "other", leaseMs: 60_000), at: 1_000)
        // Stopped by the queue: the claim is released, the partial stays on "other".
        f.record(.transferPaused(id: f.c, bytes: 700), at: 1_500)
        #expect(f.list.tasks[f.c]?.leaseUntil == nil && f.list.tasks[f.c]?.host == "other")
        let alive = f.plan(as: "me", at: 40_000, carry: false)
        #expect(!f.started(alive).contains(f.c) && !f.started(alive).contains(f.a) && alive.heldElsewhere)
        // Once "other" holds no live claim at all, its partial is given up.
        let gone = f.plan(as: "me", at: 61_000, carry: false)
        #expect(f.started(gone) == [f.c, f.d, f.a])
    }

    @Test func aRunningTransferWhoseClaimAnotherHostTookStopsWithoutAFact() throws {
        var f = try Fixture()
        f.record(.transferClaimed(id: f.c, host: "me", leaseMs: 2_000), at: 1_000)
        #expect(f.started(f.plan(as: "me", at: 1_001)).contains(f.c))
        // This host stalled past its lease; another took the task.
        f.record(.transferClaimed(id: f.c, host: "other", leaseMs: 2_000, expired: "me"), at: 3_500)
        let plan = f.plan(as: "me", at: 3_600)
        #expect(plan.actions.contains(.stop(f.c, .reset)))
        // And its renewal is refused.
        #expect(f.list.claims(of: [f.c], by: "me", at: 3_600, renewing: true).isEmpty)
    }

    @Test func ofTwoHostsClaimingOneTaskOnlyTheFirstClaimStands() throws {
        var f = try Fixture()
        let first = f.list.claims(of: [f.c, f.d], by: "one", at: 1_000, renewing: false)
        #expect(first.count == 2)
        let second = f.list.claims(of: [f.d, f.a], by: "two", at: 1_000, renewing: false)
        // Appended after the first (the store's expectingHead made "two" decide again), "two" gets only a.
        for claim in first { f.record(claim, at: 1_000) }
        let again = f.list.claims(of: [f.d, f.a], by: "two", at: 1_001, renewing: false)
        #expect(second.count == 2 && again == [.transferClaimed(id: f.a, host: "two", leaseMs: 30_000)])
        // A task the user paused is not claimed.
        try f.run(.pause(.tasks([f.a])))
        #expect(f.list.claims(of: [f.a], by: "two", at: 1_002, renewing: false).isEmpty)
    }

    @Test func everythingHeldElsewhereIsNotIdle() throws {
        var f = try Fixture()
        for id in [f.a, f.b, f.c, f.d] {
            f.record(.transferClaimed(id: id, host: "other", leaseMs: 30_000), at: 1_000)
        }
        let plan = f.plan(as: "me", at: 2_000)
        #expect(f.started(plan).isEmpty && !plan.idle && plan.heldElsewhere)
        // On a ledger of one downloader (no claims given) the same list is simply run.
        #expect(f.started(f.plan()) == [f.c, f.d, f.a])
    }
}

extension SchedulePlanTests.Fixture {
    /// A downloader's fact, logged at `time`.
    mutating func record(_ fact: Event, at time: Int64) {
        list.apply(LoggedEntry(seq: list.head + 1, time: time, entry: Entry(fact)))
    }

    /// The plan of host `host` at `now` on a shared ledger; with `carry`, its actions are noted.
    mutating func plan(as host: String, at now: Int64, carry: Bool = true) -> SchedulePlan {
        let plan = SchedulePlan.make(
            list: list, book: book, limit: list.maxDownloads, only: nil, connections: 1,
            freeDescriptors: 10_000,
            claims: .init(host: host, now: now))
        if carry { for action in plan.actions { book.note(action) } }
        return plan
    }
}
