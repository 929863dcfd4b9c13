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
    /// Why the server's ranges are not trusted for the rest of this transfer (it ignored a Range, or answered one
    /// with another range or another size): the transfer is not split again, and every attempt asks the whole file
    /// from zero, without Range (``distrustRanges(_:)``).
    private(set) var rangeFault: String?
    /// Connections the transfer may use (the loop sets it at the start): whether the log says it stays on one.
    var connections = 1
    /// The URL a sequential attempt asks: the request's, or the source left once the others were dropped.
    var url: String
    /// The `If-Range` value for the next attempt.
    var validator: String?
    var serverName: String?
    var effectiveURL: String?
    /// Size of the whole file, once a response announced it.
    var expected: Int64?
    /// The largest the file may become, when set (``TransferConfig/maxSize``); the loop sets it at the start.
    var maxSize: Int64?
    /// Where a body without a length stops when no ``maxSize`` is set (``TransferConfig/unannouncedMaxSize``).
    var unannouncedMaxSize: Int64 = 16 << 30
    /// The partial file as the hash worker follows it.
    let follower: HashFollower
    let hashes: HashWorker
    /// The file's size as last published to the hash worker. Equal to the file's size whenever `stage` is set.
    private var published: Int64
    /// The chunk the body bytes are gathered in before they are written (a few writes per chunk instead of one per
    /// curl callback of 16 KiB) and then handed to the hash worker; nil when the worker's pool was empty (the bytes
    /// then go straight to the file, and the worker reads them back). Holds the bytes from the file's end on.
    private var stage: HashBuffer?
    /// Bytes in `stage`, not yet in the file.
    private var staged = 0
    /// The request in flight, if any (a sequential transfer's; a segmented one's are its pieces').
    var attempt: Attempt?
    /// The pieces and their connections, once the transfer is segmented (``TransferLoop/considerSplit(_:now:)``).
    var segments: Segments?
    /// Whether the log was told that one connection is fast enough not to split
    /// (``TransferEvent/connections(id:count:detail:)``), which it is told once.
    var planTold = false
    /// When the sequential attempt's speed is next looked at for a split (monotonic seconds).
    var splitCheckAt: Double?
    /// Bytes received when the split check was armed, and when (monotonic seconds): the speed is measured from there.
    var splitCheckBytes: Int64 = 0
    var splitCheckFrom: Double = 0
    /// When the next attempt is due (monotonic seconds), while waiting out a backoff.
    var retryAt: Double?
    /// The wait before the next attempt as the activity shows it, set with ``retryAt``.
    var retryWait: RetryWait?
    /// Since when a pause holds the transfer's connections (monotonic seconds), while it does.
    var heldSince: Double?
    var meter = SpeedMeter()
    /// The bytes received at the last activity tick: a transfer that received nothing since then has stalled, and
    /// what it gathered goes to the file (``TransferLoop`` flushes it), so the partial file holds what the views say.
    var sizeAtTick: Int64 = -1
    /// The transfer's own speed limit (bytes/s over all its connections), changed while it runs
    /// (``TransferEngine/setSpeedLimit(_:id:)``); starts as the request's.
    var maxSpeed: Int64?

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
        self.url = request.url
        self.hashes = hashes
        self.follower = hashes.follow(fd: fd, size: file.size)
        self.published = file.size
        self.maxSpeed = request.maxSpeed
    }

    deinit {
        if let stage { hashes.giveBack(stage) }
    }

    /// Bytes received: those in the file and those gathered for its next write.
    var size: Int64 { segments?.receivedBytes ?? file.size + Int64(staged) }

    /// Bytes kept in the partial file (a segmented file's length counts its holes too).
    var keptBytes: Int64 { segments?.map.doneBytes ?? file.size }

    /// Every request in flight.
    var inFlight: [Attempt] {
        segments.map { $0.pieces.compactMap(\.attempt) } ?? (attempt.map { [$0] } ?? [])
    }

    /// Takes body bytes: gathers them in a chunk of ``HashWorker/chunkSize`` that, once full, is written to the
    /// partial file (``PartialFile/maxWrite`` per write) and handed to the hash worker. Without a chunk (the worker's pool is empty), the
    /// bytes are written at once and the worker is told the new size every ``HashWorker/publishStep`` bytes.
    /// ``flush()`` writes what is gathered.
    func append(_ bytes: UnsafeRawBufferPointer) throws(TransferError) {
        if stage == nil && published == file.size { stage = hashes.takeBuffer() }
        var rest = bytes
        while let buffer = stage, !rest.isEmpty, let source = rest.baseAddress {
            let count = min(buffer.bytes.count - staged, rest.count)
            (buffer.bytes.baseAddress! + staged).copyMemory(from: source, byteCount: count)
            staged += count
            rest = UnsafeRawBufferPointer(rebasing: rest[count...])
            if staged == buffer.bytes.count {
                try writeStage()
                stage = hashes.takeBuffer()
            }
        }
        guard !rest.isEmpty else { return }
        try file.append(rest)
        if file.size - published >= HashWorker.publishStep {
            published = file.size
            hashes.publish(follower, size: published)
        }
    }

    /// Writes the gathered bytes to the file and hands them to the worker; the chunk goes with them.
    private func writeStage() throws(TransferError) {
        guard let buffer = stage else { return }
        stage = nil
        let count = staged
        staged = 0
        guard count > 0 else {
            hashes.giveBack(buffer)
            return
        }
        do {
            try file.append(UnsafeRawBufferPointer(rebasing: buffer.bytes[..<count]))
        } catch {
            // Part of the chunk may be in the file: the worker will read whatever is there (see flush()).
            hashes.giveBack(buffer)
            throw error
        }
        let chunk = HashChunk(offset: published, buffer: buffer, count: count)
        published = file.size
        hashes.publish(follower, size: published, chunk: chunk)
    }

    /// Writes what is gathered to the file and tells the worker the file's size: then the file holds every byte
    /// received. When the write fails, the file keeps what made it, and the worker hashes just that.
    func flush() throws(TransferError) {
        if let segments {
            try segments.flushAll()
            return
        }
        defer {
            if published != file.size {
                published = file.size
                hashes.publish(follower, size: published)
            }
        }
        try writeStage()
    }

    /// Stops trusting the server's ranges for the rest of this transfer (see ``rangeFault``); returns the reason
    /// as the log tells it, once, with the restart from zero.
    func distrustRanges(_ why: String) -> String {
        rangeFault = why
        splitCheckAt = .infinity
        return connections > 1 ? why + "; one connection from now on" : why
    }

    /// Empties the partial file; the next bytes start the file (and its hash) anew.
    func discardPartial() throws(TransferError) {
        hashes.rewrite(follower, size: 0)
        published = 0
        staged = 0
        segments = nil
        try file.truncate(to: 0)
        file.removePieces()
        try file.setAppending(true)
    }

    /// Cuts the file to its first `length` bytes (all a piece map vouches for); the hash starts over.
    func cut(to length: Int64) throws(TransferError) {
        hashes.rewrite(follower, size: length)
        published = length
        staged = 0
        try file.truncate(to: length)
    }

    /// Writes what is gathered and hands the file over to segments: from now on bytes are written at offsets
    /// (the file's `O_APPEND` is turned off) and the hash follows the piece map's prefix.
    func beginSegments(_ make: (Int64) -> Segments) throws(TransferError) {
        try flush()
        let segments = make(file.size)
        try file.writePieces(segments.map)
        try file.setAppending(false)
        self.segments = segments
    }
}
