import CCurl

/// One HTTP request of a ``Job``: receives curl's header and body callbacks and decides what the response means.
/// Confined to the loop thread.
final class Attempt {
    /// Why the attempt was ended by the engine rather than by curl.
    enum Outcome: Equatable {
        case fail(FailureReason, retryAfter: Double?)
        /// 416 on a partial file as big as the remote file: nothing left to fetch.
        case alreadyComplete
        /// The partial file cannot be continued; empty it and ask again without Range.
        case restartFromZero(String)
    }

    unowned let job: Job
    let easy: CurlEasy
    let number: Int
    /// Bytes in the partial file when the request was sent (the Range start, 0 for none).
    let offset: Int64
    /// The `If-Range` value sent, if any.
    let sentValidator: String?
    private(set) var status = 0
    var headers: [String: String] = [:]
    var decided = false
    var outcome: Outcome?
    /// Size the partial file must not exceed: the end of the announced body.
    var limit: Int64?
    /// Size of the whole remote file, when announced.
    var total: Int64?
    let emit: (TransferEvent) -> Void
    /// Bytes this request may still receive under the speed limit (nil: unlimited); refilled by the loop.
    var allowance: Double?
    /// Whether the body callback paused the transfer for lack of allowance.
    var paused = false

    /// What the body callback tells curl.
    enum Delivery {
        case accepted
        case pause
        case abort
    }

    init(job: Job, easy: CurlEasy, number: Int, emit: @escaping (TransferEvent) -> Void) {
        self.job = job
        self.easy = easy
        self.number = number
        self.offset = job.file.size
        self.sentValidator = offset > 0 ? job.validator : nil
        self.emit = emit
    }

    /// The extra request headers: `Range` and `If-Range` when resuming.
    var requestHeaders: [String] {
        guard offset > 0 else { return [] }
        var lines = ["Range: bytes=\(offset)-"]
        if let sentValidator { lines.append("If-Range: \(sentValidator)") }
        return lines
    }

    /// One header line (status line, field, or the empty line ending a block). Returns false to abort.
    func receiveHeader(_ raw: UnsafeRawBufferPointer) -> Bool {
        var bytes = raw[...]
        while let last = bytes.last, last == UInt8(ascii: "\r") || last == UInt8(ascii: "\n") {
            bytes = bytes.dropLast()
        }
        // Decoded only after the CR LF is gone: Swift reads "\r\n" as one Character.
        let line = Substring(String(decoding: bytes, as: UTF8.self))
        if line.hasPrefix("HTTP/") {
            let fields = line.split(separator: " ", maxSplits: 2)
            status = fields.count > 1 ? Int(fields[1]) ?? 0 : 0
            headers = [:]
            return true
        }
        guard !decided else { return true }
        if line.isEmpty {
            if status < 200 || isFollowedRedirect { return true }
            decide()
            return outcome == nil
        }
        if let colon = line.firstIndex(of: ":") {
            let name = line[..<colon].lowercased()
            headers[name] = line[line.index(after: colon)...].trimmingCharacters(in: " \t")
        }
        return true
    }

    /// Body bytes of the final response: written, refused for now (curl keeps them until unpaused), or abort.
    func receiveBody(_ bytes: UnsafeRawBufferPointer) -> Delivery {
        decideIfNeeded()
        guard outcome == nil else { return .abort }
        if let allowance {
            guard allowance > 0 else {
                paused = true
                return .pause
            }
            self.allowance = allowance - Double(bytes.count)
        }
        var accepted = bytes
        if let limit, job.file.size + Int64(bytes.count) > limit {
            let room = Int(max(limit - job.file.size, 0))
            accepted = UnsafeRawBufferPointer(rebasing: bytes[..<room])
            outcome = .fail(
                .sizeMismatch(expected: limit, actual: job.file.size + Int64(bytes.count)), retryAfter: nil)
        }
        do {
            try job.append(accepted)
        } catch {
            outcome = .fail(error.reason, retryAfter: nil)
        }
        return outcome == nil ? .accepted : .abort
    }

    /// Decides from curl's response code when no header block ended the response (e.g. HTTP/0.9-like input).
    func decideIfNeeded() {
        guard !decided else { return }
        status = easy.responseCode
        decide()
    }

    private var isFollowedRedirect: Bool {
        [301, 302, 303, 307, 308].contains(status) && headers["location"] != nil
    }
}

extension Substring {
    fileprivate func trimmingCharacters(in set: String) -> String {
        var s = self
        while let c = s.first, set.contains(c) { s.removeFirst() }
        while let c = s.last, set.contains(c) { s.removeLast() }
        return String(s)
    }
}
