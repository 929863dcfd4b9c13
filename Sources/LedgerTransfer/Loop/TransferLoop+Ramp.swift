/// The ramp of a split transfer's connections when no count was asked (``Ramp``): after each step, a window
/// measures the transfer's rate; the connections grow while each new one adds throughput, and hold once they stop
/// helping. Every decision is one `.connections` fact, so the log tells how the count was found.
extension TransferLoop {
    /// Seconds a ramp's window lasts at least while a speed limit paces the transfers: the limiter lets a burst
    /// through at each refill, which a window of a few milliseconds would read as the new connections' gain.
    static let limitedRampWindow = 0.25

    /// The window a ramp measures over: ``TransferConfig/rampWindow``, or ``limitedRampWindow`` under a limit.
    var rampWindow: Double { isLimiting ? max(config.rampWindow, Self.limitedRampWindow) : config.rampWindow }

    /// Looks at `job`'s ramp: opens the window once the step's connections answered, and decides when it is over.
    func rampUp(_ job: Job, _ segments: Segments, now: Double) {
        guard var ramp = segments.ramp, segments.confirmed else { return }
        let received = segments.receivedBytes
        if ramp.windowStart == nil {
            // Their set-up (connect, request, first byte) is latency, not throughput: the window waits for it.
            let answered = segments.pieces.allSatisfy { $0.attempt?.firstBodyAt != nil }
            if answered || now - ramp.stepAt >= Ramp.setupLimit {
                ramp.windowStart = (now, received)
                segments.ramp = ramp
            }
        }
        let running = segments.wanted
        let before = ramp.count
        let rate: Double
        let decided: Ramp.Decision?
        if let start = ramp.windowStart, now >= ramp.windowEnd(rampWindow) {
            // The window is over: its rate decides, whatever it shows.
            rate = Double(received - start.bytes) / max(now - start.time, 0.001)
            // Nothing left to hand out: the rate measured the end of the file, not the connections.
            if segments.unassigned().isEmpty {
                segments.ramp = nil
                return
            }
            decided = ramp.measured(rate, running: running)
        } else if now - ramp.stepAt >= Ramp.earlyWindow && !isLimiting {
            // Early, the rate since the step (their set-up included, which only lowers it) decides only a step
            // that already helped.
            rate = Double(received - ramp.stepBytes) / (now - ramp.stepAt)
            decided = ramp.measured(rate, running: running, over: false)
        } else {
            return
        }
        let gave = "\(running) gave \(TransferActivity.formatBytes(Int64(rate)))/s"
        guard let decision = decided else { return }
        let detail: String
        switch decision {
        case .grow(let next):
            ramp.stepAt = now
            ramp.stepBytes = received
            ramp.windowStart = nil
            segments.ramp = ramp
            segments.wanted = next
            refill(job, now: now)
            detail = "ramped up to \(next) connections (\(gave))"
        case .hold(let kept):
            segments.ramp = nil
            segments.wanted = kept
            if kept == running && running >= ramp.cap {
                detail = "holding \(kept) connections, the most allowed (\(gave))"
            } else {
                let one = TransferActivity.formatBytes(Int64((ramp.rate ?? rate) / Double(max(before, 1))))
                detail = "holding \(kept) connections (\(gave); one gave \(one)/s before)"
            }
        }
        mailbox.emit(
            .connections(id: job.request.id, count: min(segments.active, segments.wanted), detail: detail))
    }
}
