/// What a response status and its headers mean for the partial file.
extension Attempt {
    /// Called once, when the final response's headers are complete.
    func decide() {
        decided = true
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

    var etag: String? { headers["etag"] }
    var lastModified: String? { headers["last-modified"] }
    private var contentLength: Int64? { headers["content-length"].flatMap { Int64($0) } }

    /// Whether the response says the server takes byte ranges.
    var acceptsRanges: Bool {
        status == 206 || headers["accept-ranges"]?.lowercased().contains("bytes") == true
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
        guard let range = ContentRange(headers["content-range"] ?? "") else {
            outcome = .fail(.connection("206 without a usable Content-Range"), retryAfter: nil)
            return
        }
        guard let first = range.first, let last = range.last, first == offset else {
            outcome = .restartFromZero("server sent a range not starting at \(offset)")
            return
        }
        limit = last + 1
        total = range.total
        resolve(restartedFromZero: nil)
    }

    private func decideWholeContent() {
        var reason: String?
        if offset > 0 {
            if let sentValidator, let now = etag ?? lastModified, now != sentValidator {
                reason = "validator changed (\(sentValidator) -> \(now))"
            } else {
                reason = "server ignored Range"
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
