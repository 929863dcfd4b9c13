import DownloadLedger
import Foundation
import LedgerRPC
import Testing

/// A name given over RPC (`out`) is checked as the CLI's `--name` is: a bidirectional control (U+202E and the
/// others) is refused with aria2's error shape and one clear line, and nothing is appended (issue 26 §8).
@Suite struct NameRPCTests {
    @Test(arguments: ["report\u{202E}txt.exe", "a\u{2066}b.bin", "\u{200F}x.bin", "y\u{061C}.bin"])
    func anOutWithABidiControlIsRefused(_ out: String) throws {
        let h = try RPCHarness(listen: false)
        let url = h.file("a.bin")
        let before = try h.eventCount()
        let escaped = out.unicodeScalars.map { $0.isASCII ? String($0) : String(format: "\\u%04X", $0.value) }
            .joined()
        let reply = h.call("aria2.addUri", #"[["\#(url)"],{"out":"\#(escaped)"}]"#)
        let error = try #require(reply["error"] as? [String: Any], "\(reply)")
        #expect(error["code"] as? Int == 1)
        let message = try #require(error["message"] as? String)
        #expect(message.contains("contains the bidirectional control U+"), "\(message)")
        #expect(!message.contains("\n"))
        #expect(reply["result"] == nil)
        #expect(try h.eventCount() == before)
        #expect(h.ledger.list.tasks.values.isEmpty)
    }

    @Test func anOutOfRightToLeftTextIsTaken() throws {
        let h = try RPCHarness(listen: false)
        let url = h.file("a.bin")
        let gid = try #require(
            try h.result("aria2.addUri", #"[["\#(url)"],{"out":"\u05D3\u05D5\u05D7.pdf"}]"#) as? String)
        let id = try #require(GID.id(of: gid))
        #expect(h.ledger.list.tasks[id]?.displayName == "דוח.pdf")
    }
}
