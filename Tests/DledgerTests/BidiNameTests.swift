import Foundation
import LoopbackHTTP
import Testing

/// A name a user gives may not hold a bidirectional control (issue 26 §8): `report\u{202E}txt.exe` would show as
/// `reportexe.txt`. `add --name`, `get --name` and `rename` refuse it with one line, exit 64, and change nothing.
@Suite struct BidiNameTests {
    static let spoof = "report\u{202E}txt.exe"
    static let line =
        "error: invalid name 'report\\u{202E}txt.exe': contains the bidirectional control U+202E, which makes a "
        + "name display as another\n"

    @Test func addAndGetRefuseABidiNameAndCreateNothing() async throws {
        let box = try DledgerSandbox()
        let server = try LoopbackServer()
        defer { server.stop() }
        server.serve("/f.bin", Resource(size: 1000, seed: 1))
        for command in ["add", "get"] {
            let r = try await box.run(command, server.url("/f.bin"), "--name", Self.spoof)
            #expect(r.status == 64, "\(command): \(r.err)")
            #expect(r.err == Self.line, "\(command)")
            #expect(r.out.isEmpty)
        }
        #expect(!FileManager.default.fileExists(atPath: box.ledger))
        #expect(server.requests("/f.bin").isEmpty)
        #expect(try FileManager.default.contentsOfDirectory(atPath: box.downloads).isEmpty)
    }

    @Test(arguments: ["\u{061C}", "\u{200E}", "\u{200F}", "\u{202A}", "\u{202D}", "\u{2066}", "\u{2069}"])
    func renameRefusesEveryBidiControlAndAppendsNothing(_ control: String) async throws {
        let box = try DledgerSandbox()
        try await box.run("add", "http://example.com/a.bin")
        let before = try await box.eventCount()
        let r = try await box.run("rename", "1", "a\(control)b.bin")
        #expect(r.status == 64)
        #expect(r.err.hasPrefix("error: invalid name 'a\\u{"), "\(r.err)")
        #expect(r.err.contains(": contains the bidirectional control U+"))
        #expect(!r.err.contains(control), "the control is shown escaped")
        #expect(r.err.filter { $0 == "\n" }.count == 1)
        #expect(try await box.eventCount() == before)
        #expect(try await box.task(1)?["name"] as? String == "a.bin")
    }
}
