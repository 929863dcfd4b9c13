import Testing

@testable import DownloadLedger

/// The transfers prepared ahead (``TransferAction/standby(_:_:)``): the next tasks in list order once the count
/// runs, prepared again when they change, withdrawn when the list no longer wants them next, and started from
/// what was prepared when a slot frees.
@Suite struct SchedulePlanStandbyTests {
    typealias Fixture = SchedulePlanTests.Fixture

    func prepared(_ plan: SchedulePlan) -> [TaskID] {
        plan.actions.compactMap { if case .standby(let t, _) = $0 { t.id } else { nil } }
    }

    func withdrawn(_ plan: SchedulePlan) -> [TaskID] {
        plan.actions.compactMap { if case .withdraw(let id) = $0 { id } else { nil } }
    }

    @Test func theTasksAfterTheRunningOnesArePreparedInListOrder() throws {
        var f = try Fixture()
        let first = f.plan(jobs: 1, standby: 2)
        #expect(f.started(first) == [f.c])
        #expect(prepared(first) == [f.d, f.a])
        #expect(f.book.standby.map(\.id) == [f.d, f.a])
        #expect(f.book.running.keys.sorted() == [f.c])
        // Nothing changed: nothing to do, and nothing prepared twice.
        #expect(f.changes(f.plan(jobs: 1, standby: 2)).isEmpty)
    }

    @Test func noneIsPreparedWithoutALimitOrBeyondTheDescriptors() throws {
        var f = try Fixture()
        #expect(prepared(f.plan(jobs: 0, standby: 2)).isEmpty)
        var g = try Fixture()
        // One connection costs 6 descriptors: 13 free pay for two transfers, the running one and one prepared.
        let plan = g.plan(jobs: 1, free: 13, standby: 2)
        #expect(g.started(plan) == [g.c])
        #expect(prepared(plan) == [g.d])
    }

    @Test func aPreparedTaskThatIsPausedIsWithdrawnAndTheNextOneIsPrepared() throws {
        var f = try Fixture()
        _ = f.plan(jobs: 1, standby: 2)
        try f.run(.pause(.tasks([f.d])))
        let plan = f.plan(jobs: 1, standby: 2)
        #expect(withdrawn(plan) == [f.d])
        #expect(prepared(plan) == [f.b])
        #expect(f.started(plan).isEmpty)
        #expect(f.book.standby.map(\.id) == [f.a, f.b])
    }

    @Test func aPreparedTaskWhoseRequestChangedIsPreparedAgain() throws {
        var f = try Fixture()
        _ = f.plan(jobs: 1, standby: 2)
        // A rename of d changes its request (the name it is placed under); the list's connections change every
        // request's default.
        try f.run(.rename(f.d, name: "renamed.bin"))
        #expect(withdrawn(f.plan(jobs: 1, standby: 2)) == [f.d])
        #expect(f.book.standby.map(\.id) == [f.a, f.d])
        try f.run(.setConnections(4))
        let plan = f.plan(jobs: 1, standby: 2)
        #expect(withdrawn(plan) == [f.a, f.d])
        #expect(prepared(plan) == [f.d, f.a])
    }

    @Test func aFreedSlotStartsThePreparedTaskFromWhatWasPrepared() throws {
        var f = try Fixture()
        _ = f.plan(jobs: 1, standby: 2)
        // c received its last byte before the prepared d could start on its own: the pass starts d (from what was
        // prepared: no withdrawal) and prepares b.
        f.book.finishing.insert(f.c)
        let plan = f.plan(jobs: 1, standby: 2)
        #expect(withdrawn(plan).isEmpty)
        #expect(f.started(plan) == [f.d])
        #expect(prepared(plan) == [f.b])
        // When d started on its own (the engine's turn), the pass only prepares the next.
        var g = try Fixture()
        _ = g.plan(jobs: 1, standby: 2)
        g.book.finishing.insert(g.c)
        g.book.promote(g.book.standby[0])
        let after = g.plan(jobs: 1, standby: 2)
        #expect(g.started(after).isEmpty)
        #expect(withdrawn(after).isEmpty)
        #expect(prepared(after) == [g.b])
        #expect(g.book.running.keys.sorted() == [g.c, g.d].sorted())
    }
}
