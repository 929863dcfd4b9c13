import CCurl
import Glibc

/// Segmented transfers: when to split, starting and ending the connections of the pieces, and stealing.
///
/// A transfer starts on one connection. Once its server has shown that it takes ranges and the size is known, and
/// the connection, measured for ``TransferConfig/splitProbe``, is slower than ``TransferConfig/splitBelowSpeed``,
/// the rest is split into even pieces over up to ``TransferConfig/connectionsPerTask`` connections (the running
/// request keeps the first). A connection whose piece is done takes the next work (``Segments/nextRange(now:freed:)``).
extension TransferLoop {
    /// Seconds between two looks at a sequential transfer's speed after its first (``TransferConfig/splitProbe``).
    static let relook = 0.2

    /// Connections `job` may use.
    func connections(for job: Job) -> Int {
        max(job.request.connections ?? config.connectionsPerTask, 1)
    }

    /// Whether `job` was given a number of connections (the request's own, or ``TransferConfig/splitAtOnce``): it
    /// is split at once into that many; else its connections ramp up (``Ramp``) once it proves slow.
    func asksConnections(_ job: Job) -> Bool {
        config.splitAtOnce || job.request.connections != nil
    }

    /// Whether `job`'s connections ramp up once it is split (no count asked, ``TransferConfig/rampConnections``).
    func ramps(_ job: Job) -> Bool {
        config.rampConnections && !asksConnections(job)
    }

    /// The most connections `job`'s ramp may reach: the task's cap, and no more than its URLs take together
    /// (``TransferConfig/connectionsPerServer`` each).
    func rampCap(for job: Job) -> Int {
        let sources = 1 + job.request.mirrors.count
        return min(connections(for: job), connectionsPerServer(for: job) * sources)
    }

    /// Connections `job` may open to one of its URLs: the request's own, else the config's.
    func connectionsPerServer(for job: Job) -> Int {
        max(job.request.connectionsPerServer ?? config.connectionsPerServer, 1)
    }

    /// The smallest piece of `job`: the request's own, else the config's.
    func minPieceSize(for job: Job) -> Int64 {
        max(job.request.minPieceSize ?? config.minPieceSize, 1)
    }

    /// Splits the sequential transfers that qualify; tells once why one cannot be split.
    func considerSplits(now: Double) {
        for job in jobs.values where job.heldSince == nil {
            guard let segments = job.segments else {
                considerSplit(job, now: now)
                continue
            }
            // More connections when the round is confirmed; a stalled connection replaced when one is free.
            if segments.needsRefill || (segments.active < segments.wanted && now >= segments.nextLook) {
                segments.needsRefill = false
                segments.nextLook = now + config.splitProbe
                refill(job, now: now)
                announceRound(job, segments)
            }
            if segments.ramp != nil, jobs[job.request.id] === job { rampUp(job, segments, now: now) }
        }
    }

    private func considerSplit(_ job: Job, now: Double) {
        guard let attempt = job.attempt, attempt.decided, attempt.outcome == nil,
            let started = attempt.firstBodyAt,
            connections(for: job) > 1, job.splitCheckAt != .infinity
        else { return }
        // Asked for connections: split at once; else only a slow connection is split, once measured.
        let atOnce = asksConnections(job)
        let probe = atOnce ? 0 : config.splitProbe
        guard let check = job.splitCheckAt else {
            job.splitCheckAt = started + probe
            job.splitCheckBytes = attempt.offset
            job.splitCheckFrom = started
            return
        }
        guard now >= check else { return }
        let why: String? =
            !attempt.acceptsRanges
            ? "server does not accept ranges"
            : job.expected == nil || attempt.limit != job.expected ? "size unknown" : nil
        if let why {
            job.splitCheckAt = .infinity
            mailbox.emit(.connections(id: job.request.id, count: 1, detail: "one connection: \(why)"))
            return
        }
        let speed = Double(job.size - job.splitCheckBytes) / max(now - job.splitCheckFrom, 0.001)
        // The first look comes soon (a slow connection costs every moment it is alone); the next ones are spaced
        // out, so a fast transfer is not split for a pause of a few milliseconds.
        job.splitCheckAt = now + max(config.splitProbe, Self.relook)
        job.splitCheckBytes = job.size
        job.splitCheckFrom = now
        guard let total = job.expected, total - job.size >= 2 * minPieceSize(for: job) else { return }
        guard atOnce || speed < config.splitBelowSpeed else {
            // One connection already gives what more would: said once, and looked at again while it runs.
            if !job.planTold {
                job.planTold = true
                let rate = TransferActivity.formatBytes(Int64(speed))
                mailbox.emit(
                    .connections(
                        id: job.request.id, count: 1, detail: "one connection: it alone gives \(rate)/s"))
            }
            return
        }
        split(job, attempt: attempt, total: total, speed: speed, now: now)
    }

    private func split(_ job: Job, attempt: Attempt, total: Int64, speed: Double, now: Double) {
        // Without a count asked, the connections ramp up from the one measured (``Ramp``).
        let ramp =
            ramps(job) ? Ramp(cap: rampCap(for: job), count: 1, rate: speed, now: now, bytes: job.size) : nil
        do {
            try job.beginSegments { prefix in
                Segments(
                    file: job.file, follower: job.follower, hashes: hashes,
                    map: PieceMap(size: total, prefix: prefix),
                    sources: [job.request.url] + job.request.mirrors,
                    wanted: ramp.map { $0.next(after: 1) } ?? connections(for: job),
                    perSource: connectionsPerServer(for: job), minPiece: minPieceSize(for: job))
            }
        } catch {
            job.splitCheckAt = .infinity
            let detail = "one connection: cannot record piece progress (\(error.reason))"
            mailbox.emit(.connections(id: job.request.id, count: 1, detail: detail))
            return
        }
        guard let segments = job.segments else { return }
        segments.ramp = ramp
        // Every byte received so far is in the file now.
        let before = job.file.size
        segments.confirmed = true
        segments.sources[0].bytes = max(before - attempt.offset, 0)
        job.file.reserve(upTo: total)
        // The running request keeps the first even share; the others start now.
        let pieces = min(Int64(segments.wanted), (total - before) / minPieceSize(for: job))
        let share = max(min((total - before) / max(pieces, 1), segments.pieceLength), minPieceSize(for: job))
        let first = Piece(start: before, end: min(before + share, total), startedAt: now, source: 0)
        segments.add(first)
        attempt.piece = first
        first.attempt = attempt
        job.attempt = nil
        refill(job, now: now)
        let rate = TransferActivity.formatBytes(Int64(speed))
        mailbox.emit(
            .connections(
                id: job.request.id, count: segments.active,
                detail: "split into \(segments.active) connections (one gave \(rate)/s)"))
    }

    /// Starts connections for `job` while it wants more and there is work: one until a response of this round
    /// matched the map, then up to the wanted count. `freed`: the speed of a connection that just finished its
    /// piece, which may then take over a much slower one's rest.
    func refill(_ job: Job, now: Double, freed: Double? = nil) {
        // A held transfer opens no connection: its release asks for the refill.
        guard let segments = job.segments, job.heldSince == nil else { return }
        var freed = freed
        while segments.active < (segments.confirmed ? segments.wanted : 1),
            let next = segments.nextRange(now: now, freed: freed)
        {
            if let from = next.from {
                if next.retire, let slow = from.attempt {
                    let speed = from.speed(at: now)
                    detach(slow, of: job)
                    do {
                        try segments.remove(from)
                    } catch {
                        end(job, failure: error.reason)
                        return
                    }
                    // A mirror much slower than the connection that takes its piece over goes for this transfer.
                    if let freed, segments.sources.filter({ $0.dropped == nil }).count > 1 {
                        let rates =
                            "\(TransferActivity.formatBytes(Int64(speed)))/s against "
                            + "\(TransferActivity.formatBytes(Int64(freed)))/s"
                        // Dropping refills the connections itself.
                        drop(source: from.source, of: job, why: "much slower (\(rates))")
                        return
                    }
                } else {
                    segments.cut(from, at: next.range.lowerBound)
                }
            }
            guard let source = segments.freeSource() else { return }
            freed = nil
            let piece = Piece(
                start: next.range.lowerBound, end: next.range.upperBound, startedAt: now, source: source)
            guard startPiece(piece, of: job) else { return }
        }
    }

    /// Sends the request for `piece`; false when it cannot be sent (the job then failed).
    private func startPiece(_ piece: Piece, of job: Job) -> Bool {
        guard let segments = job.segments else { return false }
        let easy: CurlEasy
        do {
            easy = try CurlEasy()
        } catch {
            end(job, failure: error.reason)
            return false
        }
        let url = segments.sources[piece.source].url
        let attempt = Attempt(
            job: job, easy: easy, number: job.attempts, emit: mailbox.emit, piece: piece, url: url)
        configure(easy, for: attempt)
        segments.add(piece)
        guard multi.add(easy) else {
            end(job, failure: .connection("curl_multi_add_handle failed"))
            return false
        }
        idsByHandle[easy.handle] = job.request.id
        applySpeedLimit()
        return true
    }

    /// Takes one request of `job` off the multi handle.
    func detach(_ attempt: Attempt, of job: Job) {
        idsByHandle[attempt.easy.handle] = nil
        multi.remove(attempt.easy)
        keepDebt(of: attempt)
        attempt.piece?.attempt = nil
        applySpeedLimit()
    }

    /// A new round of connections for a segmented `job` (its first at a start, or after every connection
    /// failed): one connection first; the others once its response matched the map.
    func beginSegmentRound(_ job: Job) {
        guard let segments = job.segments else { return }
        job.retryAt = nil
        job.attempts += 1
        segments.confirmed = false
        segments.announceRound = true
        // A ramp measures the new round afresh, from when its connections answer.
        segments.ramp?.stepAt = Self.now()
        segments.ramp?.stepBytes = segments.receivedBytes
        segments.ramp?.windowStart = nil
        mailbox.emit(.started(id: job.request.id, attempt: job.attempts, offset: job.keptBytes))
        refill(job, now: Self.now())
        if jobs[job.request.id] != nil && segments.active == 0 {
            end(job, failure: .connection("no source left to fetch the missing pieces from"))
        }
    }

    /// Once the first response of a new round (a resume in pieces, or a retry after every connection failed) matched
    /// the map and the others started: one fact, so the log (and `ls` in another process) knows the count.
    private func announceRound(_ job: Job, _ segments: Segments) {
        guard segments.announceRound, segments.confirmed, jobs[job.request.id] === job else { return }
        segments.announceRound = false
        let holes = segments.map.missing.count
        let count = segments.active
        let detail =
            "resumed in pieces over \(count) connection\(count == 1 ? "" : "s")"
            + " (\(holes) missing range\(holes == 1 ? "" : "s"))"
        mailbox.emit(.connections(id: job.request.id, count: count, detail: detail))
    }

    /// At a start: a partial file with a piece map resumes in pieces; one whose map shows no hole after the
    /// written run from byte 0 is a sequential file again; one whose map cannot be trusted starts from zero.
    func resumeSegments(_ job: Job) throws(TransferError) {
        guard let result = job.file.readPieces() else { return }
        let map: PieceMap
        switch result {
        case .failure(let error):
            job.pendingRestartReason = "piece map not usable (\(error.reason))"
            try job.discardPartial()
            return
        case .success(let read): map = read
        }
        guard job.file.size <= map.size else {
            job.pendingRestartReason =
                "partial file longer than its piece map says (\(job.file.size) > \(map.size))"
            try job.discardPartial()
            return
        }
        if map.doneBytes == map.prefix {
            try job.cut(to: map.prefix)
            job.file.removePieces()
            return
        }
        // Without a count asked, a resume ramps up too: its first window measures the first step's connections.
        let ramp =
            ramps(job)
            ? Ramp(cap: rampCap(for: job), count: 1, rate: nil, now: Self.now(), bytes: job.keptBytes) : nil
        let segments = Segments(
            file: job.file, follower: job.follower, hashes: hashes, map: map,
            sources: [job.request.url] + job.request.mirrors,
            wanted: ramp.map { $0.next(after: 1) } ?? connections(for: job),
            perSource: connectionsPerServer(for: job), minPiece: minPieceSize(for: job))
        segments.ramp = ramp
        try job.file.setAppending(false)
        hashes.rewrite(job.follower, size: map.prefix)
        job.segments = segments
    }
}
