import CCurl
import Glibc

/// What happens when a request ends: retry, restart, fail, or finish the file.
extension TransferLoop {
    func finish(easy handle: UnsafeMutableRawPointer, result: CURLcode) {
        guard let id = idsByHandle[handle], let job = jobs[id],
            let attempt = job.inFlight.first(where: { $0.easy.handle == handle })
        else { return }
        if job.segments != nil {
            finishPiece(job, attempt, result: result)
            return
        }
        job.effectiveURL = attempt.easy.effectiveURL ?? job.effectiveURL
        detachAttempt(of: job)
        do {
            try job.flush()
        } catch {
            end(job, failure: error.reason)
            return
        }
        if result == CURLE_OK { attempt.decideIfNeeded() }
        switch attempt.outcome {
        case .fail(let reason, let retryAfter):
            fault(job, reason, retryAfter: retryAfter)
        case .alreadyComplete:
            complete(job)
        case .restartFromZero(let reason), .dropSource(let reason):
            restartFromZero(job, reason: reason)
        case .rangeFault(let why):
            fallBack(job, why, source: attempt.url)
        case nil:
            if result != CURLE_OK {
                fault(job, reason(for: result, attempt: attempt), retryAfter: nil)
            } else if let expected = attempt.total ?? attempt.limit, expected != job.file.size {
                fault(job, .sizeMismatch(expected: expected, actual: job.file.size), retryAfter: nil)
            } else {
                complete(job)
            }
        }
    }

    func reason(for result: CURLcode, attempt: Attempt) -> FailureReason {
        let message = attempt.easy.message(for: result)
        switch result {
        case CURLE_OPERATION_TIMEDOUT: return .timeout(message)
        case CURLE_TOO_MANY_REDIRECTS: return .tooManyRedirects
        // What curl refuses to read: a NUL byte in a header, an oversized header, a Content-Length that is not
        // a number, a status line it cannot parse, an HTTP/0.9 answer, a broken chunked encoding.
        case CURLE_WEIRD_SERVER_REPLY: return .protocolViolation(message)
        case CURLE_UNSUPPORTED_PROTOCOL where message.contains("HTTP/0.9"): return .protocolViolation(message)
        case CURLE_RECV_ERROR where message.contains("chunked-encoding"): return .protocolViolation(message)
        // curl 7.88 refuses a header line over 100 KB as "out of memory", without a message of its own.
        case CURLE_OUT_OF_MEMORY where !attempt.decided:
            return .protocolViolation("a response header too long to read (\(message))")
        case CURLE_URL_MALFORMAT, CURLE_UNSUPPORTED_PROTOCOL: return .invalidURL(message)
        case CURLE_PEER_FAILED_VERIFICATION, CURLE_SSL_CONNECT_ERROR, CURLE_SSL_CERTPROBLEM, CURLE_SSL_CIPHER,
            CURLE_SSL_CACERT_BADFILE, CURLE_SSL_ISSUER_ERROR, CURLE_SSL_PINNEDPUBKEYNOTMATCH:
            return .tls(message)
        // curl could not make a socket: the process is out of descriptors (curl 7.88 says "Couldn't connect to
        // server" for a socket() that failed with EMFILE, so its errno is asked too).
        case _
        where message.contains(String(cString: strerror(EMFILE)))
            || message.contains(String(cString: strerror(ENFILE)))
            || (result == CURLE_COULDNT_CONNECT && [EMFILE, ENFILE].contains(attempt.easy.osErrno)):
            return .tooManyOpenFiles(message)
        case CURLE_PARTIAL_FILE:
            guard let expected = attempt.total ?? attempt.limit else { return .connection(message) }
            return .sizeMismatch(expected: expected, actual: attempt.job.file.size)
        default: return .connection(message)
        }
    }

    /// Retries a retryable fault after a backoff (or the server's Retry-After), else fails the job. A lack of
    /// descriptors is waited out however long it lasts: it says nothing about the transfer.
    func fault(_ job: Job, _ reason: FailureReason, retryAfter: Double?) {
        var delay: Double
        if case .tooManyOpenFiles = reason {
            delay = backoff(retry: 3)
        } else {
            guard reason.isRetryable, job.retries < config.maxRetries else {
                end(job, failure: reason)
                return
            }
            job.retries += 1
            delay = backoff(retry: job.retries)
        }
        delay = retryAfter.map { min($0, config.backoffCap) } ?? delay
        job.retryAt = Self.now() + delay
        let bounded = if case .tooManyOpenFiles = reason { false } else { true }
        job.retryWait = RetryWait(
            attempt: job.attempts + 1, of: bounded ? job.attempts - job.retries + config.maxRetries + 1 : nil,
            at: RetryWait.wallClock() + delay, code: reason.code, detail: reason.detail)
        mailbox.emit(.retrying(id: job.request.id, reason: reason, bytes: job.keptBytes, delay: delay))
    }

    /// Exponential backoff with "equal jitter": half the step fixed, half random.
    func backoff(retry: Int) -> Double {
        let step = min(config.backoffBase * Double(1 << min(retry - 1, 30)), config.backoffCap)
        return step / 2 + Double.random(in: 0...(step / 2))
    }

    func restartFromZero(_ job: Job, reason: String) {
        guard !job.restartedFromZero else {
            end(job, failure: .rangeNotSatisfiable)
            return
        }
        job.restartedFromZero = true
        job.pendingRestartReason = reason
        beginAgainFromZero(job)
    }

    /// The server's ranges cannot be trusted (``Attempt/Outcome/rangeFault(_:)``): the transfer goes on one
    /// connection from `source`, the whole file from zero, for the rest of the transfer (no split, no Range), and
    /// the log says why once, with the restart. Not bounded by the one restart from zero: after it no Range is
    /// asked, so a range fault cannot recur; one that does (a 206 to a request without Range) fails the transfer.
    func fallBack(_ job: Job, _ why: String, source: String) {
        guard job.rangeFault == nil else {
            stopPieces(of: job)
            end(job, failure: .rangeNotSatisfiable)
            return
        }
        stopPieces(of: job)
        job.pendingRestartReason = job.distrustRanges(why)
        job.url = source
        beginAgainFromZero(job)
    }

    /// Drops the validator and the partial file, and begins the transfer again from byte 0.
    private func beginAgainFromZero(_ job: Job) {
        job.validator = nil
        do {
            try job.discardPartial()
        } catch {
            end(job, failure: error.reason)
            return
        }
        beginAttempt(job)
    }

    /// Hands the finished file to the completion queue: fsync, hash, verify, link to a free final name.
    func complete(_ job: Job) {
        mailbox.emit(.received(id: job.request.id))
        handOver(job, name: finalName(of: job)) { $0.complete() }
    }

    /// The user's name, else the server's, else the (final) URL's, else "download"; always sanitized.
    private func finalName(of job: Job) -> String {
        if let preferred = job.request.preferredName.flatMap(FileNaming.sanitize) { return preferred }
        if let server = job.serverName { return server }
        if let url = job.effectiveURL.flatMap(FileNaming.name(fromURL:)) { return url }
        return FileNaming.name(fromURL: job.request.url) ?? "download"
    }
}
