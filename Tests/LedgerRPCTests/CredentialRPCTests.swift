import DownloadLedger
import Foundation
import LedgerRPC
import LedgerStore
import TestSupport
import Testing

/// Credentials from a browser extension: `addUri` over HTTP with `Authorization`, `Cookie` and an `all-proxy`
/// with user and password. The file server (origin and proxy) gets them; no reply, no byte of the ledger holds
/// them; purging the download result deletes the key and the log still verifies.
@Suite struct CredentialRPCTests {
    static let bearer = "Bearer S3CR3T-rpc-bearer-d1e2"
    static let cookie = "sid=S3CR3T-rpc-cookie-f3a4"
    static let password = "S3CR3T-rpc-pass-b5c6"

    /// The secrets as they could leak: in clear, and the proxy's `user:password` as curl encodes it.
    static var forms: [String] {
        [bearer, cookie, password, "S3CR3T", Data("agent:\(password)".utf8).base64EncodedString()]
    }

    @Test func addUriSealsTheCredentialsTheServerGetsThemAndNoReplyShowsThem() async throws {
        let h = try RPCHarness(download: true)
        _ = h.file("r.bin", size: 50_000, seed: 95)
        let proxy = "http://agent:\(Self.password)@127.0.0.1:\(h.files.port)"
        let params =
            #"[["http://files.invalid/r.bin"],{"header":["Authorization: \#(Self.bearer)","Cookie: \#(Self.cookie)","X-Ext: 1"],"all-proxy":"\#(proxy)"}]"#
        let client = try RawHTTPClient(port: h.port)
        let added = try client.post(
            #"{"jsonrpc":"2.0","id":"1","method":"aria2.addUri","params":\#(params)}"#)
        let gid = try #require(added.json?["result"] as? String, "\(added.text)")
        let id = try #require(GID.id(of: gid))
        #expect(await eventually(15) { h.ledger.list.tasks[id]?.state == .finished })
        let requests = h.files.requests("/r.bin")
        #expect(!requests.isEmpty)
        for r in requests {
            #expect(r.headers["authorization"] == Self.bearer && r.headers["cookie"] == Self.cookie)
            #expect(r.headers["proxy-authorization"] == "Basic " + Self.forms[4])
            #expect(r.headers["x-ext"] == "1")
        }

        var replies = added.text
        for (method, arguments) in [
            ("aria2.tellStatus", #"["\#(gid)"]"#), ("aria2.getOption", #"["\#(gid)"]"#),
            ("aria2.tellStopped", "[0,10]"), ("dledger.log", "[0,100]"), ("dledger.audit", #"["\#(gid)"]"#),
            ("dledger.replay", "[3]"),
        ] {
            let reply = try client.post(
                #"{"jsonrpc":"2.0","id":"2","method":"\#(method)","params":\#(arguments)}"#)
            #expect(reply.json?["error"] == nil, "\(method): \(reply.text)")
            replies += reply.text
        }
        let options = try #require(try h.result("aria2.getOption", #"["\#(gid)"]"#) as? [String: String])
        #expect(options["header"] == "Authorization: [redacted]\nCookie: [redacted]\nX-Ext: 1\n")
        #expect(options["all-proxy"]?.contains("[redacted]@127.0.0.1") == true)
        for form in Self.forms { #expect(!replies.contains(form), "\(form)") }
        #expect(h.ledger.checkpoint())
        let file = try Data(contentsOf: URL(fileURLWithPath: h.ledgerPath))
        for form in Self.forms { #expect(file.range(of: Data(form.utf8)) == nil, "\(form)") }

        // The result removed, then purged: the key goes with the task, the chain still verifies.
        #expect(try h.result("aria2.removeDownloadResult", #"["\#(gid)"]"#) as? String == "OK")
        #expect(try SQLiteEventStore(path: h.ledgerPath, readOnly: true).vaultTasks() == [id])
        #expect(try h.result("aria2.purgeDownloadResult") as? String == "OK")
        #expect(try SQLiteEventStore(path: h.ledgerPath, readOnly: true).vaultTasks().isEmpty)
        let verify = try #require(try h.result("dledger.verify") as? [String: Any])
        #expect(verify["valid"] as? Bool == true, "\(verify)")
    }

    /// A URI with a login (`http://user:pass@host/…`, as a browser extension forwards one): sealed like a header,
    /// the server gets it as a URL's login, and `getUris`/`tellStatus` answer the URI without it.
    @Test func aLoginInTheUriIsSealedAndTheUriReadsBackWithoutIt() async throws {
        let h = try RPCHarness(download: true)
        _ = h.file("u.bin", size: 40_000, seed: 96)
        let bare = "http://127.0.0.1:\(h.files.port)/u.bin"
        let login = "eve:S3CR3T-rpc-login-7c8d"
        let withLogin = bare.replacingOccurrences(of: "http://", with: "http://\(login)@")
        let gid = try #require(try h.result("aria2.addUri", #"[["\#(withLogin)"]]"#) as? String)
        let id = try #require(GID.id(of: gid))
        #expect(await eventually(15) { h.ledger.list.tasks[id]?.state == .finished })
        let basic = "Basic " + Data(login.utf8).base64EncodedString()
        #expect(!h.files.requests("/u.bin").isEmpty)
        #expect(h.files.requests("/u.bin").allSatisfy { $0.headers["authorization"] == basic })
        let uris = try #require(try h.result("aria2.getUris", #"["\#(gid)"]"#) as? [[String: Any]])
        #expect(uris.first?["uri"] as? String == bare)
        #expect(h.ledger.checkpoint())
        let file = try Data(contentsOf: URL(fileURLWithPath: h.ledgerPath))
        #expect(file.range(of: Data("S3CR3T-rpc-login".utf8)) == nil)
    }
}
