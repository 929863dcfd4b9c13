import CWebSockets
import Foundation
import LedgerRPC

extension RPCServer {
    /// Every event lws reports for a connection, on the server thread.
    func callback(
        _ wsi: OpaquePointer, _ reason: lws_callback_reasons, _ user: UnsafeMutableRawPointer?,
        _ input: UnsafeMutableRawPointer?, _ length: Int
    ) -> Int32 {
        switch reason {
        case LWS_CALLBACK_HTTP:
            return httpRequest(
                wsi, path: input.map { String(cString: $0.assumingMemoryBound(to: CChar.self)) })
        case LWS_CALLBACK_HTTP_BODY:
            guard let conn = connections[wsi], let input else { return -1 }
            if conn.refused { return 0 }
            guard conn.body.count + length <= configuration.maxRequestSize else { return -1 }
            conn.body.append(contentsOf: UnsafeRawBufferPointer(start: input, count: length))
            return 0
        case LWS_CALLBACK_HTTP_BODY_COMPLETION:
            guard let conn = connections[wsi] else { return -1 }
            if conn.refused { return 0 }
            lws_set_timeout(wsi, NO_PENDING_TIMEOUT, 0)
            let body = conn.body
            conn.body = []
            let service = service
            dispatch(conn, reads: Aria2Service.onlyReads(body)) { service.reply(to: body) }
            return 0
        case LWS_CALLBACK_HTTP_WRITEABLE:
            guard let conn = connections[wsi] else { return -1 }
            if let ready = conn.ready {
                conn.ready = nil
                return respond(wsi, conn, status: ready.status, type: ready.type, ready.body)
            }
            return writeHTTP(wsi, conn)
        case LWS_CALLBACK_FILTER_PROTOCOL_CONNECTION:
            guard path(wsi, WSI_TOKEN_GET_URI) == "/jsonrpc" else { return 1 }
            if case .refuse = admitted(wsi) { return 1 }
            return 0
        case LWS_CALLBACK_ESTABLISHED:
            if drainingSeen { return -1 }
            closeConnection(wsi)
            openConnection(wsi).isWebSocket = true
            return 0
        case LWS_CALLBACK_RECEIVE:
            return receive(wsi, input, length)
        case LWS_CALLBACK_SERVER_WRITEABLE:
            guard let conn = connections[wsi], let message = conn.dequeue() else { return 0 }
            if message.count > Self.chunk {
                // A large reply: written from its own buffer with the headroom lws needs.
                var framed = [UInt8](repeating: 0, count: pre + message.count)
                framed.replaceSubrange(pre..., with: message)
                let n = framed.withUnsafeMutableBufferPointer {
                    lws_write(wsi, $0.baseAddress! + pre, message.count, LWS_WRITE_TEXT)
                }
                guard n >= message.count else { return -1 }
            } else {
                message.withUnsafeBytes { _ = memcpy(scratch + pre, $0.baseAddress!, message.count) }
                guard lws_write(wsi, scratch + pre, message.count, LWS_WRITE_TEXT) >= message.count else {
                    return -1
                }
            }
            if conn.hasOutgoing { lws_callback_on_writable(wsi) }
            return 0
        case LWS_CALLBACK_EVENT_WAIT_CANCELLED:
            deliverNotifications()
            deliverReplies()
            return 0
        case LWS_CALLBACK_CLOSED, LWS_CALLBACK_CLOSED_HTTP, LWS_CALLBACK_WSI_DESTROY:
            closeConnection(wsi)
            return 0
        default:
            return lws_callback_http_dummy(wsi, reason, user, input, length)
        }
    }

    /// A WebSocket message, possibly in fragments: answered when whole.
    private func receive(_ wsi: OpaquePointer, _ input: UnsafeMutableRawPointer?, _ length: Int) -> Int32 {
        guard let conn = connections[wsi] else { return -1 }
        guard conn.body.count + length <= configuration.maxRequestSize else { return -1 }
        if let input, length > 0 {
            conn.body.append(contentsOf: UnsafeRawBufferPointer(start: input, count: length))
        }
        guard lws_is_final_fragment(wsi) != 0, lws_remaining_packet_payload(wsi) == 0 else { return 0 }
        let message = conn.body
        conn.body = []
        // A client that keeps sending while its answers wait is held to the same limit as one that stops reading.
        guard conn.inbox.reduce(message.count, { $0 + $1.count }) <= configuration.maxQueuedBytes else {
            return -1
        }
        if drainingSeen { return -1 }
        dispatchMessage(conn, message)
        return 0
    }

    /// Hands the notifications queued by other threads to every WebSocket client.
    private func deliverNotifications() {
        let messages = shared.withLock { s -> [[UInt8]] in
            defer { s.notifications = [] }
            return s.notifications
        }
        guard !messages.isEmpty else { return }
        for (wsi, conn) in connections where conn.isWebSocket {
            var fits = true
            for m in messages { fits = conn.enqueue(m, limit: configuration.maxQueuedBytes) && fits }
            if fits {
                lws_callback_on_writable(wsi)
            } else {
                lws_set_timeout(wsi, PENDING_TIMEOUT_USER_OK, LWS_TO_KILL_ASYNC)
            }
        }
    }

    /// The request path in a header token (the URI of a GET, a POST…), nil when absent.
    func path(_ wsi: OpaquePointer, _ token: lws_token_indexes) -> String? {
        header(wsi, token)
    }

    /// A header's value, nil when absent.
    func header(_ wsi: OpaquePointer, _ token: lws_token_indexes) -> String? {
        let n = Int(lws_hdr_total_length(wsi, token))
        guard n > 0 else { return nil }
        var buffer = [CChar](repeating: 0, count: n + 1)
        guard lws_hdr_copy(wsi, &buffer, Int32(n + 1), token) >= 0 else { return nil }
        return Self.text(buffer)
    }
}

extension RPCServer {
    /// The text of a NUL-terminated buffer lws filled.
    static func text(_ buffer: [CChar]) -> String {
        String(decoding: buffer.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
    }
}
