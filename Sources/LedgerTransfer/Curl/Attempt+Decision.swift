/// What a response status and its headers mean for the partial file.
extension Attempt {
    /// Called once, when the final response's headers are complete.
    func decide() {
        decided = true
        if let violation = protocolViolation {
            outcome = .fail(.protocolViolation(violation), retryAfter: nil)
            return
        }
        if piece != nil {
            decidePiece()
            return
        }
        switch status {
        case 206: decidePartialContent()
        case 200..<300: decideWholeContent()
        case 416: decideRangeNotSatisfiable()
        default: outcome = .fail(.http(status), retryAfter: retryAfter)
        }
    }

    /// What in the final response's head breaks HTTP, if anything: a status outside 100–599, or a 206 whose
    /// `Content-Range` cannot be read, ends past its total, or disagrees with its `Content-Length`. (curl itself
    /// refuses NUL bytes, oversized headers and unreadable lengths: ``TransferLoop/reason(for:attempt:)``.)
    var protocolViolation: String? {
        guard (100...599).contains(status) else { return "status \(status) is outside 100–599" }
        if let raw = headers["content-length"], !Self.isContentLength(raw) {
            return "Content-Length '\(Self.clip(raw))' is not a number"
        }
        guard status == 206 else { return nil }
        let raw = headers["content-range"] ?? ""
        guard let range = ContentRange(raw), let first = range.first, let last = range.last else {
            return raw.isEmpty
                ? "206 without a Content-Range" : "unreadable Content-Range '\(Self.clip(raw))'"
        }
        if let total = range.total, last >= total {
            return "Content-Range '\(Self.clip(raw))' ends past its total"
        }
        if let length = contentLength, length != last - first + 1 {
            return "Content-Length \(length) disagrees with Content-Range '\(Self.clip(raw))'"
        }
        return nil
    }

    /// Digits, or a list of one repeated number (`12, 12`, which RFC 9110 lets a proxy send); curl would read `12,
    /// 13` as 12 and cut the body there.
    static func isContentLength(_ raw: String) -> Bool {
        // On the bytes: the loop checks every response, and Character-wise trimming cost ~40 µs a header.
        let blank = { (byte: UInt8) in byte == 0x20 || byte == 0x09 }
        var first: ArraySlice<UInt8>?
        for part in Array(raw.utf8).split(separator: UInt8(ascii: ","), omittingEmptySubsequences: false) {
            guard let start = part.firstIndex(where: { !blank($0) }),
                let end = part.lastIndex(where: { !blank($0) }),
                part[start...end].allSatisfy({ (0x30...0x39).contains($0) })
            else { return false }
            if let first, !first.elementsEqual(part[start...end]) { return false }
            first = first ?? part[start...end]
        }
        return first != nil
    }

    /// A header value as quoted in a reason: at most 80 characters.
    private static func clip(_ value: String) -> String {
        value.count > 80 ? value.prefix(80) + "…" : value
    }

    var etag: String? { headers["etag"] }
    var lastModified: String? { headers["last-modified"] }
    private var contentLength: Int64? { headers["content-length"].flatMap { Int64($0) } }

    /// Whether the response says the server takes byte ranges.
    var acceptsRanges: Bool {
        status == 206 || headers["accept-ranges"].map { Self.containsBytesUnit($0) } == true
    }

    /// Whether an `Accept-Ranges` value names the `bytes` unit, in any case. On the bytes, not through
    /// Foundation's `contains`, which bridges to NSString (~10 µs a response on the loop's thread).
    static func containsBytesUnit(_ value: String) -> Bool {
        let unit = Array("bytes".utf8)
        let lowered = value.utf8.map { (0x41...0x5A).contains($0) ? $0 | 0x20 : $0 }
        guard lowered.count >= unit.count else { return false }
        return (0...(lowered.count - unit.count)).contains {
            lowered[$0..<$0 + unit.count].elementsEqual(unit)
        }
    }

    /// `Retry-After` in seconds: digits only, as RFC 9110 writes it (not `nan`, `1e9` or the HTTP-date form),
    /// at most a day (the loop caps it further).
    var retryAfter: Double? {
        guard let raw = headers["retry-after"], !raw.isEmpty,
            raw.utf8.allSatisfy({ (0x30...0x39).contains($0) })
        else { return nil }
        return raw.count > 5 ? 86_400 : min(Double(raw) ?? 0, 86_400)
    }

    private func decidePartialContent() {
        // `protocolViolation` vouches for a readable range.
        guard let range = ContentRange(headers["content-range"] ?? ""), let first = range.first,
            let last = range.last, first == offset
        else {
            outcome = .rangeFault("server sent a range not starting at \(offset)")
            return
        }
        // The rest of another file would be appended to this one's start: a total other than the one resolved
        // before (in this run or an earlier one) means the content changed, even when no validator says so.
        if let known = job.expected ?? job.request.expectedSize, let now = range.total, now != known {
            outcome = .rangeFault("size changed (\(known) -> \(now) bytes)")
            return
        }
        limit = last + 1
        total = range.total
        guard admitsSize() else { return }
        resolve(restartedFromZero: nil)
    }

    /// Applies the size cap before any body byte: an announced size over ``Job/maxSize`` fails the transfer; a body
    /// without a length gets ``bodyCap``. False when the response is refused.
    func admitsSize() -> Bool {
        if let maxSize = job.maxSize, let announced = total ?? limit, announced > maxSize {
            outcome = .fail(.tooLarge(limit: maxSize, announced: announced), retryAfter: nil)
            return false
        }
        guard limit == nil else { return true }
        // The same file as resolved before (its validator unchanged) is no longer than it was.
        let validator = etag ?? lastModified
        if let known = job.expected ?? job.request.expectedSize, validator != nil,
            validator == job.validator ?? job.request.validator
        {
            bodyCap = (known, true)
        } else {
            bodyCap = (job.maxSize ?? job.unannouncedMaxSize, false)
        }
        return true
    }

    private func decideWholeContent() {
        var reason: String?
        if offset > 0 {
            if let sentValidator, let now = etag ?? lastModified, now != sentValidator {
                reason = "validator changed (\(sentValidator) -> \(now))"
            } else {
                // The body is taken as it comes; no Range is asked again in this transfer.
                reason = job.distrustRanges("server ignored Range")
            }
            do {
                try job.discardPartial()
            } catch {
                outcome = .fail(error.reason, retryAfter: nil)
                return
            }
        }
        limit = contentLength
        total = contentLength
        guard admitsSize() else { return }
        resolve(restartedFromZero: reason)
    }

    private func decideRangeNotSatisfiable() {
        let remote = ContentRange(headers["content-range"] ?? "")?.total
        if offset > 0, let remote, remote == offset {
            total = remote
            resolve(restartedFromZero: nil)
            outcome = .alreadyComplete
        } else if offset > 0 && !job.restartedFromZero {
            let size = remote.map { "\($0)" } ?? "unknown"
            outcome = .restartFromZero("range not satisfiable (partial \(offset) bytes, remote \(size))")
        } else {
            outcome = .fail(.rangeNotSatisfiable, retryAfter: nil)
        }
    }

    func resolve(restartedFromZero reason: String?) {
        let serverName = headers["content-disposition"].flatMap {
            FileNaming.name(fromContentDisposition: $0)
        }
        let restart = reason ?? job.pendingRestartReason
        job.pendingRestartReason = nil
        job.serverName = serverName
        job.expected = total
        if let limit { job.file.expect(end: limit) }
        if let validator = etag ?? lastModified { job.validator = validator }
        // Before the first body byte: a run killed before the facts are logged still knows what the bytes are.
        job.file.mark(PartialMark(generation: job.request.generation, validator: job.validator))
        let ranges = acceptsRanges
        emit(
            .resolved(
                id: job.request.id, size: total, serverName: serverName, etag: etag,
                lastModified: lastModified,
                acceptsRanges: ranges, restartedFromZero: restart))
    }
}

/// A parsed `Content-Range: bytes first-last/total` (either side may be `*`).
struct ContentRange: Equatable {
    var first: Int64?
    var last: Int64?
    var total: Int64?

    init?(_ header: String) {
        let trimmed = header.drop { $0 == " " }
        guard trimmed.lowercased().hasPrefix("bytes ") else { return nil }
        let spec = trimmed.dropFirst(6).filter { $0 != " " }
        let halves = spec.split(separator: "/", omittingEmptySubsequences: false)
        guard halves.count == 2 else { return nil }
        total = halves[1] == "*" ? nil : Int64(halves[1])
        if halves[1] != "*" && total == nil { return nil }
        if halves[0] != "*" {
            let bounds = halves[0].split(separator: "-", omittingEmptySubsequences: false)
            guard bounds.count == 2, let first = Int64(bounds[0]), let last = Int64(bounds[1]), first <= last
            else { return nil }
            self.first = first
            self.last = last
        }
    }
}
