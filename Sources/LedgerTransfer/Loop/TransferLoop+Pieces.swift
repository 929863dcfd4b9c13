import CCurl

/// What happens when one connection of a segmented transfer ends: its piece is done (the connection takes the
/// next work), it failed (the others go on; the transfer retries only when none is left), or its source no longer
/// serves the same file (dropped, or the whole file restarts from zero).
extension TransferLoop {
    func finishPiece(_ job: Job, _ attempt: Attempt, result: CURLcode) {
        guard let segments = job.segments, let piece = attempt.piece else { return }
        let now = Self.now()
        detach(attempt, of: job)
        do {
            try segments.remove(piece)
        } catch {
            stopPieces(of: job)
            end(job, failure: error.reason)
            return
        }
        if result == CURLE_OK { attempt.decideIfNeeded() }
        switch attempt.outcome {
        case .restartFromZero(let why):
            stopPieces(of: job)
            restartFromZero(job, reason: why)
            return
        case .dropSource(let why):
            drop(source: piece.source, of: job, why: why)
        case .rangeFault(let why):
            // A mirror goes while another source is left; the last one serves the whole file on one connection.
            if segments.hasSource(besides: piece.source) {
                drop(source: piece.source, of: job, why: why)
            } else {
                fallBack(job, why, source: segments.sources[piece.source].url)
            }
        case .fail(let reason, let retryAfter):
            connectionFailed(job, reason, retryAfter: retryAfter, source: piece.source)
        case .alreadyComplete, nil:
            if piece.remaining > 0 {
                let reason: FailureReason =
                    result == CURLE_OK
                    ? .sizeMismatch(expected: piece.end - piece.start, actual: piece.received)
                    : reason(for: result, attempt: attempt)
                connectionFailed(job, reason, retryAfter: nil, source: piece.source)
            } else {
                segments.learn(from: piece, firstByteAt: attempt.firstBodyAt, now: now)
                afterPiece(job, now: now, freed: piece.speed(at: now))
            }
        }
    }

    /// The next work after a connection ended: more pieces, the end of the transfer, or nothing while it waits.
    private func afterPiece(_ job: Job, now: Double, freed: Double?) {
        guard jobs[job.request.id] === job, let segments = job.segments else { return }
        if segments.map.isComplete && segments.active == 0 {
            completeSegments(job)
            return
        }
        refill(job, now: now, freed: freed)
    }

    /// A connection failed. While others run, the transfer goes on without it (one connection fewer; its piece's
    /// rest is taken by the next connection that is free) and the log says so. When it was the last one, the
    /// transfer retries as a sequential one does (backoff, ``TransferConfig/maxRetries``), or fails.
    private func connectionFailed(_ job: Job, _ reason: FailureReason, retryAfter: Double?, source: Int) {
        guard let segments = job.segments else { return }
        // A mirror that fails is dropped while another source is left; the last one is retried as one URL is.
        let left = segments.sources.filter { $0.dropped == nil }.count
        if left > 1 && Self.isSourceFault(reason) {
            drop(source: source, of: job, why: reason.description)
            return
        }
        guard segments.active == 0 else {
            if reason.isRetryable {
                segments.wanted = max(segments.wanted - 1, 1)
                segments.ramp = nil
                mailbox.emit(
                    .connections(
                        id: job.request.id, count: segments.active,
                        detail: "a connection failed (\(reason)); going on with \(segments.active)"))
                refill(job, now: Self.now())
            } else {
                stopPieces(of: job)
                end(job, failure: reason)
            }
            return
        }
        fault(job, reason, retryAfter: retryAfter)
    }

    /// Whether a failure is the source's fault (not the disk's).
    private static func isSourceFault(_ reason: FailureReason) -> Bool {
        switch reason {
        case .diskFull, .fileSystem, .checksumMismatch: false
        default: true
        }
    }

    /// Drops a mirror for this transfer; the transfer fails when no source is left.
    func drop(source: Int, of job: Job, why: String) {
        guard let segments = job.segments else { return }
        if segments.sources[source].dropped == nil {
            segments.sources[source].dropped = why
            mailbox.emit(
                .connections(
                    id: job.request.id, count: segments.active,
                    detail: "dropped \(Segments.name(of: segments.sources[source].url)): \(why)"))
        }
        for piece in segments.pieces where piece.source == source {
            if let attempt = piece.attempt { detach(attempt, of: job) }
            try? segments.remove(piece)
        }
        guard segments.sources.contains(where: { $0.dropped == nil }) else {
            stopPieces(of: job)
            end(job, failure: .connection("every source failed; the last: \(why)"))
            return
        }
        refill(job, now: Self.now())
        if segments.active == 0 { fault(job, .connection(why), retryAfter: nil) }
    }

    /// Ends every connection of `job` (their gathered bytes written).
    func stopPieces(of job: Job) {
        guard let segments = job.segments else { return }
        for piece in segments.pieces {
            if let attempt = piece.attempt { detach(attempt, of: job) }
            try? segments.remove(piece)
        }
    }

    /// Every piece is in: the map goes (the file has no hole left), the log gets the summary, and the file is
    /// verified and placed like any other.
    private func completeSegments(_ job: Job) {
        guard let segments = job.segments else { return }
        job.file.removePieces()
        mailbox.emit(.connections(id: job.request.id, count: segments.peak, detail: segments.summary))
        complete(job)
    }
}
