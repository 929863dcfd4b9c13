import Foundation

#if canImport(Glibc)
    import Glibc
#endif

/// The polling clients of `ledger-bench rpc`: `count` WebSocket connections, as AriaNg keeps one, each sending
/// `tellActive`, `tellWaiting(0, 1000)` and `getGlobalStat` every `1 / hz` seconds (the clients' ticks spread
/// evenly over the period), all driven by one thread with poll(2) so that the clients cost little beside the
/// server they load.
///
/// Open loop: a client sends at its ticks whether or not its last replies came, so a server that falls behind
/// shows it in the reply times instead of being asked less (no coordinated omission). A reply's time runs from
/// the moment its request was written to the moment its last byte was read.
final class RPCLoad {
    struct Result {
        /// Seconds from request to reply, every reply of the window.
        var latencies: [Double]
        var errors: Int
        /// Requests that had no reply when the window closed.
        var unanswered: Int
        var replyBytes: Int
    }

    static let calls = [
        #""method":"aria2.tellActive","params":[]"#,
        #""method":"aria2.tellWaiting","params":[0,1000]"#,
        #""method":"aria2.getGlobalStat","params":[]"#,
    ]

    private var clients: [RPCSocket] = []
    private var fds: [pollfd] = []
    private var sentAt: [Double] = []
    private var outstanding = 0
    private var result = Result(latencies: [], errors: 0, unanswered: 0, replyBytes: 0)

    /// Connects and upgrades every client (before the window: connecting is not what is measured).
    init(port: Int, count: Int) throws {
        for _ in 0..<count {
            let socket = try RPCSocket(port: port)
            try socket.upgrade()
            socket.setNonBlocking()
            clients.append(socket)
        }
        fds = clients.map { pollfd(fd: $0.fd, events: Int16(POLLIN), revents: 0) }
    }

    /// Polls for `seconds` (the window), and returns when its last requests are sent; ``drain()`` then
    /// collects the replies still due.
    func run(seconds: Double, hz: Double) {
        let period = 1 / hz
        let start = RPCSocket.now()
        var next = clients.indices.map { start + period * Double($0) / Double(clients.count) }
        let end = start + seconds
        while RPCSocket.now() < end {
            let now = RPCSocket.now()
            for (i, client) in clients.enumerated() where next[i] <= now {
                for call in Self.calls {
                    let id = sentAt.count
                    sentAt.append(RPCSocket.now())
                    client.queueText(#"{"jsonrpc":"2.0","id":\#(id),\#(call)}"#)
                    outstanding += 1
                }
                client.flush()
                next[i] += period
            }
            receive(waiting: min(end, next.min() ?? end) - RPCSocket.now())
        }
    }

    /// Reads the replies still due, for at most `limit` seconds, and reports the window.
    func drain(limit: Double = 1) -> Result {
        let deadline = RPCSocket.now() + limit
        while outstanding > 0 && RPCSocket.now() < deadline { receive(waiting: 0.05) }
        result.unanswered = outstanding
        return result
    }

    /// One poll(2) over every client, for at most `waiting` seconds: writes what is queued, reads what came.
    private func receive(waiting: Double) {
        for i in clients.indices {
            fds[i].events = Int16(POLLIN) | (clients[i].hasOutput ? Int16(POLLOUT) : 0)
        }
        let ready = poll(&fds, nfds_t(fds.count), Int32((max(0, waiting) * 1000).rounded(.up)))
        guard ready > 0 else { return }
        for i in clients.indices where fds[i].revents != 0 {
            if fds[i].revents & Int16(POLLOUT) != 0 { clients[i].flush() }
            guard fds[i].revents & Int16(POLLIN | POLLHUP | POLLERR) != 0 else { continue }
            clients[i].read { message in
                result.replyBytes += message.count
                guard let id = Self.id(in: message), id < sentAt.count else { return }
                result.latencies.append(RPCSocket.now() - sentAt[id])
                outstanding -= 1
                if !Self.isResult(message) { result.errors += 1 }
            }
        }
    }

    func close() {
        clients = []
    }

    /// The numeric `"id":` of a reply (the first one: ids are written before results by both servers, and no
    /// result key is `id`); nil for a notification.
    static func id(in message: ArraySlice<UInt8>) -> Int? {
        let key = Array(#""id":"#.utf8)
        var i = message.startIndex
        let limit = min(message.endIndex - key.count, message.startIndex + 64)
        while i <= limit {
            if message[i] == key[0] && message[i..<(i + key.count)].elementsEqual(key) {
                var j = i + key.count
                var value = 0
                var digits = 0
                while j < message.endIndex, message[j] >= 48, message[j] <= 57 {
                    value = value * 10 + Int(message[j] - 48)
                    j += 1
                    digits += 1
                }
                return digits > 0 ? value : nil
            }
            i += 1
        }
        return nil
    }

    /// Whether a reply carries a result (not an error).
    static func isResult(_ message: ArraySlice<UInt8>) -> Bool {
        let key = Array(#""result":"#.utf8)
        let head = message.prefix(96)
        guard head.count >= key.count else { return false }
        for i in head.startIndex...(head.endIndex - key.count)
        where head[i..<(i + key.count)].elementsEqual(key) {
            return true
        }
        return false
    }
}
