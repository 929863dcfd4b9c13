import CWebSockets
import LedgerRPC

extension RPCServer {
    /// The verdict of ``admission`` on the request whose headers lws holds now (an HTTP request or an upgrade).
    func admitted(_ wsi: OpaquePointer) -> RPCAdmission.Verdict {
        admission.check(
            origin: header(wsi, WSI_TOKEN_ORIGIN), host: header(wsi, WSI_TOKEN_HOST),
            fetchSite: customHeader(wsi, "sec-fetch-site:"), referer: header(wsi, WSI_TOKEN_HTTP_REFERER))
    }

    /// Whether a GET that asks for JSONP (`jsoncallback`) carries the secret: a `<script>` of any page can make
    /// such a request, without an `Origin`, and read its answer.
    func isJSONPAuthorized(params: String?) -> Bool {
        guard let token = RPCAdmission.token(base64Params: params) else { return false }
        return service.accepts(token: token)
    }

    /// A header lws has no token for (`name` lower-case with its colon), nil when absent.
    func customHeader(_ wsi: OpaquePointer, _ name: String) -> String? {
        let length = Int32(name.utf8.count)
        let n = Int(lws_hdr_custom_length(wsi, name, length))
        guard n > 0 else { return nil }
        var buffer = [CChar](repeating: 0, count: n + 1)
        guard lws_hdr_custom_copy(wsi, &buffer, Int32(n + 1), name, length) >= 0 else { return nil }
        return Self.text(buffer)
    }
}
