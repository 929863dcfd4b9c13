import Testing

@testable import DownloadLedger

/// The transfers prepared ahead (``TransferAction/standby(_:_:)``): the next tasks in list order once the count
/// runs, one per slot, prepared again when they change, withdrawn when the list no longer wants them next, and
/// started from what was prepared when a slot frees.
@Suite struct SchedulePlanStandbyTests {
    typealias Fixture = SchedulePlanTests.Fixture

    func prepared(_ plan: SchedulePlan) -> [TaskID] {
        plan.actions.compactMap { if case .standby(let t, _) = $0 { t.id } else { nil } }
    }

    func withdrawn(_ plan: SchedulePlan) -> [TaskID] {
        plan.actions.compactMap { if case .withdraw(let id) = $0 { id } else { nil } }
    }

    @Test func theTasksAfterTheRunningOnesArePreparedInListOrderOnePerSlot() throws {
        var f = try Fixture()
        let first = f.plan(jobs: 2, standby: 8)
        #expect(f.started(first) == [f.c, f.d])
        #expect(prepared(first) == [f.a, f.b])
        #expect(f.book.standby.map(\.id) == [f.a, f.b])
        #expect(f.book.running.keys.sorted() == [f.c, f.d].sorted())
        // Nothing changed: nothing to do, and nothing prepared twice.
        #expect(f.changes(f.plan(jobs: 2, standby: 8)).isEmpty)
        // One slot: one prepared, however many are asked for.
        var g = try Fixture()
        #expect(prepared(g.plan(jobs: 1, standby: 8)) == [g.d])
    }

    @Test func noneIsPreparedWithoutALimitOrBeyondTheDescriptors() throws {
        var f = try Fixture()
        #expect(prepared(f.plan(jobs: 0, standby: 8)).isEmpty)
        var g = try Fixture()
        // One connection costs 6 descriptors: 19 free pay for three transfers, the two running and one prepared.
        let plan = g.plan(jobs: 2, free: 19, standby: 8)
        #expect(g.started(plan) == [g.c, g.d])
        #expect(prepared(plan) == [g.a])
    }

    @Test func aPreparedTaskThatIsPausedIsWithdrawnAndTheNextOneIsPrepared() throws {
        var f = try Fixture()
        _ = f.plan(jobs: 1, standby: 8)
        try f.run(.pause(.tasks([f.d])))
        let plan = f.plan(jobs: 1, standby: 8)
        #expect(withdrawn(plan) == [f.d])
        #expect(prepared(plan) == [f.a])
        #expect(f.started(plan).isEmpty)
        #expect(f.book.standby.map(\.id) == [f.a])
    }

    @Test func aPreparedTaskWhoseRequestChangedIsPreparedAgain() throws {
        var f = try Fixture()
        _ = f.plan(jobs: 2, standby: 8)
        // A rename of a changes its request (the name it is placed under); the list's connections change every
        // request's default.
        try f.run(.rename(f.a, name: "renamed.bin"))
        let renamed = f.plan(jobs: 2, standby: 8)
        #expect(withdrawn(renamed) == [f.a])
        #expect(prepared(renamed) == [f.a])
        try f.run(.setConnections(4))
        let plan = f.plan(jobs: 2, standby: 8)
        #expect(withdrawn(plan) == [f.b, f.a])
        #expect(prepared(plan) == [f.a, f.b])
    }

    @Test func aFreedSlotStartsThePreparedTaskFromWhatWasPrepared() throws {
        var f = try Fixture()
        _ = f.plan(jobs: 1, standby: 8)
        // c received its last byte before the prepared d could start on its own: the pass starts d (from what was
        // prepared: no withdrawal) and prepares a.
        f.book.finishing.insert(f.c)
        let plan = f.plan(jobs: 1, standby: 8)
        #expect(withdrawn(plan).isEmpty)
        #expect(f.started(plan) == [f.d])
        #expect(prepared(plan) == [f.a])
        // When d started on its own (the engine's turn), the pass only prepares the next.
        var g = try Fixture()
        _ = g.plan(jobs: 1, standby: 8)
        g.book.finishing.insert(g.c)
        g.book.promote(g.book.standby[0])
        let after = g.plan(jobs: 1, standby: 8)
        #expect(g.started(after).isEmpty)
        #expect(withdrawn(after).isEmpty)
        #expect(prepared(after) == [g.a])
        #expect(g.book.running.keys.sorted() == [g.c, g.d].sorted())
    }
}
