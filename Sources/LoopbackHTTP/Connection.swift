/// One client connection: reads requests one after the other (keep-alive) and answers each.
final class Connection {
    /// Request heads larger than this are refused.
    static let maximumHeadSize = 64 * 1024

    let socket: Socket
    let core: ServerCore
    /// Bytes received but not yet consumed (the start of a pipelined request, for instance).
    private var pending: [UInt8] = []

    init(socket: Socket, core: ServerCore) {
        self.socket = socket
        self.core = core
    }

    /// Serves requests until the client or the server closes the connection, then shuts it down cleanly.
    func run() {
        defer { linger() }
        while true {
            switch readHead() {
            case .closed:
                return
            case .malformed:
                _ = sendSimple(
                    ResponseHead(status: 400), text: "malformed request\n", bodyless: false, close: true)
                return
            case .request(let head):
                guard discardBody(of: head), respond(to: head) else { return }
            }
        }
    }

    private enum HeadRead {
        case request(RequestHead)
        case malformed
        case closed
    }

    private func readHead() -> HeadRead {
        var scanned = 0
        while true {
            if let end = headEnd(from: max(0, scanned - 3)) {
                guard end.head <= Connection.maximumHeadSize else { return .malformed }
                let bytes = pending[..<end.head]
                defer { pending.removeFirst(end.next) }
                do {
                    return .request(try RequestHead.parse(bytes))
                } catch {
                    return .malformed
                }
            }
            scanned = pending.count
            if pending.count > Connection.maximumHeadSize { return .malformed }
            guard receiveMore() else { return .closed }
        }
    }

    /// Where the head in `pending` ends (an empty line) and where the next bytes start.
    private func headEnd(from start: Int) -> (head: Int, next: Int)? {
        var index = start
        while index < pending.count {
            if pending[index] == UInt8(ascii: "\n") {
                if index + 1 < pending.count && pending[index + 1] == UInt8(ascii: "\n") {
                    return (index, index + 2)
                }
                if index + 2 < pending.count && pending[index + 1] == UInt8(ascii: "\r")
                    && pending[index + 2] == UInt8(ascii: "\n")
                {
                    return (index, index + 3)
                }
            }
            index += 1
        }
        return nil
    }

    /// Ends the connection without losing the last response: closing with unread input would send a reset,
    /// which can make the client drop the response it has not read yet. So send FIN, then read and discard
    /// what the client still sends until it closes (a second at most).
    private func linger() {
        socket.shutdownWrite()
        var scratch = [UInt8](repeating: 0, count: 16 * 1024)
        var budget = 1 << 20
        while budget > 0, core.waitReadable(socket.fd, timeout: 1000) == .ready {
            let count = scratch.withUnsafeMutableBytes { socket.receive(into: $0) }
            guard count > 0 else { return }
            budget -= count
        }
    }

    /// Appends what the client sent next to `pending`; false at end of stream, on error or when stopping.
    private func receiveMore() -> Bool {
        guard core.waitReadable(socket.fd) == .ready else { return false }
        var chunk = [UInt8](repeating: 0, count: 16 * 1024)
        let count = chunk.withUnsafeMutableBytes { socket.receive(into: $0) }
        guard count > 0 else { return false }
        pending.append(contentsOf: chunk[..<count])
        return true
    }

    /// Reads and drops a request body; false (after answering 400) when its framing is unusable.
    private func discardBody(of head: RequestHead) -> Bool {
        let length: Int64
        do {
            length = try head.bodyLength()
        } catch {
            _ = sendSimple(
                ResponseHead(status: 400), text: "unsupported request body\n", bodyless: false, close: true)
            return false
        }
        var remaining = length
        while remaining > 0 {
            if pending.isEmpty && !receiveMore() { return false }
            let take = Int(min(Int64(pending.count), remaining))
            pending.removeFirst(take)
            remaining -= Int64(take)
        }
        return true
    }

    /// Sends a response with a short text body; returns whether the connection stays open.
    func sendSimple(_ head: ResponseHead, text: String, bodyless: Bool, close: Bool) -> Bool {
        var head = head
        let body = Array(text.utf8)
        head.add("Content-Type", "text/plain; charset=utf-8")
        head.add("Content-Length", String(body.count))
        if close { head.add("Connection", "close") }
        guard socket.sendAll(head.bytes) else { return false }
        if !bodyless {
            guard socket.sendAll(body) else { return false }
        }
        return !close
    }
}
