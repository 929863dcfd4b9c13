import Testing

@testable import DownloadLedger

/// When a pass counts the free descriptors afresh (``DescriptorBudget``): a count that left twice what the pass may
/// use, younger than the tick, is reused; anything closer to the limit, older, or without a maximum count is
/// counted again.
@Suite struct DescriptorBudgetTests {
    let tick: Duration = .milliseconds(200)

    @Test func aRecentCountFarAboveWhatThePassMayUseIsReused() {
        var budget = DescriptorBudget()
        var counts = 0
        let start = ContinuousClock.now
        let needed = DescriptorBudget.needed(limit: 8, standby: 8, connections: 1)
        #expect(needed == 96)
        for n in 0..<5 {
            let free = budget.free(needing: needed, now: start + .milliseconds(10 * n), maxAge: tick) {
                counts += 1
                return 10_000 - counts
            }
            #expect(free == 9_999)
        }
        #expect(counts == 1)
        // A tick later it is counted again.
        _ = budget.free(needing: needed, now: start + .milliseconds(250), maxAge: tick) {
            counts += 1
            return 10_000
        }
        #expect(counts == 2)
    }

    @Test func aCountCloseToWhatThePassMayUseOrWithoutALimitIsTakenEveryPass() {
        var counts = 0
        let start = ContinuousClock.now
        // 150 free: less than twice the 96 that 8 transfers and 8 prepared ones may take.
        var near = DescriptorBudget()
        for n in 0..<3 {
            _ = near.free(
                needing: DescriptorBudget.needed(limit: 8, standby: 8, connections: 1),
                now: start + .milliseconds(n), maxAge: tick
            ) {
                counts += 1
                return 150
            }
        }
        #expect(counts == 3)
        // No maximum count: the descriptors are the only bound, counted every pass.
        #expect(DescriptorBudget.needed(limit: 0, standby: 8, connections: 16) == 0)
        var unbounded = DescriptorBudget()
        for n in 0..<3 {
            _ = unbounded.free(needing: 0, now: start + .milliseconds(n), maxAge: tick) {
                counts += 1
                return 100_000
            }
        }
        #expect(counts == 6)
    }
}
