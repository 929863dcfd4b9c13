/// One client connection as the server thread tracks it: the request being read, the reply being written, and for
/// a WebSocket, the messages waiting to go out. Touched only on the server thread.
final class RPCConnection {
    enum Method { case get, post, options, other }

    /// Names the connection to the replies the worker hands back (a closed connection's pointer may be reused).
    let serial: UInt64
    /// A request is with the worker; the next one waits, so a client's calls are answered in the order it sent
    /// them.
    var working = false
    /// WebSocket messages that arrived while one was with the worker, oldest first.
    var inbox: [[UInt8]] = []
    /// An HTTP reply the worker finished, to be written when the socket is writable.
    var ready: Ready?

    struct Ready {
        var status: UInt32
        var type: String
        var body: [UInt8]
    }

    init(serial: UInt64) {
        self.serial = serial
    }

    var method = Method.other
    var isWebSocket = false
    /// The request body (POST) or the WebSocket message being assembled.
    var body: [UInt8] = []
    /// The `Access-Control-Allow-Origin` its request is answered with (``RPCAdmission``), nil for none.
    var allowOrigin: String?
    /// The request was answered before its body was read (too large): the body is discarded, then the connection
    /// closes.
    var refused = false
    /// Reply bytes of an HTTP transaction not yet written, and how far writing got.
    var pending: [UInt8] = []
    var written = 0
    /// WebSocket messages to send, oldest first, and how much of the queue's bytes they hold.
    var outbox: [[UInt8]] = []
    var outboxBytes = 0
    var outboxHead = 0

    /// Resets the HTTP transaction state (a keep-alive connection starts the next request).
    func reset() {
        method = .other
        body = []
        allowOrigin = nil
        refused = false
        ready = nil
        pending = []
        written = 0
    }

    /// Queues a WebSocket message. Returns false when the client is so far behind (more than `limit` bytes
    /// queued) that it should be dropped rather than held in memory.
    func enqueue(_ message: [UInt8], limit: Int) -> Bool {
        outbox.append(message)
        outboxBytes += message.count
        return outboxBytes <= limit
    }

    /// The next WebSocket message to send, removed from the queue.
    func dequeue() -> [UInt8]? {
        guard outboxHead < outbox.count else { return nil }
        let message = outbox[outboxHead]
        outboxHead += 1
        outboxBytes -= message.count
        if outboxHead > 64 && outboxHead * 2 > outbox.count {
            outbox.removeFirst(outboxHead)
            outboxHead = 0
        }
        return message
    }

    var hasOutgoing: Bool { outboxHead < outbox.count }

    /// Nothing asked of it is still unanswered or unwritten (the drain before stopping waits for this).
    var isSettled: Bool {
        !working && inbox.isEmpty && ready == nil && written >= pending.count && !hasOutgoing
    }
}
