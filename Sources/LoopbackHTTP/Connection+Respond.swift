/// Choosing the response to one request.
extension Connection {
    /// Answers `head`; returns whether the connection stays open for another request.
    func respond(to head: RequestHead) -> Bool {
        let close = !head.keepsAlive
        let headOnly = head.method == "HEAD"
        let admission = core.admit(head)
        guard head.method == "GET" || headOnly else {
            var response = ResponseHead(status: 405)
            response.add("Allow", "GET, HEAD")
            return sendSimple(response, text: "method not allowed\n", bodyless: false, close: close)
        }
        guard let admission else {
            return sendSimple(
                ResponseHead(status: 404), text: "not found\n", bodyless: headOnly, close: close)
        }
        let resource = admission.resource
        let faults = resource.faults
        if admission.number <= faults.failFirst {
            var response = ResponseHead(status: faults.failStatus)
            response.rawLines = faults.rawHeaders
            response.add("Retry-After", faults.retryAfterText ?? faults.retryAfter.map { String($0) })
            return sendSimple(response, text: "injected failure\n", bodyless: headOnly, close: close)
        }
        if let redirect = resource.redirect {
            var response = ResponseHead(status: redirect.status)
            response.rawLines = faults.rawHeaders
            let location = redirect.location
            response.add(
                "Location", location.contains("://") || location.hasPrefix("/") ? location : "/" + location)
            return sendSimple(response, text: "redirect\n", bodyless: headOnly, close: close)
        }
        return sendRepresentation(resource, of: admission.key, for: head, headOnly: headOnly, close: close)
    }

    private func sendRepresentation(
        _ resource: Resource, of key: String, for head: RequestHead, headOnly: Bool, close: Bool
    ) -> Bool {
        let size = resource.body.count
        let faults = resource.faults
        var range = ByteRange.ignored
        if let header = head.headers["range"], !faults.ignoreRange, !faults.endlessBody,
            Connection.ifRangeAllows(head.headers["if-range"], resource)
        {
            range = ByteRange.resolve(header, size: size)
        }
        var bytes: Range<Int64> = 0..<size
        var response = ResponseHead(status: 200)
        switch range {
        case .ignored:
            break
        case .unsatisfiable:
            var refusal = ResponseHead(status: 416)
            refusal.add("Content-Range", "bytes */\(size)")
            return sendSimple(refusal, text: "range not satisfiable\n", bodyless: headOnly, close: close)
        case .satisfiable(let satisfiable):
            bytes = satisfiable
            if let shift = faults.shiftRange {
                let start = min(max(satisfiable.lowerBound - shift, 0), size - 1)
                bytes = start..<min(start + Int64(satisfiable.count), size)
            }
            response = ResponseHead(status: 206)
            let total = faults.contentRangeTotal ?? size
            response.add("Content-Range", "bytes \(bytes.lowerBound)-\(bytes.upperBound - 1)/\(total)")
        }
        response.add("Content-Type", resource.contentType ?? "application/octet-stream")
        if !faults.ignoreRange || faults.advertiseIgnoredRange { response.add("Accept-Ranges", "bytes") }
        response.add("ETag", resource.etag)
        response.add("Last-Modified", resource.lastModified)
        response.add("Content-Disposition", resource.contentDisposition)
        let chunked = resource.chunked && faults.lieContentLength == nil
        if let lie = faults.lieContentLength {
            response.add("Content-Length", String(lie))
        } else if let text = faults.contentLengthText {
            response.add("Content-Length", text)
        } else if chunked {
            response.add("Transfer-Encoding", "chunked")
        } else if !faults.endlessBody {
            response.add("Content-Length", String(bytes.count))
        }
        let closeAfter =
            close || faults.lieContentLength != nil || faults.contentLengthText != nil
            || (faults.endlessBody && !chunked)
        if closeAfter { response.add("Connection", "close") }
        response.rawLines = faults.rawHeaders
        guard socket.sendAll(response.bytes) else { return false }
        if headOnly { return !closeAfter }
        if faults.endlessBody { return sendEndless(resource.body, chunked: chunked) }
        let plan = BodyPlan(
            body: resource.body, range: bytes, chunked: chunked, rate: faults.throttleBytesPerSecond,
            cut: core.claimCut(key))
        return core.sending(key) { sendBody(plan) } && !closeAfter
    }

    /// Whether an `If-Range` lets the Range through: absent, or equal to the current ETag (strong) or
    /// Last-Modified; anything else means the client's partial copy is stale and gets the whole body.
    static func ifRangeAllows(_ ifRange: String?, _ resource: Resource) -> Bool {
        guard let ifRange = ifRange?.trimmingSpaces() else { return true }
        if ifRange.hasPrefix("\"") || ifRange.hasPrefix("W/") {
            return !ifRange.hasPrefix("W/") && ifRange == resource.etag
        }
        return ifRange == resource.lastModified
    }
}
