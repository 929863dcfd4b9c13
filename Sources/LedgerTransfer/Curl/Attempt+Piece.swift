/// A request for one piece of a segmented transfer: its own bounded `Range`, and a response that must match the
/// file as the other pieces know it (the same size, the same validator).
extension Attempt {
    /// `Range: bytes=<position>-<end - 1>`, with `If-Range` when a validator is known.
    func pieceHeaders(_ piece: Piece) -> [String] {
        var lines = ["Range: bytes=\(piece.position)-\(piece.end - 1)"]
        if let sentValidator { lines.append("If-Range: \(sentValidator)") }
        return lines
    }

    /// Gathers the piece's bytes; a response running past the piece's end (another connection took the rest
    /// over) is cut there, which ends this request.
    func receivePiece(_ bytes: UnsafeRawBufferPointer, _ piece: Piece) -> Delivery {
        guard let segments = job.segments else { return .abort }
        do {
            let accepted = try segments.receive(bytes, for: piece)
            return accepted == bytes.count ? .accepted : .abort
        } catch {
            outcome = .fail(error.reason, retryAfter: nil)
            return .abort
        }
    }

    /// What the response to a piece request means. A 206 for exactly the bytes asked, of a file of the map's size
    /// and with the validator known (if both sides have one), is taken. A different validator means the file is
    /// another one now: the transfer restarts from zero (``Outcome/restartFromZero(_:)``), unless another response
    /// of this round already matched the map and another source is left, in which case only this source is at
    /// fault (``Outcome/dropSource(_:)``). A 200 (Range ignored), a 206 for another range or of another size, or a
    /// 416 inside the map's size is a range fault (``Outcome/rangeFault(_:)``): the source is dropped while
    /// another is left, else the transfer goes on one connection from zero.
    func decidePiece() {
        guard let segments = job.segments, let piece else { return }
        let size = segments.map.size
        let validator = etag ?? lastModified
        if let known = job.validator, let validator, validator != known {
            mismatch(segments, "validator changed (\(known) -> \(validator))")
            return
        }
        switch status {
        case 206:
            // `protocolViolation` vouches for a readable range; an unknown total (`*`) cannot match the map.
            guard let range = ContentRange(headers["content-range"] ?? ""), let total = range.total else {
                outcome = .rangeFault("size unknown (Content-Range without a total)")
                return
            }
            guard total == size else {
                outcome = .rangeFault("size changed (\(size) -> \(total) bytes)")
                return
            }
            guard range.first == piece.position, let last = range.last, last < size else {
                outcome = .rangeFault("server sent a range not starting at \(piece.position)")
                return
            }
            if let maxSize = job.maxSize, total > maxSize {
                outcome = .fail(.tooLarge(limit: maxSize, announced: total), retryAfter: nil)
                return
            }
            self.total = total
            if !segments.confirmed {
                resolve(restartedFromZero: nil)
                segments.confirmed = true
            }
            limit = last + 1
        case 200..<300:
            outcome = .rangeFault("server ignored Range")
        case 416:
            outcome = .rangeFault("range not satisfiable (asked from \(piece.position) of \(size) bytes)")
        default:
            outcome = .fail(.http(status), retryAfter: retryAfter)
        }
    }

    /// The file is another one now: the whole file starts over, or only this source is dropped when another one
    /// already matched the map and another source is left.
    private func mismatch(_ segments: Segments, _ why: String) {
        if segments.confirmed, let piece, segments.hasSource(besides: piece.source) {
            outcome = .dropSource(why)
        } else {
            outcome = .restartFromZero(why)
        }
    }
}
