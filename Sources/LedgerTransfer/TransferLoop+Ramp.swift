/// The ramp of a split transfer's connections when no count was asked (``Ramp``): after each step, a window
/// measures the transfer's rate; the connections grow while each new one adds throughput, and hold once they stop
/// helping. Every decision is one `.connections` fact, so the log tells how the count was found.
extension TransferLoop {
    /// Looks at `job`'s ramp: opens the window once the step's connections answered, and decides when it is over.
    func rampUp(_ job: Job, _ segments: Segments, now: Double) {
        guard var ramp = segments.ramp, segments.confirmed else { return }
        let received = segments.receivedBytes
        guard let start = ramp.windowStart else {
            // Their set-up (connect, request, first byte) is latency, not throughput: the window waits for it.
            let answered = segments.pieces.allSatisfy { $0.attempt?.firstBodyAt != nil }
            if answered || now - ramp.stepAt >= Ramp.setupLimit {
                ramp.windowStart = (now, received)
                segments.ramp = ramp
            }
            return
        }
        guard now - start.time >= Ramp.earlyWindow else { return }
        let running = segments.wanted
        let before = ramp.count
        let rate = Double(received - start.bytes) / (now - start.time)
        // Nothing left to hand out at the end of a window: the rate measured the end of the file, not the connections.
        if now >= ramp.windowEnd(config.rampWindow) && segments.unassigned().isEmpty {
            segments.ramp = nil
            return
        }
        let gave = "\(running) gave \(TransferActivity.formatBytes(Int64(rate)))/s"
        guard
            let decision = ramp.measured(
                rate, running: running, over: now >= ramp.windowEnd(config.rampWindow))
        else { return }
        let detail: String
        switch decision {
        case .grow(let next):
            ramp.stepAt = now
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
