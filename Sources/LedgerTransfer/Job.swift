/// Everything the loop knows about one started transfer, across its attempts. Confined to the loop thread.
final class Job {
    let request: TransferRequest
    let file: PartialFile
    /// Attempts begun so far (the next `.started` carries `attempts + 1`).
    var attempts = 0
    /// Retryable faults retried so far, bounded by ``TransferConfig/maxRetries``.
    var retries = 0
    /// Whether the one restart from zero (after a 416 or a misplaced Content-Range) was used.
    var restartedFromZero = false
    /// Why the partial was discarded before the next attempt; reported by its `.resolved`.
    var pendingRestartReason: String?
    /// The `If-Range` value for the next attempt.
    var validator: String?
    var serverName: String?
    var effectiveURL: String?
    /// Size of the whole file, once a response announced it.
    var expected: Int64?
    /// The partial file as the hash worker follows it.
    let follower: HashFollower
    let hashes: HashWorker
    /// The size last published to the hash worker.
    private var published: Int64
    /// The chunk being filled with copies of the bytes written, for the hash worker; nil when the worker's pool
    /// was empty (the worker then reads the bytes back from the file). Holds the bytes from `published` on.
    private var stage: HashBuffer?
    /// Bytes in `stage`.
    private var staged = 0
    /// The request in flight, if any.
    var attempt: Attempt?
    /// When the next attempt is due (monotonic seconds), while waiting out a backoff.
    var retryAt: Double?
    var meter = SpeedMeter()

    /// Opens the partial file itself (the engine opens it off the loop thread instead: ``OpenedPartial``).
    convenience init(request: TransferRequest, hashes: HashWorker) throws(TransferError) {
        let (file, fd) = try PartialFile.openWithReader(request)
        self.init(request: request, file: file, readFD: fd, hashes: hashes)
    }

    /// A job over `file` (opened by ``OpenedPartial``), whose hash follows it through `readFD`.
    init(request: TransferRequest, file: PartialFile, readFD fd: Int32, hashes: HashWorker) {
        self.request = request
        self.file = file
        self.validator = request.validator
        self.hashes = hashes
        self.follower = hashes.follow(fd: fd, size: file.size)
        self.published = file.size
        self.stage = hashes.takeBuffer()
    }

    deinit {
        if let stage { hashes.giveBack(stage) }
    }

    /// Appends body bytes to the partial file and copies them into the hash worker's chunk, handing each full
    /// chunk over (every ``HashWorker/publishStep`` bytes). Without a chunk, it only lets the worker know the
    /// new size every ``HashWorker/publishStep`` bytes. The rest is handed over by ``endStaging(publish:)``.
    func append(_ bytes: UnsafeRawBufferPointer) throws(TransferError) {
        do {
            try file.append(bytes)
        } catch {
            // Part of `bytes` may be in the file and not in the chunk: the worker reads the file from here on.
            endStaging(publish: true)
            throw error
        }
        var rest = bytes
        while let buffer = stage, !rest.isEmpty, let source = rest.baseAddress {
            let count = min(buffer.bytes.count - staged, rest.count)
            (buffer.bytes.baseAddress! + staged).copyMemory(from: source, byteCount: count)
            staged += count
            rest = UnsafeRawBufferPointer(rebasing: rest[count...])
            if staged == buffer.bytes.count {
                handOverStage()
                stage = hashes.takeBuffer()
            }
        }
        if stage == nil && file.size - published >= HashWorker.publishStep {
            // No chunk (the worker was behind): it reads these bytes back from the file; copying resumes here.
            published = file.size
            hashes.publish(follower, size: published)
            stage = hashes.takeBuffer()
        }
    }

    /// Hands the staged bytes (the file's bytes from `published` on) to the worker, keeping no buffer.
    private func handOverStage() {
        guard let buffer = stage else { return }
        stage = nil
        let chunk = HashChunk(offset: published, buffer: buffer, count: staged)
        published += Int64(staged)
        staged = 0
        if chunk.count > 0 {
            hashes.publish(follower, size: published, chunk: chunk)
        } else {
            hashes.giveBack(buffer)
        }
    }

    /// Stops copying: with `publish`, hands over what is staged and then the file's size (the worker reads
    /// what no chunk holds from the file); without, just gives the buffer back (the file is being dropped).
    func endStaging(publish: Bool) {
        if publish {
            handOverStage()
            if published != file.size {
                published = file.size
                hashes.publish(follower, size: published)
            }
        } else if let buffer = stage {
            stage = nil
            staged = 0
            hashes.giveBack(buffer)
        }
    }

    /// Empties the partial file; the next bytes start the file (and its hash) anew.
    func discardPartial() throws(TransferError) {
        hashes.rewrite(follower, size: 0)
        published = 0
        staged = 0
        if stage == nil { stage = hashes.takeBuffer() }
        try file.truncate(to: 0)
    }
}
