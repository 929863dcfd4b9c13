import CWebSocketGuard
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
            return httpBody(wsi, input, length)
        case LWS_CALLBACK_HTTP_BODY_COMPLETION:
            return httpBodyCompleted(wsi)
        case LWS_CALLBACK_HTTP_WRITEABLE:
            return httpWriteable(wsi)
        case LWS_CALLBACK_FILTER_PROTOCOL_CONNECTION:
            guard path(wsi, WSI_TOKEN_GET_URI) == "/jsonrpc" else { return 1 }
            if case .refuse = admitted(wsi) { return 1 }
            return 0
        case LWS_CALLBACK_SERVER_NEW_CLIENT_INSTANTIATED:
            // Before its first read: a handshake is later known to have come alone (RFC 6455 §4.1).
            _ = cwsg_watch_http(lws_get_socket_fd(wsi))
            return admit(wsi)
        case LWS_CALLBACK_ESTABLISHED:
            return webSocketEstablished(wsi)
        case LWS_CALLBACK_RECEIVE:
            return receive(wsi, input, length)
        case LWS_CALLBACK_RECEIVE_PONG:
            if let conn = connections[wsi], !conn.working { conn.since = Self.now() }
            return 0
        case LWS_CALLBACK_SERVER_WRITEABLE:
            return webSocketWriteable(wsi)
        case LWS_CALLBACK_EVENT_WAIT_CANCELLED:
            deliverNotifications()
            deliverReplies()
            return 0
        case LWS_CALLBACK_CLOSED:
            // Before lws closes the descriptor, so its number is not watched when reused (close(2) clears it too).
            cwsg_unregister(lws_get_socket_fd(wsi))
            closeConnection(wsi)
            return 0
        case LWS_CALLBACK_CLOSED_HTTP, LWS_CALLBACK_WSI_DESTROY:
            closeConnection(wsi)
            return 0
        default:
            return lws_callback_http_dummy(wsi, reason, user, input, length)
        }
    }

    /// A piece of an HTTP request's body: kept, unless the request was refused or the body grows past the limit.
    private func httpBody(_ wsi: OpaquePointer, _ input: UnsafeMutableRawPointer?, _ length: Int) -> Int32 {
        guard let conn = connections[wsi], let input else { return -1 }
        if conn.refused { return 0 }
        guard conn.body.count + length <= configuration.maxRequestSize else { return -1 }
        conn.body.append(contentsOf: UnsafeRawBufferPointer(start: input, count: length))
        return 0
    }

    /// An HTTP request's body is whole: handed to the workers.
    private func httpBodyCompleted(_ wsi: OpaquePointer) -> Int32 {
        guard let conn = connections[wsi] else { return -1 }
        if conn.refused { return 0 }
        lws_set_timeout(wsi, NO_PENDING_TIMEOUT, 0)
        let body = conn.body
        conn.body = []
        dispatch(conn, body: body)
        return 0
    }

    /// An HTTP connection may write: a reply that is ready, or the next part of the one being written.
    private func httpWriteable(_ wsi: OpaquePointer) -> Int32 {
        guard let conn = connections[wsi] else { return -1 }
        if let ready = conn.ready {
            conn.ready = nil
            return respond(wsi, conn, status: ready.status, type: ready.type, ready.body)
        }
        return writeHTTP(wsi, conn)
    }

    /// A WebSocket handshake succeeded: the connection starts over as a WebSocket one, keeping its count of requests.
    private func webSocketEstablished(_ wsi: OpaquePointer) -> Int32 {
        if drainingSeen { return -1 }
        // From here on an unmasked client frame fails the read and closes the connection (RFC 6455 §5.1).
        guard cwsg_register(lws_get_socket_fd(wsi)) == 0 else { return -1 }
        let served = connections[wsi]?.served ?? 0
        closeConnection(wsi)
        let conn = openConnection(wsi)
        conn.isWebSocket = true
        conn.served = served
        conn.enter(.webSocket, Self.now())
        return 0
    }

    /// A WebSocket connection may write: its next queued message goes out, and a waiting request is dispatched.
    private func webSocketWriteable(_ wsi: OpaquePointer) -> Int32 {
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
        dispatchWaiting(conn)
        return 0
    }

    /// A WebSocket message, possibly in fragments: answered when whole.
    private func receive(_ wsi: OpaquePointer, _ input: UnsafeMutableRawPointer?, _ length: Int) -> Int32 {
        guard let conn = connections[wsi] else { return -1 }
        guard conn.body.count + length <= configuration.maxRequestSize else { return -1 }
        if let input, length > 0 {
            conn.body.append(contentsOf: UnsafeRawBufferPointer(start: input, count: length))
        }
        let now = Self.now()
        guard lws_is_final_fragment(wsi) != 0, lws_remaining_packet_payload(wsi) == 0 else {
            if conn.messageSince == nil { conn.messageSince = now }
            return 0
        }
        let message = conn.body
        conn.body = []
        conn.messageSince = nil
        conn.served += 1
        if !conn.working { conn.since = now }
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
