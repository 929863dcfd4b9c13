import CCurl
import Glibc

/// The curl multi loop: owns every ``Job`` and runs on the engine's thread only, which is what makes the
/// `@unchecked Sendable` hand-over to that thread sound.
final class TransferLoop: @unchecked Sendable {
    let config: TransferConfig
    let mailbox: EngineMailbox
    let multi: CurlMulti
    /// Hashes the partial files beside the loop.
    let hashes = HashWorker()
    /// Ends transfers (fsync, hash, link) beside the loop.
    let completions = CompletionQueue()
    var jobs: [Int64: Job] = [:]
    var idsByHandle: [UnsafeMutableRawPointer: Int64] = [:]
    var speedLimit: Int64
    /// How long a held transfer keeps its connections (seconds): the config's until the ledger sets its own.
    var holdLimit: Double
    /// Transfers whose server's ranges failed (``Job/rangeFault``), by id, for the life of the engine: a transfer
    /// started again for the same task generation and URL goes on as it went (one connection, from zero, without
    /// Range, from the source that was left).
    var rangeFaults: [Int64: (generation: Int, url: String, source: String, why: String)] = [:]
    /// Starts whose partial file could not be opened for lack of descriptors, and when to try again.
    private var reopens: [(request: TransferRequest, due: Double)] = []
    private var nextTick: Double = 0
    private var publishedActivity = false
    private var lastRefill: Double = 0
    /// Bytes received beyond their allowance by requests that have ended, by transfer (a callback delivers up to a
    /// whole buffer however little allowance is left): paid back from the next refills, so many short requests, as
    /// the pieces of split transfers are, do not each overshoot the limit once.
    var limiterDebts: [Int64: Double] = [:]
    static let tickInterval = 0.25
    static let refillInterval = 0.05
    /// curl's receive buffer per transfer. curl's default 16 KiB means a recv and a loop turn per 16 KiB (65 000
    /// per GiB, six times curl's own tool); 256 KiB gives about 4 000. Larger ones (curl allows 512 KiB) spread
    /// each recv's copy over memory the caches no longer hold by the time the bytes are copied on: with 8 transfers
    /// 512 KiB buffers are 4 MiB, and the 200-file run took 3–12 % more wall time and 20–33 ms more CPU with them
    /// (docs/bench-transfer.md).
    static let receiveBuffer = 256 << 10

    init(config: TransferConfig, mailbox: EngineMailbox) {
        self.config = config
        self.mailbox = mailbox
        self.multi = mailbox.multi
        self.speedLimit = config.speedLimit
        self.holdLimit = config.holdLimit
    }

    func run() {
        while handleCommands() {
            startDueRetries()
            if isLimiting { refillAllowances() }
            releaseExpiredHolds()
            multi.perform()
            while let (easy, result) = multi.nextFinished() {
                finish(easy: easy, result: result)
            }
            considerSplits(now: Self.now())
            publishActivityIfDue()
            multi.poll(milliseconds: waitMilliseconds())
        }
        for id in jobs.keys.sorted() + reopens.map(\.request.id) {
            cancel(id: id)
        }
        completions.close()
        hashes.shutdown()
        mailbox.finish()
    }

    /// Applies queued commands; false on shutdown.
    private func handleCommands() -> Bool {
        for command in mailbox.takeCommands() {
            switch command {
            case .start(let request, let opened): start(request, opened)
            case .cancel(let id): cancel(id: id)
            case .hold(let id): hold(id: id)
            case .release(let id): release(id: id)
            case .speedLimit(let limit):
                speedLimit = limit
                applySpeedLimit()
            case .taskSpeedLimit(let id, let limit):
                guard let job = jobs[id] else { continue }
                job.maxSpeed = limit
                applySpeedLimit()
            case .holdLimit(let seconds): holdLimit = seconds ?? config.holdLimit
            case .shutdown: return false
            }
        }
        return true
    }

    private func start(_ request: TransferRequest, _ opened: OpenedPartial) {
        guard jobs[request.id] == nil else { return }
        guard let partial = opened.opened else {
            let reason = opened.failure ?? .fileSystem("cannot open the partial file")
            if case .tooManyOpenFiles = reason {
                // Opened again on this thread once descriptors may have come free; the id stays running.
                let delay = backoff(retry: 3)
                reopens.append((request, Self.now() + delay))
                mailbox.emit(.retrying(id: request.id, reason: reason, bytes: 0, delay: delay))
                return
            }
            mailbox.emit(.failed(id: request.id, reason: reason, retryable: false, bytes: 0))
            return
        }
        let job = Job(request: request, file: partial.file, readFD: partial.readFD, hashes: hashes)
        job.maxSize = request.maxSize ?? config.maxSize
        job.unannouncedMaxSize = config.unannouncedMaxSize
        job.connections = connections(for: job)
        // A server whose ranges failed this transfer before, in this run: the rest goes as it went, on one
        // connection from zero without Range, from the URL that was left; the log said why already.
        if let known = rangeFaults[request.id], known.generation == request.generation,
            known.url == request.url
        {
            _ = job.distrustRanges(known.why)
            job.url = known.source
        }
        jobs[request.id] = job
        do {
            // Pieces are not resumed for a server whose ranges failed: its next attempt starts from zero.
            if job.rangeFault == nil { try resumeSegments(job) }
        } catch {
            end(job, failure: error.reason)
            return
        }
        beginAttempt(job)
    }

    /// Keeps, for a later start of the same transfer, that its server's ranges failed.
    private func rememberRangeFault(of job: Job) {
        guard let why = job.rangeFault else { return }
        let request = job.request
        rangeFaults[request.id] = (request.generation, request.url, job.url, why)
    }

    /// Stops `id` at once; its bytes are synced and its `.stopped` sent from the completion queue. An id already
    /// completing is left to complete.
    func cancel(id: Int64) {
        if let waiting = reopens.firstIndex(where: { $0.request.id == id }) {
            reopens.remove(at: waiting)
            mailbox.emit(.stopped(id: id, bytes: 0))
            return
        }
        guard let job = jobs[id] else { return }
        // The gathered bytes are kept for the resume; a write error here shows again when it resumes.
        try? job.flush()
        handOver(job) { $0.stop() }
    }

    /// Takes `job` off the loop and runs its blocking end on the completion queue, which sends its terminal event.
    func handOver(_ job: Job, name: String = "", _ end: @escaping @Sendable (Finishing) -> TransferEvent) {
        detachAttempt(of: job)
        rememberRangeFault(of: job)
        jobs[job.request.id] = nil
        let finishing = Finishing(
            request: job.request, file: job.file, follower: job.follower, hashes: hashes, name: name,
            keepPartial: config.keepPlacedPartials, ledgerPath: config.ledgerPath, kept: job.keptBytes)
        let mailbox = self.mailbox
        completions.submit {
            let event = end(finishing)
            CompletionQueue.outsideBatch { mailbox.emit(event) }
        }
    }

    /// Sends the next request of `job`, resuming from its partial file.
    func beginAttempt(_ job: Job) {
        if job.segments != nil {
            beginSegmentRound(job)
            return
        }
        job.retryAt = nil
        job.attempts += 1
        let easy: CurlEasy
        do {
            // Ranges are not trusted any more: what a failed attempt left is asked again, from zero.
            if job.rangeFault != nil && job.size > 0 { try job.discardPartial() }
            easy = try CurlEasy()
        } catch {
            end(job, failure: error.reason)
            return
        }
        let attempt = Attempt(job: job, easy: easy, number: job.attempts, emit: mailbox.emit)
        configure(easy, for: attempt)
        mailbox.emit(.started(id: job.request.id, attempt: attempt.number, offset: attempt.offset))
        guard multi.add(easy) else {
            end(job, failure: .connection("curl_multi_add_handle failed"))
            return
        }
        job.attempt = attempt
        idsByHandle[easy.handle] = job.request.id
        applySpeedLimit()
    }

    func configure(_ easy: CurlEasy, for attempt: Attempt) {
        easy.set(CURLOPT_URL, attempt.url)
        easy.set(CURLOPT_PROTOCOLS_STR, "http,https")
        easy.set(CURLOPT_REDIR_PROTOCOLS_STR, "http,https")
        easy.set(CURLOPT_FOLLOWLOCATION, 1)
        easy.set(CURLOPT_MAXREDIRS, config.maxRedirects)
        let request = attempt.job.request
        easy.set(CURLOPT_USERAGENT, request.userAgent ?? config.userAgent)
        if let referer = request.referer { easy.set(CURLOPT_REFERER, referer) }
        // A task's proxy replaces whatever curl would read from http_proxy and the like.
        if let proxy = request.proxy { easy.set(CURLOPT_PROXY, proxy) }
        if attempt.url == request.url, let (user, password) = request.userinfo.map(Self.login) {
            easy.set(CURLOPT_USERNAME, user)
            easy.set(CURLOPT_PASSWORD, password)
        }
        easy.set(CURLOPT_CONNECTTIMEOUT_MS, Int(config.connectTimeout * 1000))
        easy.set(CURLOPT_LOW_SPEED_LIMIT, 1)
        easy.set(CURLOPT_LOW_SPEED_TIME, max(Int(config.lowSpeedTime.rounded(.up)), 1))
        easy.set(CURLOPT_SSL_VERIFYPEER, config.verifyTLS ? 1 : 0)
        easy.set(CURLOPT_SSL_VERIFYHOST, config.verifyTLS ? 2 : 0)
        easy.set(CURLOPT_HTTP_CONTENT_DECODING, 0)
        easy.set(CURLOPT_NOSIGNAL, 1)
        easy.set(CURLOPT_BUFFERSIZE, Self.receiveBuffer)
        easy.setHeaders(attempt.requestHeaders + request.headers)
        let context = Unmanaged.passUnretained(attempt).toOpaque()
        easy.set(CURLOPT_HEADERFUNCTION, callback: Self.headerCallback)
        easy.set(CURLOPT_HEADERDATA, pointer: context)
        easy.set(CURLOPT_WRITEFUNCTION, callback: Self.bodyCallback)
        easy.set(CURLOPT_WRITEDATA, pointer: context)
    }

    /// `user:password` as a URL holds it, split at the first colon and percent-decoded, as curl reads a login in
    /// a URL.
    static func login(_ userinfo: String) -> (user: String, password: String) {
        let colon = userinfo.firstIndex(of: ":")
        let user = String(userinfo[..<(colon ?? userinfo.endIndex)])
        let password = colon.map { String(userinfo[userinfo.index(after: $0)...]) } ?? ""
        return (percentDecoded(user), percentDecoded(password))
    }

    /// `%XX` escapes decoded as the file name's are (``FileNaming/percentDecoded(_:)``: an escape that does not
    /// decode stays as typed); the text as typed when the result is not UTF-8.
    static func percentDecoded(_ text: String) -> String {
        guard text.utf8.contains(UInt8(ascii: "%")) else { return text }
        return String(validating: FileNaming.percentDecoded(text[...]), as: UTF8.self) ?? text
    }

    private static let headerCallback: ccurl_data_callback = { data, size, count, context in
        let attempt = Unmanaged<Attempt>.fromOpaque(context!).takeUnretainedValue()
        let ok = attempt.receiveHeader(UnsafeRawBufferPointer(start: data, count: size * count))
        return ok ? size * count : 0
    }

    private static let bodyCallback: ccurl_data_callback = { data, size, count, context in
        let attempt = Unmanaged<Attempt>.fromOpaque(context!).takeUnretainedValue()
        if attempt.heldSince != nil { return 0x1000_0001 }  // held by the user: curl keeps the data
        switch attempt.receiveBody(UnsafeRawBufferPointer(start: data, count: size * count)) {
        case .accepted: return size * count
        case .pause: return 0x1000_0001  // CURL_WRITEFUNC_PAUSE: curl keeps the data until unpaused
        case .abort: return 0
        }
    }

    /// Removes the requests in flight (if any) from the multi handle; a segmented job's pieces leave flight, their
    /// gathered bytes written (best effort: ``cancel(id:)`` and the ends flush first).
    func detachAttempt(of job: Job) {
        for attempt in job.inFlight {
            idsByHandle[attempt.easy.handle] = nil
            multi.remove(attempt.easy)
            keepDebt(of: attempt)
        }
        job.attempt = nil
        if let segments = job.segments {
            for piece in segments.pieces {
                piece.attempt = nil
                try? segments.remove(piece)
            }
        }
        applySpeedLimit()
    }

    /// Whether any limit applies: the shared one, or a transfer's own.
    var isLimiting: Bool { speedLimit > 0 || jobs.values.contains { $0.maxSpeed != nil } }

    /// Gives each request in flight an allowance of bytes, refilled every ``refillInterval`` by
    /// ``refillAllowances()`` at the rate ``rates()`` shares out. A request out of allowance pauses itself in the
    /// body callback, so the socket is not read (TCP backpressure) until the loop unpauses it.
    func applySpeedLimit() {
        let rates = self.rates()
        for job in jobs.values {
            for attempt in job.inFlight {
                if rates[job.request.id] == nil {
                    attempt.allowance = nil
                } else if attempt.allowance == nil {
                    attempt.allowance = 0
                }
            }
        }
        refillAllowances()
    }

    /// Bytes per second each transfer in flight may receive, by id (absent: unlimited). The shared limit is split
    /// by connections; a transfer whose own limit is below its share keeps to its own, and what it leaves over
    /// goes to the others (filled from the most tightly limited up).
    func rates() -> [Int64: Double] {
        let active = jobs.values.filter { !$0.inFlight.isEmpty }
        var rates: [Int64: Double] = [:]
        guard speedLimit > 0 else {
            for job in active { if let own = job.maxSpeed { rates[job.request.id] = Double(own) } }
            return rates
        }
        func cap(_ job: Job) -> Double {
            (job.maxSpeed.map(Double.init) ?? .infinity) / Double(job.inFlight.count)
        }
        var remaining = Double(speedLimit)
        var weight = Double(active.reduce(0) { $0 + $1.inFlight.count })
        for job in active.sorted(by: { cap($0) < cap($1) }) {
            let connections = Double(job.inFlight.count)
            let rate = min(remaining * connections / weight, cap(job) * connections)
            rates[job.request.id] = rate
            remaining = max(remaining - rate, 0)
            weight -= connections
        }
        return rates
    }

    /// Adds the bytes earned since the last refill to every allowance (bounded to a short burst) and resumes the
    /// requests that can go on.
    func refillAllowances() {
        let now = Self.now()
        let elapsed = min(now - lastRefill, 1)
        lastRefill = now
        let rates = self.rates()
        if !limiterDebts.isEmpty { limiterDebts = limiterDebts.filter { jobs[$0.key] != nil } }
        for job in jobs.values where !job.inFlight.isEmpty {
            let connections = Double(job.inFlight.count)
            let share = rates[job.request.id].map { $0 / connections }
            let burst = share.map { max($0 * Self.refillInterval * 2, 16_384) }
            // What ended requests took beyond their allowance is paid first.
            var earned = (share ?? 0) * connections * elapsed
            if let debt = limiterDebts[job.request.id] {
                let paid = min(debt, earned)
                earned -= paid
                limiterDebts[job.request.id] = debt > paid ? debt - paid : nil
            }
            for attempt in job.inFlight {
                if let allowance = attempt.allowance, let burst {
                    attempt.allowance = min(allowance + earned / connections, burst)
                }
                if attempt.paused && attempt.heldSince == nil && (attempt.allowance ?? 1) > 0 {
                    attempt.paused = false
                    // CURLPAUSE_CONT; may deliver the held data at once.
                    curl_easy_pause(attempt.easy.handle, 0)
                }
            }
        }
    }

    /// Keeps what `attempt`, leaving, received beyond its allowance, for its transfer's next refills to pay back.
    func keepDebt(of attempt: Attempt) {
        if let allowance = attempt.allowance, allowance < 0 {
            let id = attempt.job.request.id
            // At most a second's worth: a limit lowered meanwhile does not stall the transfer for long.
            let bound = Double(max(speedLimit, attempt.job.maxSpeed ?? 0))
            limiterDebts[id] = min((limiterDebts[id] ?? 0) - allowance, bound)
        }
        attempt.allowance = nil
    }

    /// Ends `job` with a failure. An empty partial file is removed: it holds nothing to resume; so is one of a
    /// file refused as too large, which cannot be finished.
    func end(_ job: Job, failure reason: FailureReason) {
        try? job.flush()
        detachAttempt(of: job)
        if case .tooManyOpenFiles = reason, jobs[job.request.id] === job {
            fault(job, reason, retryAfter: nil)
            return
        }
        jobs[job.request.id] = nil
        rememberRangeFault(of: job)
        hashes.forget(job.follower)
        if case .tooLarge = reason {
            job.segments = nil
            job.file.removePieces()
            try? job.file.truncate(to: 0)
        }
        if job.file.size == 0 { job.file.remove() }
        mailbox.emit(
            .failed(id: job.request.id, reason: reason, retryable: reason.isRetryable, bytes: job.keptBytes))
    }

    private func startDueRetries() {
        let now = Self.now()
        if reopens.contains(where: { $0.due <= now }) {
            let due = reopens.filter { $0.due <= now }
            reopens.removeAll { $0.due <= now }
            for (request, _) in due { start(request, OpenedPartial(request)) }
        }
        // A held transfer opens no connection until it is released.
        for job in jobs.values.sorted(by: { $0.request.id < $1.request.id }) where job.heldSince == nil {
            if let due = job.retryAt, due <= now { beginAttempt(job) }
            if let segments = job.segments, let due = segments.refillAt, due <= now {
                segments.refillAt = nil
                refill(job, now: now)
            }
        }
    }

    private func publishActivityIfDue() {
        let now = Self.now()
        guard now >= nextTick else { return }
        nextTick = now + Self.tickInterval
        guard !jobs.isEmpty || publishedActivity else { return }
        publishedActivity = !jobs.isEmpty
        var snapshot: [TransferActivity] = []
        for job in jobs.values.sorted(by: { $0.request.id < $1.request.id }) {
            // Stalled since the last tick with bytes still gathered in memory: written now, as an outcome would.
            if job.size == job.sizeAtTick, job.keptBytes < job.size { try? job.flush() }
            job.sizeAtTick = job.size
            job.meter.record(bytes: job.size, at: now)
            let eta = job.expected.flatMap { job.meter.eta(remaining: $0 - job.size) }
            var activity = TransferActivity(
                id: job.request.id, bytes: job.size, expected: job.expected, speed: job.meter.speed, eta: eta)
            activity.kept = min(job.keptBytes, activity.bytes)
            activity.connections = job.inFlight.count
            activity.held = job.heldSince != nil
            activity.retry = job.retryAt == nil ? nil : job.retryWait
            snapshot.append(activity)
        }
        mailbox.publish(snapshot)
    }

    private func waitMilliseconds() -> Int32 {
        guard !jobs.isEmpty || !reopens.isEmpty else { return 1000 }
        let now = Self.now()
        var until = nextTick
        for reopen in reopens { until = min(until, reopen.due) }
        for job in jobs.values {
            if let due = job.retryAt { until = min(until, due) }
            if let due = job.segments?.refillAt { until = min(until, due) }
            if let due = job.splitCheckAt { until = min(until, max(due, now + 0.001)) }
            // A ramp's window may end early (every few ms once it is long enough to tell), and ends at its end.
            if let ramp = job.segments?.ramp {
                let early = max(ramp.stepAt + Ramp.earlyWindow, now + 0.005)
                until = min(until, max(min(early, ramp.windowEnd(rampWindow)), now + 0.001))
            }
            if job.inFlight.contains(where: \.paused) { until = min(until, lastRefill + Self.refillInterval) }
            if let held = job.heldSince { until = min(until, held + holdLimit) }
        }
        return Int32(max(((until - now) * 1000).rounded(.up), 1))
    }

    /// Monotonic seconds.
    static func now() -> Double {
        var time = timespec()
        clock_gettime(CLOCK_MONOTONIC, &time)
        return Double(time.tv_sec) + Double(time.tv_nsec) / 1e9
    }
}
