import DownloadLedger
import Foundation
import LedgerRPC
import Testing

/// A referer with a `user:password` given over RPC (issue 26 §7): sealed, `getOption` shows `[redacted]`, the
/// file server gets the real `Referer`, and a new referer without a login drops the old one.
@Suite struct RefererRPCTests {
    static let password = "S3CR3T-rpc-referer-a9c3"

    @Test func aReferersLoginIsSealedSentAndShownRedacted() async throws {
        let h = try RPCHarness(download: true, listen: false)
        let url = h.file("f.bin", size: 40_000, seed: 96)
        let referer = "https://agent:\(Self.password)@portal.example/p"
        let gid = try #require(
            try h.result("aria2.addUri", #"[["\#(url)"],{"referer":"\#(referer)"}]"#) as? String)
        let id = try #require(GID.id(of: gid))
        #expect(await eventually(15) { h.ledger.list.tasks[id]?.state == .finished })
        #expect(!h.files.requests("/f.bin").isEmpty)
        #expect(h.files.requests("/f.bin").allSatisfy { $0.headers["referer"] == referer })

        let options = try #require(try h.result("aria2.getOption", #"["\#(gid)"]"#) as? [String: String])
        #expect(options["referer"] == "https://[redacted]@portal.example/p")
        #expect(h.ledger.checkpoint())
        let file = try Data(contentsOf: URL(fileURLWithPath: h.ledgerPath))
        #expect(file.range(of: Data(Self.password.utf8)) == nil)

        // Another referer, without a login: the sealed one does not stay with it.
        #expect(
            try h.result("aria2.changeOption", #"["\#(gid)",{"referer":"https://other.example/"}]"#)
                as? String
                == "OK")
        #expect(h.ledger.list.tasks[id]?.options.refererUserinfo == nil)
        #expect(h.ledger.list.tasks[id]?.options.referer == "https://other.example/")
    }
}
