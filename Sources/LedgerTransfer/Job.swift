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
    /// SHA-256 of the partial file so far; nil when the file holds bytes it has not seen.
    private(set) var hasher: SHA256Hasher?
    private var hashedBytes: Int64 = 0
    /// The request in flight, if any.
    var attempt: Attempt?
    /// When the next attempt is due (monotonic seconds), while waiting out a backoff.
    var retryAt: Double?
    var meter = SpeedMeter()

    init(request: TransferRequest) throws(TransferError) {
        self.request = request
        self.file = try PartialFile(request: request)
        self.validator = request.validator
        try resetHasherIfEmpty()
    }

    /// Appends body bytes to the partial file, hashing them when the hash covers the file so far.
    func append(_ bytes: UnsafeRawBufferPointer) throws(TransferError) {
        try file.append(bytes)
        if let hasher, hashedBytes + Int64(bytes.count) == file.size {
            hasher.update(bytes)
            hashedBytes = file.size
        } else {
            hasher = nil
        }
    }

    /// Empties the partial file; the next bytes start the file anew.
    func discardPartial() throws(TransferError) {
        try file.truncate(to: 0)
        try resetHasherIfEmpty()
    }

    /// Cuts the partial file to `length` (dropping the running hash unless it becomes empty).
    func truncate(to length: Int64) throws(TransferError) {
        try file.truncate(to: length)
        hasher = nil
        try resetHasherIfEmpty()
    }

    /// The SHA-256 of the whole partial file: the running hash when it covers the file, else a re-read.
    func sha256() throws(TransferError) -> String {
        if let hasher, hashedBytes == file.size {
            self.hasher = nil
            return hasher.finish()
        }
        return try PartialFile.sha256(path: file.path)
    }

    private func resetHasherIfEmpty() throws(TransferError) {
        guard file.size == 0 else { return }
        hasher = try SHA256Hasher()
        hashedBytes = 0
    }
}
