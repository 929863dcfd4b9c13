import CCurl

/// Pause with the connections kept (SDE's `suspend`, against a stop's cancel with resume data): the requests stay in
/// the multi handle, paused with `curl_easy_pause`, so a resume soon goes on with the same responses; past
/// ``holdLimit`` the connections are released and the transfer stops, to resume with Range requests.
///
/// A transfer split into pieces is held whole: every piece's connection is paused, and no connection is opened
/// for it (no refill, no split, no retry) until it is released; a piece's connection that ends meanwhile is not
/// replaced until then.
extension TransferLoop {
    /// `CURLPAUSE_RECV | CURLPAUSE_SEND`.
    private static let pauseAll: Int32 = 1 | 4

    /// Holds `id`'s requests. Between attempts there is no connection to keep: the transfer stops instead.
    func hold(id: Int64) {
        guard let job = jobs[id] else { return }
        let inFlight = job.inFlight
        guard !inFlight.isEmpty else {
            cancel(id: id)
            return
        }
        guard job.heldSince == nil else { return }
        let now = Self.now()
        job.heldSince = now
        for attempt in inFlight {
            attempt.heldSince = now
            curl_easy_pause(attempt.easy.handle, Self.pauseAll)
        }
        // The bytes gathered so far reach the partial file: what `held` reports is on disk.
        try? job.flush()
        mailbox.emit(.held(id: id, bytes: job.size))
    }

    /// Goes on with `id`'s held requests; nothing when it is not held (its hold expired: it has stopped).
    func release(id: Int64) {
        guard let job = jobs[id], job.heldSince != nil else { return }
        job.heldSince = nil
        mailbox.emit(.continued(id: id))
        // A piece's connection that ended while held is replaced now.
        job.segments?.needsRefill = true
        for attempt in job.inFlight {
            attempt.heldSince = nil
            // Out of speed allowance, the refill unpauses it when it may go on.
            guard !attempt.paused else { continue }
            curl_easy_pause(attempt.easy.handle, 0)  // CURLPAUSE_CONT
        }
    }

    /// Stops the transfers held longer than the limit: their connections are released.
    func releaseExpiredHolds() {
        let now = Self.now()
        for (id, job) in jobs {
            if let held = job.heldSince, now - held >= holdLimit { cancel(id: id) }
        }
    }
}
