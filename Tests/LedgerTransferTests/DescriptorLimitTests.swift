import Foundation
import Glibc
import LedgerTransfer
import LoopbackHTTP
import Testing

/// Running out of descriptors is a wait, never a failure (issue 10 §6): the engine retries the open later, without
/// counting it against the retries, and every transfer finishes once descriptors come free.
@Suite(.serialized) struct DescriptorLimitTests {
    @Test func transfersStartedWithoutADescriptorLeftWaitAndFinish() async throws {
        var config = Harness.fastConfig
        config.maxRetries = 0  // a lack of descriptors must not use any retry
        config.connectionsPerTask = 1
        let h = try Harness(config: config)
        defer { h.close() }
        let count: Int64 = 20
        for i in 1...count { h.server.serve("/f\(i).bin", Resource(size: 5_000, seed: UInt64(i))) }
        var saved = rlimit()
        getrlimit(Int32(RLIMIT_NOFILE.rawValue), &saved)
        let open = try #require(DescriptorLimit.inUse())

        // Room for a few descriptors only: most starts find none.
        var tight = saved
        tight.rlim_cur = rlim_t(open + 6)
        setrlimit(Int32(RLIMIT_NOFILE.rawValue), &tight)
        for i in 1...count { h.engine.start(h.request(i, "/f\(i).bin")) }
        let starved = await Harness.eventually(timeout: 5) {
            h.events.all.contains {
                if case .retrying(_, .tooManyOpenFiles, _, _) = $0 { true } else { false }
            }
        }
        setrlimit(Int32(RLIMIT_NOFILE.rawValue), &saved)

        #expect(starved)
        for i in 1...count {
            let event = await h.events.terminal(i)
            guard case .completed(_, 5_000, _, let name) = event else {
                Issue.record("#\(i) ended with \(String(describing: event))")
                continue
            }
            let same = h.holds(name, Resource(size: 5_000, seed: UInt64(i)).body.allBytes)
            #expect(same)
        }
    }

    @Test func theCapacityLeavesAMarginAndNeverDropsToZero() {
        let limit = DescriptorLimit.raise()
        #expect(limit >= 1024 || limit == DescriptorLimit.limit)
        let one = DescriptorLimit.transferCapacity(connections: 1, running: 0)
        let eight = DescriptorLimit.transferCapacity(connections: 8, running: 0)
        #expect(one >= eight && eight >= 1)
        let used = DescriptorLimit.inUse() ?? 0
        #expect(
            one * DescriptorLimit.cost(connections: 1)
                <= max(limit - used - DescriptorLimit.margin(limit: limit), 1))
    }
}
