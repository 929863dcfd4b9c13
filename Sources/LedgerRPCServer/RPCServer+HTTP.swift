import CWebSockets
import Foundation
import LedgerRPC

extension RPCServer {
    /// A request's headers have arrived: GET and OPTIONS are answered now, a POST waits for its body.
    func httpRequest(_ wsi: OpaquePointer, path: String?) -> Int32 {
        if drainingSeen { return -1 }
        let conn = connections[wsi] ?? openConnection(wsi)
        conn.reset()
        if lws_hdr_total_length(wsi, WSI_TOKEN_POST_URI) > 0 {
            conn.method = .post
        } else if lws_hdr_total_length(wsi, WSI_TOKEN_OPTIONS_URI) > 0 {
            conn.method = .options
        } else if lws_hdr_total_length(wsi, WSI_TOKEN_GET_URI) > 0 {
            conn.method = .get
        }
        switch admitted(wsi) {
        case .refuse(let why):
            // A refused POST's body is never read: the connection closes after the answer.
            conn.refused = conn.method == .post
            return respond(wsi, conn, status: 403, type: "application/json-rpc", RPCAdmission.refusal(why))
        case .admit(let allowOrigin):
            conn.allowOrigin = allowOrigin
        }
        guard path == "/jsonrpc" else {
            return respond(wsi, conn, status: 404, type: "text/plain", Array("Not Found\n".utf8))
        }
        switch conn.method {
        case .post:
            if let length = header(wsi, WSI_TOKEN_HTTP_CONTENT_LENGTH).flatMap(Int.init),
                length > configuration.maxRequestSize
            {
                conn.refused = true
                return respond(wsi, conn, status: 413, type: "text/plain", Array("Request Too Large\n".utf8))
            }
            lws_set_timeout(wsi, PENDING_TIMEOUT_HTTP_CONTENT, Int32(configuration.requestTimeout))
            return 0
        case .options:
            return respond(wsi, conn, status: 200, type: "text/plain", [], preflight: true)
        case .get:
            // The query is read now (lws keeps the headers only during this callback), answered by a worker.
            let (method, id, params) = (argument(wsi, "method"), argument(wsi, "id"), argument(wsi, "params"))
            let asked = argument(wsi, "jsoncallback")
            if asked != nil && !isJSONPAuthorized(params: params) {
                return respond(
                    wsi, conn, status: 403, type: "application/json-rpc",
                    RPCAdmission.refusal("JSONP needs the secret: params must start with \"token:<secret>\""))
            }
            let callback = asked.flatMap { Self.isCallbackName($0) ? $0 : nil }
            let service = service
            dispatch(conn, reads: method.map(Aria2Service.isRead) ?? true, callback: callback) {
                service.reply(method: method, id: id, base64Params: params)
            }
            return 0
        case .other:
            return respond(wsi, conn, status: 405, type: "text/plain", Array("Method Not Allowed\n".utf8))
        }
    }

    /// A JSONP callback must be a JavaScript name (dots allowed), so the reply cannot smuggle script.
    static func isCallbackName(_ s: String) -> Bool {
        !s.isEmpty && s.utf8.count <= 128
            && s.unicodeScalars.allSatisfy {
                CharacterSet.alphanumerics.contains($0) || $0 == "_" || $0 == "$" || $0 == "."
            }
    }

    /// A query argument (`name=value`), URL-decoded by lws; nil when absent.
    func argument(_ wsi: OpaquePointer, _ name: String) -> String? {
        let size = 16 * 1024
        var buffer = [CChar](repeating: 0, count: size)
        return buffer.withUnsafeMutableBufferPointer { b -> String? in
            guard let value = lws_get_urlarg_by_name(wsi, name + "=", b.baseAddress, Int32(size)) else {
                return nil
            }
            let offset = b.baseAddress!.distance(to: UnsafeMutablePointer(mutating: value))
            return Self.text(Array(b[offset...]))
        }
    }

    /// Writes the status line and headers and queues the body (written as the socket takes it).
    func respond(
        _ wsi: OpaquePointer, _ conn: RPCConnection, status: UInt32, type: String, _ body: [UInt8],
        preflight: Bool = false
    ) -> Int32 {
        let start = scratch + pre
        let end = start + 4000
        var p: UnsafeMutablePointer<UInt8>? = start
        guard lws_add_http_common_headers(wsi, status, type, lws_filepos_t(body.count), &p, end) == 0 else {
            return -1
        }
        var headers: [(String, String)] = [("cache-control:", "no-cache")]
        if let allowOrigin = conn.allowOrigin {
            headers.append(("access-control-allow-origin:", allowOrigin))
            if allowOrigin != "*" { headers.append(("vary:", "Origin")) }
            if preflight {
                headers.append(("access-control-allow-methods:", "POST, GET, OPTIONS"))
                if let asked = header(wsi, WSI_TOKEN_HTTP_AC_REQUEST_HEADERS) {
                    headers.append(("access-control-allow-headers:", asked))
                }
                headers.append(("access-control-max-age:", "1728000"))
            }
        }
        for (name, value) in headers {
            let added = name.withCString { n in
                value.withCString { v in
                    n.withMemoryRebound(to: UInt8.self, capacity: name.utf8.count) { n in
                        v.withMemoryRebound(to: UInt8.self, capacity: value.utf8.count) { v in
                            lws_add_http_header_by_name(wsi, n, v, Int32(value.utf8.count), &p, end)
                        }
                    }
                }
            }
            guard added == 0 else { return -1 }
        }
        guard lws_finalize_write_http_header(wsi, start, &p, end) == 0 else { return -1 }
        conn.pending = body
        conn.written = 0
        if body.isEmpty { return lws_http_transaction_completed(wsi) != 0 ? -1 : 0 }
        lws_callback_on_writable(wsi)
        return 0
    }

    /// The next piece of a reply body; the transaction completes (keep-alive) after the last one.
    func writeHTTP(_ wsi: OpaquePointer, _ conn: RPCConnection) -> Int32 {
        guard conn.written < conn.pending.count else { return 0 }
        let n = min(Self.chunk, conn.pending.count - conn.written)
        conn.pending.withUnsafeBytes { _ = memcpy(scratch + pre, $0.baseAddress! + conn.written, n) }
        let last = conn.written + n == conn.pending.count
        guard lws_write(wsi, scratch + pre, n, last ? LWS_WRITE_HTTP_FINAL : LWS_WRITE_HTTP) >= n else {
            return -1
        }
        conn.written += n
        guard last else {
            lws_callback_on_writable(wsi)
            return 0
        }
        // A refused request's body was never read: the connection cannot carry another request.
        if conn.refused { return -1 }
        conn.reset()
        return lws_http_transaction_completed(wsi) != 0 ? -1 : 0
    }
}
