import CWebSockets
import Foundation
import LedgerRPC

extension RPCServer {
    /// A connection lws just opened (an HTTP one, or a WebSocket once upgraded), known by a new serial.
    func openConnection(_ wsi: OpaquePointer) -> RPCConnection {
        nextSerial += 1
        let conn = RPCConnection(serial: nextSerial, now: Self.now())
        liveConnections += 1
        connections[wsi] = conn
        bySerial[conn.serial] = wsi
        return conn
    }

    /// Forgets a closed connection; a reply still with a worker for it is then dropped.
    func closeConnection(_ wsi: OpaquePointer) {
        guard let conn = connections.removeValue(forKey: wsi) else { return }
        bySerial[conn.serial] = nil
        if !conn.closing { liveConnections -= 1 }
    }

    /// Runs `call` on a worker, on ``readers`` when it only reads, else on ``writer``; its reply comes back to the
    /// server thread (``deliverReplies()``) for `conn`.
    ///
    /// Reads answer from the list as last committed and never wait, so they share the reader threads; calls that
    /// change the list (or read the log) take the ledger's lock and may wait on a commit, so they take turns on
    /// one thread of their own, as the ledger would make them anyway.
    func dispatch(
        _ conn: RPCConnection, reads: Bool, callback: String? = nil,
        _ call: @escaping @Sendable () -> Aria2Service.Reply
    ) {
        let serial = conn.serial
        begin(conn)
        (reads ? readers : writer).submit { [self] in finish(serial, call(), callback: callback) }
    }

    /// Answers a POST body or WebSocket message: read (parsed) once on a worker, never on this thread, on
    /// ``bulk`` when it is large; answered there when it only reads, else handed, parsed, to ``writer``.
    func dispatch(_ conn: RPCConnection, body: [UInt8]) {
        let serial = conn.serial
        let service = service
        begin(conn)
        let lane = body.count > Self.bulkSize ? bulk : readers
        lane.submit { [self] in
            let request = service.read(body)
            if request.onlyReads {
                finish(serial, service.reply(to: request), callback: nil)
            } else {
                writer.submit { [self] in finish(serial, service.reply(to: request), callback: nil) }
            }
        }
    }

    private func begin(_ conn: RPCConnection) {
        conn.working = true
        conn.enter(.working, Self.now())
        inFlight += 1
    }

    /// A worker's reply, handed to the server thread.
    private func finish(_ serial: UInt64, _ reply: Aria2Service.Reply, callback: String?) {
        shared.withLock { s in
            s.done.append(Done(serial: serial, reply: reply, callback: callback))
            if !s.destroyed, let context { lws_cancel_service(context) }
        }
    }

    /// Unsent WebSocket bytes past which a client's next message waits: a client that reads its replies slower
    /// than it asks (or a server thread behind on writing) holds about one reply queued, not one per question.
    static let replyBacklog = 64 << 10

    /// A WebSocket message to answer: now, or after the one its client sent before and once its replies so far
    /// are mostly written (``replyBacklog``).
    func dispatchMessage(_ conn: RPCConnection, _ message: [UInt8]) {
        if conn.working || conn.outboxBytes > Self.replyBacklog || !conn.inbox.isEmpty {
            conn.inbox.append(message)
            return
        }
        dispatch(conn, body: message)
    }

    /// Starts a WebSocket client's next waiting message, when it may (``dispatchMessage(_:_:)``).
    func dispatchWaiting(_ conn: RPCConnection) {
        guard !conn.working, conn.outboxBytes <= Self.replyBacklog, !conn.inbox.isEmpty else { return }
        dispatch(conn, body: conn.inbox.removeFirst())
    }

    /// Hands the workers' finished replies to their connections (still open ones) and starts their next requests.
    func deliverReplies() {
        let done = shared.withLock { s -> [Done] in
            defer { s.done = [] }
            return s.done
        }
        for d in done {
            inFlight -= 1
            guard let wsi = bySerial[d.serial], let conn = connections[wsi] else { continue }
            conn.working = false
            // A WebSocket's deadlines count from its last message (``sweep()``), not from its last reply.
            if conn.isWebSocket { conn.phase = .webSocket } else { conn.enter(.writing, Self.now()) }
            if conn.isWebSocket {
                guard conn.enqueue(d.reply.bytes, limit: configuration.maxQueuedBytes) else {
                    lws_set_timeout(wsi, PENDING_TIMEOUT_USER_OK, LWS_TO_KILL_ASYNC)
                    continue
                }
                lws_callback_on_writable(wsi)
                dispatchWaiting(conn)
            } else if let callback = d.callback {
                conn.ready = .init(
                    status: 200, type: "text/javascript",
                    body: Array(callback.utf8) + [UInt8(ascii: "(")] + d.reply.bytes + [UInt8(ascii: ")")])
                lws_callback_on_writable(wsi)
            } else {
                conn.ready = .init(
                    status: d.reply.isError ? 400 : 200, type: "application/json-rpc", body: d.reply.bytes)
                lws_callback_on_writable(wsi)
            }
        }
    }

    /// Every request taken has been answered and its reply handed to the kernel (the drain of ``stop()``).
    func isDrained() -> Bool {
        inFlight == 0
            && connections.allSatisfy { wsi, conn in conn.isSettled && lws_send_pipe_choked(wsi) == 0 }
    }
}
