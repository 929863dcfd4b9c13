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
    /// The request in flight, if any.
    var attempt: Attempt?
    /// When the next attempt is due (monotonic seconds), while waiting out a backoff.
    var retryAt: Double?
    var meter = SpeedMeter()

    init(request: TransferRequest, hashes: HashWorker) throws(TransferError) {
        self.request = request
        let file = try PartialFile(request: request)
        guard let fd = file.readDescriptor() else { throw PartialFile.error("cannot reopen \(file.path)") }
        self.file = file
        self.validator = request.validator
        self.hashes = hashes
        self.follower = hashes.follow(fd: fd, size: file.size)
        self.published = file.size
    }

    /// Appends body bytes to the partial file, letting the hash worker know every
    /// ``HashWorker/publishStep`` bytes (the rest is published when the file is sealed).
    func append(_ bytes: UnsafeRawBufferPointer) throws(TransferError) {
        try file.append(bytes)
        if file.size - published >= HashWorker.publishStep {
            published = file.size
            hashes.publish(follower, size: published)
        }
    }

    /// Empties the partial file; the next bytes start the file (and its hash) anew.
    func discardPartial() throws(TransferError) {
        hashes.rewrite(follower, size: 0)
        published = 0
        try file.truncate(to: 0)
    }
}
