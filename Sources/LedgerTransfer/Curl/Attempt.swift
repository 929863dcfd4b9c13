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
        /// The source (a mirror) serves another file than the others: drop it for this transfer.
        case dropSource(String)
        /// The source's answer to a Range cannot be used: it ignored it, or sent another range or another size.
        /// The source is dropped while another one is left; else the transfer goes on one connection, from zero
        /// and without Range (``TransferLoop/fallBack(_:_:source:)``).
        case rangeFault(String)
    }

    unowned let job: Job
    let easy: CurlEasy
    let number: Int
    /// Bytes received before the request was sent (the Range start, 0 for none).
    let offset: Int64
    /// The `If-Range` value sent, if any.
    let sentValidator: String?
    private(set) var status = 0
    var headers: [String: String] = [:]
    /// Bytes of the current response's head so far (``maxHeaderBytes`` at most).
    private var headerBytes = 0
    static let maxHeaderBytes = 256 * 1024
    var decided = false
    var outcome: Outcome?
    /// Size the partial file must not exceed: the end of the announced body.
    var limit: Int64?
    /// Size of the whole remote file, when announced.
    var total: Int64?
    /// For a body without a length: the size it may not pass, and whether that is the file's known size (passing
    /// it is a size mismatch) or the maximum size (too large).
    var bodyCap: (bytes: Int64, known: Bool)?
    let emit: (TransferEvent) -> Void
    /// Bytes this request may still receive under the speed limit (nil: unlimited); refilled by the loop.
    var allowance: Double?
    /// Whether the body callback paused the transfer for lack of allowance.
    var paused = false
    /// When the user's pause started holding the connection (monotonic seconds), while it does.
    var heldSince: Double?
    /// The piece this request fetches, in a segmented transfer (``Attempt+Piece``); set on a sequential request too
    /// when its transfer is split while it runs.
    var piece: Piece?
    /// The URL asked.
    let url: String
    /// When the first body byte arrived (monotonic seconds).
    var firstBodyAt: Double?

    /// What the body callback tells curl.
    enum Delivery {
        case accepted
        case pause
        case abort
    }

    /// A request for the rest of `job`'s file, or for `piece` of it from `url`.
    init(
        job: Job, easy: CurlEasy, number: Int, emit: @escaping (TransferEvent) -> Void, piece: Piece? = nil,
        url: String? = nil
    ) {
        self.job = job
        self.easy = easy
        self.number = number
        self.piece = piece
        self.url = url ?? job.url
        self.offset = piece?.position ?? job.size
        self.sentValidator = offset > 0 || piece != nil ? job.validator : nil
        self.emit = emit
        piece?.attempt = self
    }

    /// The extra request headers: `Range` and `If-Range` when resuming or fetching a piece.
    var requestHeaders: [String] {
        if let piece { return pieceHeaders(piece) }
        guard offset > 0 else { return [] }
        var lines = ["Range: bytes=\(offset)-"]
        if let sentValidator { lines.append("If-Range: \(sentValidator)") }
        return lines
    }

    /// One header line (status line, field, or the empty line ending a block). Returns false to abort.
    ///
    /// Parsed on the bytes (names lowercased as ASCII, values trimmed of spaces and tabs): curl calls this for
    /// every line of every response, on the loop thread.
    func receiveHeader(_ raw: UnsafeRawBufferPointer) -> Bool {
        var end = raw.count
        while end > 0 && (raw[end - 1] == Self.cr || raw[end - 1] == Self.lf) { end -= 1 }
        let line = UnsafeRawBufferPointer(rebasing: raw[..<end])
        headerBytes += raw.count
        if line.starts(with: "HTTP/".utf8) {
            status = Self.statusCode(ofStatusLine: line)
            headers = [:]
            headerBytes = raw.count
            return true
        }
        // A server may not keep a request in its head: curl bounds one line (100 KB), this bounds them all.
        guard headerBytes <= Self.maxHeaderBytes else {
            decided = true
            outcome = .fail(
                .protocolViolation("response head over \(Self.maxHeaderBytes / 1024) KiB"), retryAfter: nil)
            return false
        }
        guard !decided else { return true }
        if line.isEmpty {
            if status < 200 || isFollowedRedirect { return true }
            decide()
            return outcome == nil
        }
        if let colon = line.firstIndex(of: UInt8(ascii: ":")) {
            var name = Array(line[..<colon])
            for i in name.indices where name[i] >= UInt8(ascii: "A") && name[i] <= UInt8(ascii: "Z") {
                name[i] += 32
            }
            var from = colon + 1
            var to = line.count
            while from < to && (line[from] == Self.space || line[from] == Self.tab) { from += 1 }
            while to > from && (line[to - 1] == Self.space || line[to - 1] == Self.tab) { to -= 1 }
            headers[String(decoding: name, as: UTF8.self)] = String(decoding: line[from..<to], as: UTF8.self)
        }
        return true
    }

    private static let cr = UInt8(ascii: "\r")
    private static let lf = UInt8(ascii: "\n")
    private static let space = UInt8(ascii: " ")
    private static let tab = UInt8(ascii: "\t")

    /// The code in `HTTP/1.1 200 OK` (the second space-separated field), 0 when there is none.
    static func statusCode(ofStatusLine line: UnsafeRawBufferPointer) -> Int {
        guard let space = line.firstIndex(of: Self.space) else { return 0 }
        var from = space + 1
        while from < line.count && line[from] == Self.space { from += 1 }
        var to = from
        while to < line.count && line[to] != Self.space { to += 1 }
        return Int(String(decoding: line[from..<to], as: UTF8.self)) ?? 0
    }

    /// Body bytes of the final response: written, refused for now (curl keeps them until unpaused), or abort.
    func receiveBody(_ bytes: UnsafeRawBufferPointer) -> Delivery {
        decideIfNeeded()
        guard outcome == nil else { return .abort }
        if firstBodyAt == nil { firstBodyAt = TransferLoop.now() }
        if let allowance {
            guard allowance > 0 else {
                paused = true
                return .pause
            }
            self.allowance = allowance - Double(bytes.count)
        }
        if let piece { return receivePiece(bytes, piece) }
        var accepted = bytes
        let after = job.size + Int64(bytes.count)
        if let limit, after > limit {
            let room = Int(max(limit - job.size, 0))
            accepted = UnsafeRawBufferPointer(rebasing: bytes[..<room])
            outcome = .fail(.sizeMismatch(expected: limit, actual: after), retryAfter: nil)
        } else if let cap = bodyCap, after > cap.bytes {
            // Nothing past the cap reaches the disk.
            accepted = UnsafeRawBufferPointer(rebasing: bytes[..<Int(max(cap.bytes - job.size, 0))])
            let reason: FailureReason =
                cap.known
                ? .sizeMismatch(expected: cap.bytes, actual: after)
                : .tooLarge(limit: cap.bytes, announced: nil)
            outcome = .fail(reason, retryAfter: nil)
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
