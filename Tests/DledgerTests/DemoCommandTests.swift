import Foundation
import Testing

@Suite struct DemoCommandTests {
    @Test func demoRunsToCompletionAndCleansUp() async throws {
        let box = try DledgerSandbox()
        let start = Date()
        let r = try await box.run("demo")
        let elapsed = Date().timeIntervalSince(start)
        #expect(r.status == 0, "\(r.err)")
        // The help's claim is the program's: about 5 s (its transfers are throttled to take ~4 s; the bound is
        // loose for a loaded machine, the claim is what a user reads).
        #expect(try await box.run("demo", "--help").out.contains("about 5 seconds"))
        #expect(elapsed < 20, "the demo took \(elapsed) s")
        for heading in [
            "1. A ledger", "2. Parallel downloads", "3. Pause and resume", "4. The to-delete list", "5. Undo",
            "6. Replay", "7. Audit", "8. Verify",
        ] {
            #expect(r.out.contains(heading), "\(heading)")
        }
        #expect(r.out.contains("The server saw talk.mp4 requested with: Range: bytes="))
        #expect(r.out.contains("ok: hash chain intact"))
        #expect(r.out.contains("finished #2 talk.mp4"))
        let left = try FileManager.default.contentsOfDirectory(atPath: box.root).filter {
            $0.hasPrefix("dledger-demo")
        }
        #expect(left.isEmpty)
        // The tour downloads into its temporary folder, never into the user's download folder or home.
        #expect(r.out.contains("downloads will go to \(box.root)/dledger-demo-"), "\(r.out.prefix(2000))")
        #expect(try FileManager.default.contentsOfDirectory(atPath: box.downloads) == [])
        #expect(try FileManager.default.contentsOfDirectory(atPath: box.home) == [])
    }

    /// With `--keep`, the files are where the demo says it kept them, and nowhere else.
    @Test func keptDemoHoldsItsFilesInItsOwnFolder() async throws {
        let box = try DledgerSandbox()
        let r = try await box.run("demo", "--keep")
        #expect(r.status == 0, "\(r.err)")
        let line = try #require(r.out.split(separator: "\n").first { $0.hasPrefix("kept: ledger ") })
        let kept = try #require(line.range(of: "downloads in ").map { String(line[$0.upperBound...]) })
        #expect(kept.hasPrefix(box.root + "/dledger-demo-"))
        let names = try FileManager.default.contentsOfDirectory(atPath: kept).filter { !$0.hasPrefix(".") }
        #expect(names.sorted() == ["debian-mini.iso", "manual.pdf", "notes.txt", "song.flac", "talk.mp4"])
        #expect(try FileManager.default.contentsOfDirectory(atPath: box.downloads) == [])
        #expect(try FileManager.default.contentsOfDirectory(atPath: box.home) == [])
    }

    /// The README's command table says what a new ledger does: at most 3 downloads at a time.
    @Test func readmeStatesTheDefaultMaximumDownloadCount() async throws {
        let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
            .deletingLastPathComponent()
        let readme = try String(contentsOf: root.appendingPathComponent("README.md"), encoding: .utf8)
        let row = readme.split(separator: "\n").first { $0.hasPrefix("| `limit [N]`") }
        #expect(row?.contains("default 3") == true, "\(String(describing: row))")
        let box = try DledgerSandbox()
        try await box.run("add", "http://example.com/a")
        #expect(try await box.run("limit").out == "downloads at a time: at most 3\n")
    }
}
