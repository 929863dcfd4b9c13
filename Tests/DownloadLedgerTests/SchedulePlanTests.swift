import Testing

@testable import DownloadLedger

/// The scheduler's decisions, from the list and what runs, without a transfer: what a user checks of a downloader
/// (the count, the order, pause, stop, delete, `get`'s scope, limits and connections).
@Suite struct SchedulePlanTests {
    /// A list built by the same decide and reduce the ledger runs; the tasks a, b (section 0) and c, d (a section
    /// put above it), so the list order is c, d, a, b.
    struct Fixture {
        var list = DownloadList()
        var book = TransferBook()
        let a: TaskID, b: TaskID, c: TaskID, d: TaskID

        init() throws {
            list.apply(
                LoggedEntry(
                    seq: 1, time: 0, entry: Entry(.ledgerCreated(directory: "/tmp/plan", maxDownloads: 3))))
            var ids: [TaskID] = []
            ids += try Self.add(&list, ["https://example.com/a", "https://example.com/b"], .end)
            ids += try Self.add(
                &list, ["https://example.com/c", "https://example.com/d"], .newSection(title: "first", at: 0))
            (a, b, c, d) = (ids[0], ids[1], ids[2], ids[3])
        }

        private static func add(_ list: inout DownloadList, _ urls: [String], _ placement: AddPlacement)
            throws
            -> [TaskID]
        {
            let decision = try list.decide(
                .add(urls: urls, placement: placement, name: nil, sha256: nil, directory: nil))
            list.apply(LoggedEntry(seq: list.head + 1, time: 0, entry: decision.entry))
            return decision.added
        }

        /// A user's command, logged.
        mutating func run(_ command: Command) throws {
            let decision = try list.decide(command)
            list.apply(LoggedEntry(seq: list.head + 1, time: 0, entry: decision.entry))
        }

        /// A downloader's fact, logged.
        mutating func record(_ fact: Event) {
            list.apply(LoggedEntry(seq: list.head + 1, time: 0, entry: Entry(fact)))
        }

        /// The plan now; with `carryOut`, its actions are noted as the scheduler notes them.
        mutating func plan(
            jobs: Int? = nil, only: Set<TaskID>? = nil, connections: Int = 1, free: Int = 10_000,
            standby: Int = 0, carryOut: Bool = true
        ) -> SchedulePlan {
            let plan = SchedulePlan.make(
                list: list, book: book, limit: jobs ?? list.maxDownloads, only: only,
                connections: connections,
                freeDescriptors: free, standby: standby)
            if carryOut { for action in plan.actions { book.note(action) } }
            return plan
        }

        /// Starts the first `jobs` tasks, as a first pass does, and forgets the speed limit it passes on.
        mutating func startAll(jobs: Int? = nil) {
            _ = plan(jobs: jobs)
        }

        func started(_ plan: SchedulePlan) -> [TaskID] {
            plan.actions.compactMap { if case .start(let t) = $0 { t.id } else { nil } }
        }

        /// The actions besides the ledger-wide speed limit a first pass passes on.
        func changes(_ plan: SchedulePlan) -> [TransferAction] {
            plan.actions.filter { if case .limitAll = $0 { false } else { true } }
        }
    }

    @Test func tasksStartInListOrderUpToTheMaximumCount() throws {
        var f = try Fixture()
        let plan = f.plan()
        // The first pass passes on the ledger-wide speed limit and pause hold, then starts.
        #expect(Array(plan.actions.prefix(2)) == [.limitAll(0), .holdLimit(0)])
        #expect(f.started(plan) == [f.c, f.d, f.a])
        #expect(plan.actions.dropFirst(2).allSatisfy { if case .start = $0 { true } else { false } })
        #expect(f.list.tasks[f.c].map { TransferAction.start($0) } == plan.actions[2])
        #expect(!plan.idle)
        // Nothing changed: nothing more to do.
        #expect(f.plan().actions.isEmpty)
    }

    @Test func theRunsOwnCountOverridesTheLedgers() throws {
        var f = try Fixture()
        #expect(f.started(f.plan(jobs: 1)) == [f.c])
        #expect(f.started(f.plan(jobs: 0)) == [f.d, f.a, f.b])
    }

    @Test func aRaisedCountStartsMoreAndALoweredOneSendsTheLastBackToWaiting() throws {
        var f = try Fixture()
        f.startAll()
        try f.run(.setMaxDownloads(4))
        #expect(f.changes(f.plan()) == [.start(f.list.tasks[f.b]!)])
        try f.run(.setMaxDownloads(2))
        #expect(f.changes(f.plan()) == [.stop(f.a, .queue), .stop(f.b, .queue)].sorted(by: Self.byID))
    }

    @Test func aTaskMovedUpTakesTheSlotOfTheLastOne() throws {
        var f = try Fixture()
        f.startAll()
        try f.run(.move([f.b], to: Location(section: 0, index: 0)))
        // The list is now b, c, d, a: a goes back to waiting and b starts.
        #expect(f.changes(f.plan()) == [.stop(f.a, .queue), .start(f.list.tasks[f.b]!)])
    }

    @Test func pausedAndStoppedTasksAreNotStarted() throws {
        var f = try Fixture()
        try f.run(.pause(.tasks([f.c])))
        try f.run(.stop(.tasks([f.a])))
        #expect(f.started(f.plan()) == [f.d, f.b])
    }

    @Test func aPauseHoldsTheConnectionAResumeGoesOnWithItAndAStopClosesIt() throws {
        var f = try Fixture()
        f.startAll(jobs: 0)
        try f.run(.pause(.tasks([f.c])))
        #expect(f.changes(f.plan(jobs: 0)) == [.hold(f.c)])
        try f.run(.resume(.tasks([f.c])))
        #expect(f.changes(f.plan(jobs: 0)) == [.release(f.c)])
        try f.run(.stop(.tasks([f.d])))
        #expect(f.changes(f.plan(jobs: 0)) == [.stop(f.d, .user)])
    }

    @Test func aDeletedTasksTransferStopsAndRestoreStartsItAgain() throws {
        var f = try Fixture()
        f.startAll()
        try f.run(.delete(.tasks([f.c]), mode: .all))
        // Its slot goes to the next one in the list.
        #expect(f.changes(f.plan()) == [.stop(f.c, .user), .start(f.list.tasks[f.b]!)])
        f.book.end(f.c)
        try f.run(.restore([f.c], to: nil))
        #expect(f.started(f.plan(jobs: 0)) == [f.c])
    }

    @Test func aRedownloadedTaskRestartsFromZero() throws {
        var f = try Fixture()
        f.startAll()
        f.record(.transferStarted(id: f.d, attempt: 1, offset: 4096))
        try f.run(.redownload(.tasks([f.d])))
        #expect(f.changes(f.plan()) == [.stop(f.d, .reset)])
        // Once the engine confirmed the stop, the task starts again, in its place.
        f.book.end(f.d)
        #expect(f.changes(f.plan()) == [.start(f.list.tasks[f.d]!)])
    }

    @Test func onlyTheTasksInScopeStart() throws {
        var f = try Fixture()
        let plan = f.plan(jobs: 0, only: [f.b, f.d])
        #expect(f.started(plan) == [f.d, f.b])
        try f.run(.stop(.tasks([f.d, f.b])))
        #expect(f.plan(jobs: 0, only: [f.b, f.d]).idle == false)
        f.book.end(f.d)
        f.book.end(f.b)
        // The others wait, but not for this run.
        #expect(f.plan(jobs: 0, only: [f.b, f.d]).idle)
    }

    @Test func speedLimitChangesReachTheRunningTransfers() throws {
        var f = try Fixture()
        f.startAll()
        try f.run(.setSpeedLimit(500_000))
        #expect(f.plan().actions == [.limitAll(500_000)])
        try f.run(.setOptions(f.d, TaskOptions(maxSpeed: 64_000)))
        #expect(f.plan().actions == [.limitTask(f.d, 64_000)])
        try f.run(.setOptions(f.d, TaskOptions()))
        #expect(f.plan().actions == [.limitTask(f.d, nil)])
        // A waiting task's limit goes with its start.
        try f.run(.setOptions(f.b, TaskOptions(maxSpeed: 1_000)))
        #expect(f.plan().actions.isEmpty)
    }

    @Test func moreConnectionsPerTransferMeanFewerTransfersWhenDescriptorsAreScarce() throws {
        var f = try Fixture()
        // 60 free descriptors pay for 10 transfers of one connection (6 each).
        let plan = f.plan(jobs: 0, free: 60, carryOut: false)
        #expect(f.started(plan) == [f.c, f.d, f.a, f.b])
        #expect(!plan.waitsForDescriptors)
        try f.run(.setConnections(16))
        // Of 16 (21 each), two: the others wait for descriptors rather than fail.
        let scarce = f.plan(jobs: 0, free: 60)
        #expect(f.started(scarce) == [f.c, f.d])
        #expect(scarce.waitsForDescriptors)
        // Running transfers are never stopped for the budget.
        #expect(f.changes(f.plan(jobs: 0, free: 0)).isEmpty)
    }

    @Test func aFinishingTransferIsLeftAloneAndFreesItsSlot() throws {
        var f = try Fixture()
        f.startAll()
        f.book.finishing.insert(f.c)
        try f.run(.pause(.tasks([f.c])))
        #expect(f.changes(f.plan()) == [.start(f.list.tasks[f.b]!)])
    }

    @Test func idleWhenNothingWaitsAndOnlyPausesAreHeld() throws {
        var f = try Fixture()
        f.startAll(jobs: 0)
        try f.run(.pause(.all))
        let plan = f.plan(jobs: 0)
        #expect(f.changes(plan) == [f.c, f.d, f.a, f.b].sorted().map { .hold($0) })
        #expect(plan.idle)
        // A stop of a held pause closes its connection.
        try f.run(.stop(.tasks([f.a])))
        #expect(f.plan(jobs: 0).actions == [.stop(f.a, .user)])
    }

    private static func byID(_ x: TransferAction, _ y: TransferAction) -> Bool {
        guard case .stop(let i, _) = x, case .stop(let j, _) = y else { return false }
        return i < j
    }
}
