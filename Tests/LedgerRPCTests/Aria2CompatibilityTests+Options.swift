import DownloadLedger
import Foundation
import LedgerRPC
import Testing

extension Aria2CompatibilityTests {
    /// The request options given to `addUri` and changed by `changeOption` read back from `getOption` as aria2c
    /// reads them back (strings, the same values), and several URIs are one download's URIs on both.
    @Test func requestOptionsReadBackAsAria2ReadsThem() async throws {
        let h = try RPCHarness(listen: false)
        let aria2 = try Aria2c(dir: h.root + "/aria2")
        let ready = await eventually(10) { (try? aria2.call("aria2.getVersion"))?["result"] != nil }
        try #require(ready, "aria2c did not start")
        let url = h.file("o.bin", size: 100_000, seed: 9)
        let mirror = h.files.url("/mirror/o.bin")
        // Paused on aria2's side so that it stays a download it answers options for.
        let params =
            #"[["\#(url)","\#(mirror)"],{"header":["X-A: 1","X-B: two"],"user-agent":"AriaNg/1.3","referer":"http://example.org/p","all-proxy":"http://127.0.0.1:3128","max-download-limit":"100K","split":"4","pause":"true"}]"#
        let a = try #require(try aria2.call("aria2.addUri", params)["result"] as? String)
        let d = try #require(try h.result("aria2.addUri", params) as? String)
        let change = #"{"max-download-limit":"200K","user-agent":"AriaNg/1.4"}"#
        #expect(try aria2.call("aria2.changeOption", #"["\#(a)",\#(change)]"#)["result"] as? String == "OK")
        #expect(try h.result("aria2.changeOption", #"["\#(d)",\#(change)]"#) as? String == "OK")

        let aOptions = try #require(
            try aria2.call("aria2.getOption", #"["\#(a)"]"#)["result"] as? [String: String])
        let dOptions = try #require(try h.result("aria2.getOption", #"["\#(d)"]"#) as? [String: String])
        #expect(
            Set(dOptions.keys).isSubset(of: aOptions.keys), "\(Set(dOptions.keys).subtracting(aOptions.keys))"
        )
        for key in ["header", "user-agent", "referer", "all-proxy", "max-download-limit", "split"] {
            #expect(
                dOptions[key] == aOptions[key],
                "\(key): dledger \(dOptions[key] ?? "-"), aria2 \(aOptions[key] ?? "-")")
        }
        let aURIs = try #require(
            try aria2.call("aria2.getUris", #"["\#(a)"]"#)["result"] as? [[String: String]])
        let dURIs = try #require(try h.result("aria2.getUris", #"["\#(d)"]"#) as? [[String: String]])
        #expect(Set(dURIs.compactMap { $0["uri"] }) == Set(aURIs.compactMap { $0["uri"] }))
    }
}

extension Aria2CompatibilityTests {
    /// `changeGlobalOption` of `max-connection-per-server` and `min-split-size` reads back from `getGlobalOption`
    /// as aria2c reads it back (decimal strings, bytes); a bad value is refused by both with code 1 and changes
    /// neither option, on either side.
    @Test func globalSplitOptionsReadBackAsAria2ReadsThem() async throws {
        let h = try RPCHarness(listen: false)
        let aria2 = try Aria2c(dir: h.root + "/aria2")
        let ready = await eventually(10) { (try? aria2.call("aria2.getVersion"))?["result"] != nil }
        try #require(ready, "aria2c did not start")
        let keys = ["max-connection-per-server", "min-split-size"]
        for change in [
            #"[{"max-connection-per-server":"4","min-split-size":"4M"}]"#,
            #"[{"max-connection-per-server":"16","min-split-size":"1024K"}]"#,
            #"[{"min-split-size":"1024M"}]"#,
        ] {
            #expect(try aria2.call("aria2.changeGlobalOption", change)["result"] as? String == "OK")
            #expect(try h.result("aria2.changeGlobalOption", change) as? String == "OK")
            let a = try #require(try aria2.call("aria2.getGlobalOption")["result"] as? [String: String])
            let d = try #require(try h.result("aria2.getGlobalOption") as? [String: String])
            for key in keys {
                #expect(
                    d[key] == a[key], "\(change) \(key): dledger \(d[key] ?? "-"), aria2 \(a[key] ?? "-")")
            }
        }
        let before = try h.eventCount()
        for bad in [
            #"[{"max-connection-per-server":"0"}]"#, #"[{"max-connection-per-server":"17"}]"#,
            #"[{"max-connection-per-server":"x"}]"#, #"[{"min-split-size":"1023K"}]"#,
            #"[{"min-split-size":"1025M"}]"#, #"[{"min-split-size":"0"}]"#,
            #"[{"max-connection-per-server":"2","min-split-size":"2k"}]"#,
        ] {
            let a =
                (try aria2.call("aria2.changeGlobalOption", bad)["error"] as? [String: Any])?["code"] as? Int
            #expect(a == 1 && h.errorCode("aria2.changeGlobalOption", bad) == 1, "\(bad)")
        }
        #expect(try h.eventCount() == before)
        let a = try #require(try aria2.call("aria2.getGlobalOption")["result"] as? [String: String])
        let d = try #require(try h.result("aria2.getGlobalOption") as? [String: String])
        #expect(d["max-connection-per-server"] == "16" && a["max-connection-per-server"] == "16")
        #expect(d["min-split-size"] == "1073741824" && a["min-split-size"] == "1073741824")
    }
}

extension Aria2CompatibilityTests {
    /// `changeGlobalOption` of `user-agent` reads back from `getGlobalOption` as aria2c reads it back, sent again
    /// unchanged it is still "OK" (AriaNg sends every option when it saves), and it is the ledger's user-agent
    /// setting, which `dledger set user-agent` shows.
    @Test func theGlobalUserAgentReadsBackAsAria2ReadsItAndIsTheLedgers() async throws {
        let h = try RPCHarness(listen: false)
        let aria2 = try Aria2c(dir: h.root + "/aria2")
        let ready = await eventually(10) { (try? aria2.call("aria2.getVersion"))?["result"] != nil }
        try #require(ready, "aria2c did not start")
        let change = #"[{"user-agent":"AriaNg/1.4 (shared)"}]"#
        for _ in 0..<2 {
            #expect(try aria2.call("aria2.changeGlobalOption", change)["result"] as? String == "OK")
            #expect(try h.result("aria2.changeGlobalOption", change) as? String == "OK")
            let a = try #require(try aria2.call("aria2.getGlobalOption")["result"] as? [String: String])
            let d = try #require(try h.result("aria2.getGlobalOption") as? [String: String])
            #expect(d["user-agent"] == a["user-agent"], "dledger \(d["user-agent"] ?? "-")")
        }
        #expect(h.ledger.latestList[.userAgent].text == "AriaNg/1.4 (shared)")
        let before = try h.eventCount()
        #expect(h.errorCode("aria2.changeGlobalOption", #"[{"user-agent":"a\u0007b"}]"#) == 1)
        #expect(try h.eventCount() == before)
    }
}
