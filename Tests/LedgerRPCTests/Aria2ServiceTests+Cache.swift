import DownloadLedger
import Foundation
import LedgerRPC
import Synchronization
import Testing

/// The polled reads are encoded once per state of the list and the transfers: never older than uncached ones.
extension Aria2ServiceTests {
    static func body(_ method: String, _ params: String, id: Int) -> [UInt8] {
        Array(#"{"jsonrpc":"2.0","id":\#(id),"method":"\#(method)","params":\#(params)}"#.utf8)
    }

    @Test func aCachedReplyIsTheBytesAnUncachedOneWouldBe() throws {
        let h = try RPCHarness(listen: false)
        for name in ["a", "b", "c"] { _ = try h.result("aria2.addUri", #"[["\#(h.file(name))"]]"#) }
        let gid = try #require(
            (try h.result("aria2.tellWaiting", "[0,1,[\"gid\"]]") as? [[String: String]])?[0]["gid"])
        let calls = [
            ("aria2.tellWaiting", "[0,1000]"), ("aria2.tellWaiting", #"[-1,2,["gid","status"]]"#),
            ("aria2.tellActive", "[]"), ("aria2.getGlobalStat", "[]"), ("aria2.tellStatus", #"["\#(gid)"]"#),
            ("aria2.tellStopped", "[0,10]"),
        ]
        for (method, params) in calls {
            let first = h.service.reply(to: Self.body(method, params, id: 1))
            let again = h.service.reply(to: Self.body(method, params, id: 2))
            // A service of its own has nothing cached: it computes the reply.
            let fresh = Aria2Service(ledger: h.ledger).reply(to: Self.body(method, params, id: 2))
            #expect(again.bytes == fresh.bytes, "\(method) \(params)")
            #expect(first.bytes != again.bytes)  // the id is the caller's
            #expect(!again.isError)
        }
    }

    @Test func aChangeIsInTheNextRead() throws {
        let h = try RPCHarness(listen: false)
        let urls = ["a", "b", "c"].map { h.file($0) }
        for url in urls { _ = try h.result("aria2.addUri", #"[["\#(url)"]]"#) }
        func waiting() throws -> [String] {
            let reply = h.service.reply(to: Self.body("aria2.tellWaiting", #"[0,1000,["gid"]]"#, id: 1))
            let json = try JSONSerialization.jsonObject(with: Data(reply.bytes)) as? [String: Any]
            return (json?["result"] as? [[String: String]])?.compactMap { $0["gid"] } ?? []
        }
        let three = try waiting()
        #expect(three.count == 3)
        // Over RPC, and through the ledger as the CLI does it: each shows at once.
        _ = try h.result("aria2.remove", #"["\#(three[0])"]"#)
        #expect(try waiting() == Array(three.dropFirst()))
        try h.ledger.execute(.move([try #require(GID.id(of: three[2]))], to: Location(section: 0, index: 0)))
        #expect(try waiting() == [three[2], three[1]])
    }

    @Test func newActivityIsInTheNextRead() throws {
        let h = try RPCHarness(listen: false)
        let speed = Mutex(1000.0)
        let service = Aria2Service(
            ledger: h.ledger,
            activity: {
                [TransferActivity(id: 1, bytes: 10, expected: 100, speed: speed.withLock { $0 }, eta: nil)]
            })
        func downloadSpeed() throws -> String? {
            let reply = service.reply(to: Self.body("aria2.getGlobalStat", "[]", id: 1))
            let json = try JSONSerialization.jsonObject(with: Data(reply.bytes)) as? [String: Any]
            return (json?["result"] as? [String: String])?["downloadSpeed"]
        }
        #expect(try downloadSpeed() == "1000")
        #expect(try downloadSpeed() == "1000")
        speed.withLock { $0 = 2500 }
        #expect(try downloadSpeed() == "2500")
    }
}
