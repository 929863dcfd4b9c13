import CWebSockets
import Foundation
import LedgerRPC

extension RPCServer {
    /// A connection lws just opened (an HTTP one, or a WebSocket once upgraded), known by a new serial.
    func openConnection(_ wsi: OpaquePointer) -> RPCConnection {
        nextSerial += 1
        let conn = RPCConnection(serial: nextSerial)
        connections[wsi] = conn
        bySerial[conn.serial] = wsi
        return conn
    }

    /// Forgets a closed connection; a reply still with a worker for it is then dropped.
    func closeConnection(_ wsi: OpaquePointer) {
        guard let conn = connections.removeValue(forKey: wsi) else { return }
        bySerial[conn.serial] = nil
    }

    /// Runs `call` on a worker, `readers` when it only reads, else `writer`; its reply comes back to the server
    /// thread (``deliverReplies()``) for `conn`.
    ///
    /// Reads answer from the list as last committed and never wait, so they share the concurrent queue; calls that
    /// change the list (or read the log) take the ledger's lock and may wait on a commit, so they take turns on
    /// one queue of their own, as the ledger would make them anyway, and hold at most one thread.
    func dispatch(
        _ conn: RPCConnection, reads: Bool, callback: String? = nil,
        _ call: @escaping @Sendable () -> Aria2Service.Reply
    ) {
        conn.working = true
        inFlight += 1
        let serial = conn.serial
        (reads ? readers : writer).async { [self] in
            let reply = call()
            shared.withLock { s in
                s.done.append(Done(serial: serial, reply: reply, callback: callback))
                if !s.destroyed, let context { lws_cancel_service(context) }
            }
        }
    }

    /// A WebSocket message to answer: now, or after the one its client sent before.
    func dispatchMessage(_ conn: RPCConnection, _ message: [UInt8]) {
        if conn.working {
            conn.inbox.append(message)
            return
        }
        let service = service
        dispatch(conn, reads: Aria2Service.onlyReads(message)) { service.reply(to: message) }
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
            if conn.isWebSocket {
                guard conn.enqueue(d.reply.bytes, limit: configuration.maxQueuedBytes) else {
                    lws_set_timeout(wsi, PENDING_TIMEOUT_USER_OK, LWS_TO_KILL_ASYNC)
                    continue
                }
                lws_callback_on_writable(wsi)
                if !conn.inbox.isEmpty { dispatchMessage(conn, conn.inbox.removeFirst()) }
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
