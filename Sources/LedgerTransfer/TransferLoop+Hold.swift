import CCurl

/// Pause with the connection kept (SDE's `suspend`, against a stop's cancel with resume data): the request stays in
/// the multi handle, paused with `curl_easy_pause`, so a resume soon goes on with the same response; past
/// ``TransferConfig/holdLimit`` the connection is released and the transfer stops, to resume with a Range request.
extension TransferLoop {
    /// `CURLPAUSE_RECV | CURLPAUSE_SEND`.
    private static let pauseAll: Int32 = 1 | 4

    /// Holds `id`'s request. Between attempts there is no connection to keep: the transfer stops instead.
    func hold(id: Int64) {
        guard let job = jobs[id] else { return }
        guard let attempt = job.attempt else {
            cancel(id: id)
            return
        }
        guard attempt.heldSince == nil else { return }
        attempt.heldSince = Self.now()
        curl_easy_pause(attempt.easy.handle, Self.pauseAll)
        // The bytes gathered so far reach the partial file: what `held` reports is on disk.
        try? job.flush()
        mailbox.emit(.held(id: id, bytes: job.size))
    }

    /// Goes on with `id`'s held request; nothing when it is not held (its hold expired: it has stopped).
    func release(id: Int64) {
        guard let attempt = jobs[id]?.attempt, attempt.heldSince != nil else { return }
        attempt.heldSince = nil
        mailbox.emit(.continued(id: id))
        // Out of speed allowance, the refill unpauses it when it may go on.
        guard !attempt.paused else { return }
        curl_easy_pause(attempt.easy.handle, 0)  // CURLPAUSE_CONT
    }

    /// Stops the transfers held longer than the limit: their connections are released.
    func releaseExpiredHolds() {
        let now = Self.now()
        for (id, job) in jobs {
            if let held = job.attempt?.heldSince, now - held >= config.holdLimit { cancel(id: id) }
        }
    }
}
