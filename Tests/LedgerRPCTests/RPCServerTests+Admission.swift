import DownloadLedger
import Foundation
import LedgerCore
import LedgerRPC
import LedgerRPCServer
import TestSupport
import Testing

/// Who the endpoint takes, on the wire: web pages of other sites, DNS rebinding, JSONP, browser extensions.
@Suite(.serialized) struct RPCAdmissionWireTests {
    func addUri(_ h: RPCHarness, dir: String = "/tmp") -> String {
        #"{"jsonrpc":"2.0","id":1,"method":"aria2.addUri","params":[["\#(h.file("evil.sh"))"],{"dir":"\#(dir)"}]}"#
    }

    func b64(_ json: String) -> String {
        Data(json.utf8).base64EncodedString().replacingOccurrences(of: "+", with: "%2B")
            .replacingOccurrences(of: "/", with: "%2F").replacingOccurrences(of: "=", with: "%3D")
    }

    func errorMessage(_ r: RawHTTPClient.Response) -> String {
        (r.json?["error"] as? [String: Any])?["message"] as? String ?? ""
    }

    /// Issue 26's attack on a server without a secret (aria2c's default): every way a page of another site has
    /// to call is refused, nothing is appended, and the server keeps answering.
    @Test func anotherSitesPageCanNeitherAddNorStop() throws {
        let h = try RPCHarness()
        let before = try h.eventCount()
        let c = try RawHTTPClient(port: h.port)
        // fetch() or a form's text/plain POST.
        let post = try c.post(
            addUri(h), extra: "Origin: http://evil.example\r\nContent-Type: text/plain\r\n")
        #expect(post.status == 403)
        #expect((post.json?["error"] as? [String: Any])?["code"] as? Int == 1)
        #expect(errorMessage(post).contains("origin 'http://evil.example' is not allowed"), "\(post.text)")
        #expect(c.isClosed(), "the refused body is not read: the connection closes")
        // A file:// page, or a sandboxed frame: Origin null.
        let null = try RawHTTPClient(port: h.port).post(addUri(h), extra: "Origin: null\r\n")
        #expect(null.status == 403)
        // <script src="…&jsoncallback=…">: no Origin at all; JSONP needs the token, and there is none.
        let d = try RawHTTPClient(port: h.port)
        let params = b64(#"[["\#(h.file("x.sh"))"],{"dir":"/tmp"}]"#)
        let jsonp = try d.request(
            "GET", "/jsonrpc?method=aria2.addUri&id=1&jsoncallback=cb&params=\(params)")
        #expect(jsonp.status == 403 && jsonp.headers["content-type"] == "application/json-rpc")
        #expect(!jsonp.text.hasPrefix("cb("))
        let shutdown = try d.request("GET", "/jsonrpc?method=aria2.shutdown&id=2&jsoncallback=cb")
        #expect(shutdown.status == 403)
        // <img src="…?method=aria2.addUri…">: a GET the browser marks as another site's.
        let image = try d.request(
            "GET", "/jsonrpc?method=aria2.addUri&id=3&params=\(params)",
            extra: "Sec-Fetch-Site: cross-site\r\nSec-Fetch-Mode: no-cors\r\nSec-Fetch-Dest: image\r\n")
        #expect(image.status == 403)
        // new WebSocket("ws://127.0.0.1:6800/jsonrpc") from the page: the upgrade is refused.
        let ws = try RawHTTPClient(port: h.port)
        #expect((try? ws.upgrade(extra: "Origin: http://evil.example\r\n")) != 101)
        #expect(try h.eventCount() == before)
        #expect(h.shutdowns.count == 0)
        #expect(!FileManager.default.fileExists(atPath: "/tmp/evil.sh"))
        // The same calls from a program (no Origin) still work, as with aria2c.
        let version = try RawHTTPClient(port: h.port).post(
            #"{"jsonrpc":"2.0","id":9,"method":"aria2.getVersion"}"#)
        #expect(version.status == 200)
    }

    /// DNS rebinding: a page of evil.example whose name now resolves to 127.0.0.1 calls with its own Host.
    @Test func aHostThatIsNotThisServerIsRefused() throws {
        let h = try RPCHarness(secret: "tok")
        let before = try h.eventCount()
        let call = #"{"jsonrpc":"2.0","id":1,"method":"aria2.getGlobalStat","params":["token:tok"]}"#
        let evil = try RawHTTPClient(port: h.port)
        try evil.send(
            "POST /jsonrpc HTTP/1.1\r\nHost: evil.example:\(h.port)\r\nContent-Length: \(call.utf8.count)\r\n\r\n"
                + call)
        let refused = try evil.response()
        #expect(refused.status == 403)
        #expect(errorMessage(refused).contains("Host 'evil.example:\(h.port)'"), "\(refused.text)")
        let get = try RawHTTPClient(port: h.port)
        try get.send("GET /jsonrpc?method=aria2.getVersion&id=1 HTTP/1.1\r\nHost: evil.example\r\n\r\n")
        #expect(try get.response().status == 403)
        let ws = try RawHTTPClient(port: h.port)
        try ws.send(
            "GET /jsonrpc HTTP/1.1\r\nHost: evil.example\r\nUpgrade: websocket\r\nConnection: Upgrade\r\n"
                + "Sec-WebSocket-Key: dGhlIHNhbXBsZSBub25jZQ==\r\nSec-WebSocket-Version: 13\r\n\r\n")
        #expect((try? ws.response().status) != 101)
        for host in ["localhost:\(h.port)", "127.0.0.1:\(h.port)", "[::1]:\(h.port)"] {
            let ok = try RawHTTPClient(port: h.port)
            try ok.send(
                "POST /jsonrpc HTTP/1.1\r\nHost: \(host)\r\nContent-Length: \(call.utf8.count)\r\n\r\n" + call
            )
            #expect(try ok.response().status == 200, "\(host)")
        }
        #expect(try h.eventCount() == before)
    }

    /// Aria2 Explorer and the like call from a chrome-extension:// or moz-extension:// origin, with the token.
    @Test func browserExtensionsCallWithTheToken() throws {
        let h = try RPCHarness(secret: "tok")
        let before = try h.eventCount()
        let origin = "chrome-extension://mpkodccbngfoacfalldjimigbofkhgjn"
        let c = try RawHTTPClient(port: h.port)
        let url = h.file("ext.bin")
        let added = try c.post(
            #"{"jsonrpc":"2.0","id":1,"method":"aria2.addUri","params":["token:tok",["\#(url)"]]}"#,
            extra: "Origin: \(origin)\r\n")
        #expect(added.status == 200, "\(added.text)")
        #expect(added.headers["access-control-allow-origin"] == origin)
        #expect(GID.id(of: added.json?["result"] as? String ?? "") != nil)
        let noToken = try c.post(
            #"{"jsonrpc":"2.0","id":2,"method":"aria2.addUri","params":[["\#(url)2"]]}"#,
            extra: "Origin: \(origin)\r\n")
        #expect(errorMessage(noToken) == "Unauthorized")
        let ws = try RawHTTPClient(port: h.port)
        #expect(
            try ws.upgrade(extra: "Origin: moz-extension://0f1c2d3e-aaaa-bbbb-cccc-1234567890ab\r\n") == 101)
        try ws.sendText(
            #"{"jsonrpc":"2.0","id":"t","method":"aria2.tellWaiting","params":["token:tok",0,9]}"#)
        let waiting = try ws.receive { $0["id"] as? String == "t" }
        #expect((waiting["result"] as? [[String: Any]])?.count == 1)
        #expect(try h.eventCount() == before + 1)
    }

    /// `--rpc-allow-origin https://ariang.example`: that page calls (preflight, POST, WebSocket); others do not.
    @Test func anAllowedOriginCallsAndIsToldSo() throws {
        let h = try RPCHarness(secret: "tok", config: .init(allowedOrigins: ["https://ariang.example/"]))
        let c = try RawHTTPClient(port: h.port)
        let preflight = try c.request(
            "OPTIONS", "/jsonrpc",
            extra: "Origin: https://ariang.example\r\nAccess-Control-Request-Method: POST\r\n"
                + "Access-Control-Request-Headers: content-type\r\n")
        #expect(preflight.status == 200)
        #expect(preflight.headers["access-control-allow-origin"] == "https://ariang.example")
        #expect(preflight.headers["vary"] == "Origin")
        let post = try c.post(
            #"{"jsonrpc":"2.0","id":1,"method":"aria2.getVersion","params":["token:tok"]}"#,
            extra: "Origin: https://ariang.example\r\n")
        #expect(post.status == 200)
        #expect(post.headers["access-control-allow-origin"] == "https://ariang.example")
        #expect(try RawHTTPClient(port: h.port).upgrade(extra: "Origin: https://ariang.example\r\n") == 101)
        let other = try RawHTTPClient(port: h.port).request(
            "OPTIONS", "/jsonrpc",
            extra: "Origin: https://other.example\r\nAccess-Control-Request-Method: POST\r\n")
        #expect(other.status == 403 && other.headers["access-control-allow-origin"] == nil)
    }

    /// JSONP is answered only when its params carry the secret.
    @Test func jsonpNeedsTheToken() throws {
        let h = try RPCHarness(secret: "tok")
        let c = try RawHTTPClient(port: h.port)
        let good = try c.request(
            "GET", "/jsonrpc?method=aria2.getVersion&id=1&jsoncallback=cb&params=\(b64(#"["token:tok"]"#))")
        #expect(good.status == 200 && good.text.hasPrefix("cb({"))
        let wrong = try c.request(
            "GET", "/jsonrpc?method=aria2.getVersion&id=1&jsoncallback=cb&params=\(b64(#"["token:no"]"#))")
        #expect(wrong.status == 403 && !wrong.text.hasPrefix("cb("))
        #expect(errorMessage(wrong).contains("JSONP needs the secret"))
        // Listing the methods needs no token in aria2, but JSONP does here.
        let open = try c.request("GET", "/jsonrpc?method=system.listMethods&id=1&jsoncallback=cb")
        #expect(open.status == 403)
        let shutdown = try c.request(
            "GET", "/jsonrpc?method=aria2.shutdown&id=1&jsoncallback=cb&params=\(b64(#"["token:no"]"#))")
        #expect(shutdown.status == 403)
        #expect(h.shutdowns.count == 0)
    }
}
