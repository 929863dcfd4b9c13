import LedgerTransfer

/// The free descriptors a scheduling pass plans with (``DescriptorLimit/free()``), counted afresh only when it may
/// matter: when the last count is older than `maxAge`, or left less than twice what the pass may use. Counting reads
/// `/proc/self/fd`, and a pass runs for every file that ends: for 200 files of 1 MiB that reading was about 2 % of
/// the downloader's CPU, while the count could not change a plan bounded far below it.
///
/// Why twice is enough: what the pass may use is every transfer of the count and every prepared one opening all its
/// descriptors; a count that left twice that still leaves it after all of them opened since. A count at the limit
/// (few descriptors, or no maximum count) is taken on every pass, as before, and a shortage is waited out anyway.
struct DescriptorBudget {
    /// The last count and when it was taken.
    private(set) var last: (free: Int, at: ContinuousClock.Instant)?

    /// The free descriptors for a pass that may use `needed` (0: unbounded, always counted); `count` counts them.
    mutating func free(
        needing needed: Int, now: ContinuousClock.Instant, maxAge: Duration, count: () -> Int
    ) -> Int {
        if let last, needed > 0, last.at.duration(to: now) < maxAge, last.free >= 2 * needed {
            return last.free
        }
        let counted = count()
        last = (counted, now)
        return counted
    }

    /// What a pass may use: `limit` transfers and `standby` prepared ones of `connections` connections each; 0 (count
    /// every time) without a limit.
    static func needed(limit: Int, standby: Int, connections: Int) -> Int {
        limit > 0 ? (limit + standby) * DescriptorLimit.cost(connections: connections) : 0
    }
}
