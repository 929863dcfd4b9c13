import Foundation
import LedgerRPCServer
import Testing

/// The header checks of the endpoint, without a socket (the same requests on the wire: `RPCServerTests+Admission`).
@Suite struct RPCAdmissionTests {
    let closed = RPCAdmission(origins: ["https://ariang.example/index.html"])

    func admitted(_ verdict: RPCAdmission.Verdict) -> Bool {
        if case .admit = verdict { return true }
        return false
    }

    @Test func aWebPageIsRefusedUnlessItsOriginIsAllowed() {
        let host = "127.0.0.1:6800"
        #expect(!admitted(closed.check(origin: "http://evil.example", host: host)))
        #expect(!admitted(closed.check(origin: "https://ariang.example.evil.example", host: host)))
        #expect(!admitted(closed.check(origin: "http://ariang.example", host: host)), "another scheme")
        #expect(!admitted(closed.check(origin: "https://ariang.example:8443", host: host)), "another port")
        #expect(
            closed.check(origin: "https://ariang.example", host: host)
                == .admit(allowOrigin: "https://ariang.example"))
        #expect(admitted(closed.check(origin: "https://ARIANG.example:443", host: host)))
        // A file:// page, a sandboxed frame or a redirect sends "null": refused, as is any other scheme.
        #expect(!admitted(closed.check(origin: "null", host: host)))
        #expect(!admitted(closed.check(origin: "file://", host: host)))
        #expect(!admitted(closed.check(origin: "data:text/html", host: host)))
        let all = RPCAdmission(allowOriginAll: true)
        #expect(all.check(origin: "http://evil.example", host: host) == .admit(allowOrigin: "*"))
        #expect(all.check(origin: "null", host: host) == .admit(allowOrigin: "*"))
    }

    @Test func browserExtensionsAndClientsWithoutAnOriginAreAdmitted() {
        let host = "localhost:6800"
        let chrome = "chrome-extension://mpkodccbngfoacfalldjimigbofkhgjn"
        #expect(closed.check(origin: chrome, host: host) == .admit(allowOrigin: chrome))
        #expect(
            admitted(closed.check(origin: "moz-extension://0f1c2d3e-aaaa-bbbb-cccc-1234567890ab", host: host))
        )
        #expect(!admitted(closed.check(origin: "chrome-extension:evil", host: host)))
        #expect(closed.check(origin: nil, host: host) == .admit(allowOrigin: nil))
        #expect(closed.check(origin: nil, host: nil) == .admit(allowOrigin: nil))
        // Python's websocket-client names the server itself as the origin.
        #expect(admitted(closed.check(origin: "http://localhost:6800", host: host)))
        #expect(!admitted(closed.check(origin: "http://localhost:6801", host: host)))
    }

    @Test func aRequestAScriptOrImageOfAnotherSiteMadeIsRefused() {
        let host = "127.0.0.1:6800"
        #expect(!admitted(closed.check(origin: nil, host: host, fetchSite: "cross-site")))
        #expect(!admitted(closed.check(origin: nil, host: host, fetchSite: "same-site")))
        #expect(admitted(closed.check(origin: nil, host: host, fetchSite: "none")))
        #expect(
            admitted(
                closed.check(
                    origin: nil, host: host, fetchSite: "cross-site",
                    referer: "https://ariang.example/#!/downloading")))
        #expect(
            !admitted(
                closed.check(
                    origin: nil, host: host, fetchSite: "cross-site", referer: "https://evil.example/")))
    }

    @Test func aHostThatIsNotThisServerIsRefused() {
        for host in [
            "localhost", "localhost:6800", "LOCALHOST.:1", "127.0.0.1", "127.0.0.1:6800", "[::1]:6800",
            "[::1]",
        ] {
            #expect(admitted(closed.check(origin: nil, host: host)), "\(host)")
        }
        for host in [
            "evil.example", "evil.example:6800", "127.0.0.1.evil.example", "localhost.evil.example:6800",
            "10.0.0.5:6800",
            "[::2]:6800", "127.0.0.1:0", "127.0.0.1:99999", "127.0.0.1:x", "[::1", "a:b:c",
        ] {
            #expect(!admitted(closed.check(origin: nil, host: host)), "\(host)")
        }
        let named = RPCAdmission(hostNames: ["NAS"], anyAddress: true)
        #expect(admitted(named.check(origin: nil, host: "nas:6800")))
        #expect(admitted(named.check(origin: nil, host: "192.168.1.20:6800")))
        #expect(admitted(named.check(origin: nil, host: "[fe80::1]:6800")))
        #expect(!admitted(named.check(origin: nil, host: "rebind.evil.example:6800")))
    }

    @Test func originsAreComparedAsBrowsersSendThem() {
        #expect(
            RPCAdmission.origin(of: "https://AriaNg.example/x/index.html?a#b") == "https://ariang.example")
        #expect(RPCAdmission.origin(of: "http://h:80/") == "http://h")
        #expect(RPCAdmission.origin(of: "http://h:8080") == "http://h:8080")
        #expect(RPCAdmission.origin(of: "http://[::1]:6880/") == "http://[::1]:6880")
        for bad in [
            "null", "ftp://h", "h", "http://", "http://user@h", "http://h:0", "http://h:70000", "file:///x",
        ] {
            #expect(RPCAdmission.origin(of: bad) == nil, "\(bad)")
        }
    }

    @Test func theTokenOfAJSONPRequestIsReadWithoutParsing() {
        func b64(_ s: String) -> String { Data(s.utf8).base64EncodedString() }
        #expect(
            RPCAdmission.token(base64Params: b64(#" [ "token:s3cret", ["http://h/a"]]"#))
                == Array("s3cret".utf8))
        #expect(RPCAdmission.token(base64Params: b64(#"["token:"]"#)) == [])
        #expect(RPCAdmission.token(base64Params: b64(#"[["http://h/a"]]"#)) == nil)
        #expect(RPCAdmission.token(base64Params: b64(#"["tok\u0065n:s3cret"]"#)) == nil)
        #expect(RPCAdmission.token(base64Params: b64(#"["token:s3\"cret"]"#)) == nil)
        #expect(RPCAdmission.token(base64Params: b64(#"["token:s3cret"#)) == nil)
        #expect(RPCAdmission.token(base64Params: nil) == nil)
        #expect(RPCAdmission.token(base64Params: "%%%") == nil)
        // base64url and a query's '+' turned into a space.
        let raw = b64(#"["token:>>?"]"#)
        #expect(raw.contains("+"))
        #expect(
            RPCAdmission.token(base64Params: raw.replacingOccurrences(of: "+", with: " "))
                == Array(">>?".utf8))
        #expect(
            RPCAdmission.token(base64Params: raw.replacingOccurrences(of: "+", with: "-"))
                == Array(">>?".utf8))
    }
}
