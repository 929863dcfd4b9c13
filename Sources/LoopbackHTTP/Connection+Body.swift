import Foundation

/// Streaming a body in bounded chunks, paced and cut short as the faults ask.
extension Connection {
    struct BodyPlan {
        var body: Body
        var range: Range<Int64>
        var chunked: Bool
        var rate: Int?
        var cut: ServerCore.Cut
    }

    /// Sends the body of `plan`; false when the connection must close (fault, client gone, server stopping).
    func sendBody(_ plan: BodyPlan) -> Bool {
        let total = Int64(plan.range.count)
        let dropAt = plan.cut.dropAfter ?? .max
        let stallAt = plan.cut.stallAfter ?? .max
        let limit = min(total, dropAt, stallAt)
        var chunkSize = 64 * 1024
        if let rate = plan.rate, rate > 0 { chunkSize = max(1, min(chunkSize, rate / 50)) }
        var buffer = [UInt8](repeating: 0, count: chunkSize)
        let start = DispatchTime.now().uptimeNanoseconds
        var sent: Int64 = 0
        while sent < limit {
            if let rate = plan.rate, rate > 0, !waitForPace(sent: sent, rate: rate, since: start) {
                return false
            }
            let want = Int(min(Int64(chunkSize), limit - sent))
            let count = buffer.withUnsafeMutableBytes {
                plan.body.copy(
                    from: plan.range.lowerBound + sent,
                    into: UnsafeMutableRawBufferPointer(rebasing: $0[0..<want]))
            }
            guard count > 0, sendPiece(buffer[0..<count], chunked: plan.chunked) else { return false }
            sent += Int64(count)
        }
        if sent < total || dropAt <= total || stallAt <= total {
            return stallAt < dropAt && stallAt <= total ? stallUntilStopped() : false
        }
        return !plan.chunked || socket.sendAll(Array("0\r\n\r\n".utf8))
    }

    /// Sends the stream a generated body comes from (literal bytes repeated), never ending: false once the client
    /// hung up or the server stopped.
    func sendEndless(_ body: Body, chunked: Bool) -> Bool {
        var buffer = [UInt8](repeating: 0, count: 64 * 1024)
        var offset: Int64 = 0
        while !core.isStopped {
            buffer.withUnsafeMutableBytes { target in
                switch body {
                case .generated(_, let seed): Body.fillGenerated(seed: seed, from: offset, into: target)
                case .bytes(let bytes):
                    for i in target.indices {
                        target[i] = bytes.isEmpty ? 0 : bytes[Int((offset + Int64(i)) % Int64(bytes.count))]
                    }
                }
            }
            guard sendPiece(buffer[...], chunked: chunked) else { return false }
            offset += Int64(buffer.count)
        }
        return false
    }

    private func sendPiece(_ bytes: ArraySlice<UInt8>, chunked: Bool) -> Bool {
        guard chunked else { return bytes.withUnsafeBytes { socket.sendAll($0) } }
        var frame = Array((String(bytes.count, radix: 16) + "\r\n").utf8)
        frame.append(contentsOf: bytes)
        frame.append(contentsOf: [UInt8(ascii: "\r"), UInt8(ascii: "\n")])
        return socket.sendAll(frame)
    }

    /// Sleeps until `sent` bytes are due at `rate`; false when the server stops or the client hangs up meanwhile
    /// (noticed at once, not at the next send, so a body cut short by its client stops counting as in flight).
    private func waitForPace(sent: Int64, rate: Int, since start: UInt64) -> Bool {
        let due = start + UInt64(Double(sent) / Double(rate) * 1e9)
        let now = DispatchTime.now().uptimeNanoseconds
        guard due > now else { return true }
        let wait = Int32(min((due - now) / 1_000_000, 60_000))
        switch core.waitReadable(socket.fd, timeout: wait) {
        case .stopped: return false
        case .timedOut: return true
        case .ready:
            // The client's next request (kept for later), or its end: zero bytes to peek means it hung up.
            var byte: UInt8 = 0
            if recv(socket.fd, &byte, 1, Int32(MSG_PEEK | MSG_DONTWAIT)) == 0 { return false }
            return core.pause(milliseconds: wait)
        }
    }

    /// Keeps the connection open without sending anything until the server stops or the client hangs up.
    private func stallUntilStopped() -> Bool {
        var scratch = [UInt8](repeating: 0, count: 4096)
        while core.waitReadable(socket.fd) == .ready {
            let count = scratch.withUnsafeMutableBytes { socket.receive(into: $0) }
            if count <= 0 { break }
        }
        return false
    }
}
