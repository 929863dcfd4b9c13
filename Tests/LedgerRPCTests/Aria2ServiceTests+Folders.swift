import DownloadLedger
import Foundation
import LedgerRPC
import Testing

/// A `dir` given over RPC stays inside the download folders (issue 26: a page wrote `evil.sh` anywhere).
@Suite struct Aria2FolderTests {
    func reply(_ service: Aria2Service, _ method: String, _ params: String) -> [String: Any] {
        let body = #"{"jsonrpc":"2.0","id":1,"method":"\#(method)","params":\#(params)}"#
        let r = service.reply(to: Array(body.utf8))
        return (try? JSONSerialization.jsonObject(with: Data(r.bytes)) as? [String: Any]) ?? [:]
    }

    func message(_ reply: [String: Any]) -> String {
        (reply["error"] as? [String: Any])?["message"] as? String ?? ""
    }

    @Test func aDirOutsideTheDownloadFoldersIsRefusedAndChangesNothing() throws {
        let h = try RPCHarness(listen: false)
        let before = try h.eventCount()
        let url = h.file("evil.sh")
        for dir in [
            "/tmp", "/etc/xdg/autostart", h.root, h.downloads + "/../elsewhere", "/", h.downloads + "x",
        ] {
            let r = h.call("aria2.addUri", #"[["\#(url)"],{"dir":"\#(dir)"}]"#)
            #expect((r["error"] as? [String: Any])?["code"] as? Int == 1, "\(dir)")
            #expect(message(r).contains("is outside the download folders (\(h.downloads))"), "\(message(r))")
            #expect(message(r).contains("dledger serve --allow-dir"))
        }
        let global = h.call("aria2.changeGlobalOption", #"[{"dir":"/etc","max-concurrent-downloads":"7"}]"#)
        #expect(message(global).contains("outside the download folders"))
        // Nothing of that call was applied: not the dir, not the other option.
        let options = try #require(try h.result("aria2.getGlobalOption") as? [String: Any])
        #expect(options["dir"] as? String == h.downloads)
        #expect(options["max-concurrent-downloads"] as? String != "7")
        #expect(try h.eventCount() == before)
        #expect(!FileManager.default.fileExists(atPath: "/tmp/evil.sh"))
    }

    @Test func aLinkInsideTheDownloadFolderIsNotFollowed() throws {
        let h = try RPCHarness(listen: false)
        let outside = h.root + "/outside"
        try FileManager.default.createDirectory(atPath: outside, withIntermediateDirectories: true)
        try FileManager.default.createSymbolicLink(atPath: h.downloads + "/out", withDestinationPath: outside)
        try FileManager.default.createDirectory(
            atPath: h.downloads + "/sub", withIntermediateDirectories: true)
        let url = h.file("a.bin")
        let before = try h.eventCount()
        for dir in [h.downloads + "/out", h.downloads + "/out/deeper", h.downloads + "/sub/../out"] {
            let r = h.call("aria2.addUri", #"[["\#(url)"],{"dir":"\#(dir)"}]"#)
            #expect(message(r).contains("\(h.downloads)/out is a symbolic link"), "\(dir): \(message(r))")
        }
        #expect(try h.eventCount() == before)
        // A real subfolder, or one not made yet, is inside.
        for (i, dir) in [h.downloads, h.downloads + "/sub", h.downloads + "/new/deeper"].enumerated() {
            let r = h.call("aria2.addUri", #"[["\#(url)?\#(i)"],{"dir":"\#(dir)"}]"#)
            #expect(r["result"] is String, "\(dir): \(r)")
        }
    }

    @Test func theServersDirAndFoldersTheUserAllowedAreInside() throws {
        let h = try RPCHarness(listen: false)
        let allowed = h.root + "/allowed"
        let served = h.root + "/served"
        for dir in [allowed, served] {
            try FileManager.default.createDirectory(atPath: dir, withIntermediateDirectories: true)
        }
        // The user may name a folder by a link of theirs: it is opened as named, and either spelling is inside.
        try FileManager.default.createSymbolicLink(atPath: h.root + "/alias", withDestinationPath: allowed)
        let service = Aria2Service(ledger: h.ledger, dir: served, allowedDirectories: [h.root + "/alias"])
        let url = h.file("a.bin")
        for (i, dir) in [served, served + "/x", h.root + "/alias/y", allowed + "/z", h.downloads].enumerated()
        {
            let r = reply(service, "aria2.addUri", #"[["\#(url)?\#(i)"],{"dir":"\#(dir)"}]"#)
            #expect(r["result"] is String, "\(dir): \(r)")
        }
        let outside = reply(service, "aria2.addUri", #"[["\#(url)?o"],{"dir":"\#(h.root)"}]"#)
        #expect(message(outside).contains("outside the download folders"))
        #expect(message(outside).contains(h.root + "/alias"))
        let global = reply(service, "aria2.changeGlobalOption", #"[{"dir":"\#(allowed)/w"}]"#)
        #expect(global["result"] as? String == "OK")
    }
}
