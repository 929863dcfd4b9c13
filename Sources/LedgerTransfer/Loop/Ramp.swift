/// How many connections a split transfer wants when nobody asked for a count: it grows while each new connection
/// adds throughput, up to a cap, and holds once more stop helping. Confined to the loop thread (kept by
/// ``Segments``, stepped by ``TransferLoop``).
///
/// Each step multiplies the connections by ``factor`` (1 → 4 → 16 under the default cap), then measures the
/// transfer's rate over ``TransferConfig/rampWindow`` once every connection of the step has its first byte (their
/// set-up is latency, not throughput). The step helped when the connections it added gave, each, at least half of
/// what one gives (the lower of before the step and during it): a server that caps each connection gives about
/// that much again per connection; one whose total is capped (or a link that is full) gives nothing more, and the
/// transfer then keeps the connections its rate pays for (``Decision/hold(_:)``), the others ending with their
/// pieces. A step may show it helped from ``earlyWindow`` after it, by the rate since the step; one that does not
/// runs its window to the end.
struct Ramp {
    /// What the transfer should do after a window.
    enum Decision: Equatable {
        /// Grow to this many connections.
        case grow(Int)
        /// Stop growing and keep this many.
        case hold(Int)
    }

    /// Connections are multiplied by this at each step.
    static let factor = 4
    /// A new connection helps when it adds at least this share of what one connection gave before it.
    static let helpShare = 0.5
    /// Seconds the connections of a step may take to send their first byte before the window opens without them.
    static let setupLimit = 1.0
    /// Seconds after a step from which the rate since the step (its connections' set-up included) may show that
    /// it helped, which ends its window early; a step that does not show it runs its window to the end.
    static let earlyWindow = 0.01

    /// The most connections the ramp may reach (the task's cap, bounded by the connections allowed per server).
    let cap: Int
    /// Connections the last measured rate was reached with.
    private(set) var count: Int
    /// The rate (bytes/s) measured with ``count`` connections; nil before the first window (a resume in pieces
    /// starts without one).
    private(set) var rate: Double?
    /// When the current step's connections were asked (monotonic seconds), and the bytes received then.
    var stepAt: Double
    var stepBytes: Int64
    /// Where the current window opened: the time and the bytes received then; nil until its connections answered.
    var windowStart: (time: Double, bytes: Int64)?

    /// A ramp whose transfer ran `count` connections at `rate` (nil: not measured yet), stepping at `now` with
    /// `bytes` received.
    init(cap: Int, count: Int, rate: Double?, now: Double, bytes: Int64) {
        self.cap = max(cap, 1)
        self.count = max(count, 1)
        self.rate = rate
        self.stepAt = now
        self.stepBytes = bytes
    }

    /// When the open window ends: `window` seconds after it opened, or four times what the step's connections
    /// took to answer if that is longer (a distant server's new connections are still speeding up when they
    /// answer). Infinity while it has not opened.
    func windowEnd(_ window: Double) -> Double {
        guard let start = windowStart else { return .infinity }
        return start.time + max(window, 4 * (start.time - stepAt))
    }

    /// Whether `measured` with `running` connections shows that the connections added since ``count`` each gave
    /// at least ``helpShare`` of what one gives: the lower of before the step and during it (a short first look can
    /// catch a burst). True when there is nothing to compare with.
    func helped(_ measured: Double, running: Int) -> Bool {
        guard let base = rate, running > count else { return true }
        let one = min(base / Double(count), measured / Double(running))
        return measured - base >= one * Self.helpShare * Double(running - count)
    }

    /// The count after `count`: one step up, never past ``cap``.
    func next(after count: Int) -> Int {
        min(count * Self.factor, cap)
    }

    /// Takes the rate measured over a window with `running` connections wanted, and says what comes next. The
    /// first window (no rate before it) only sets the base. Before the window is `over`, only a step that already
    /// helped is decided: nil, measure on.
    mutating func measured(_ measured: Double, running: Int, over: Bool = true) -> Decision? {
        if !over && (rate == nil || !helped(measured, running: running)) { return nil }
        if let base = rate, running > count, !helped(measured, running: running) {
            // The connections the rate pays for at what one gave before, but not fewer than before this step.
            let paid = Int((measured / max(base / Double(count), 1)).rounded())
            return .hold(min(max(paid, count), running))
        }
        rate = measured
        count = running
        guard running < cap else { return .hold(running) }
        return .grow(next(after: running))
    }
}
