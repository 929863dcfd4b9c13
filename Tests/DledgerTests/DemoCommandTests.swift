import Foundation
import Testing

@Suite struct DemoCommandTests {
    @Test func demoRunsToCompletionAndCleansUp() async throws {
        let box = try DledgerSandbox()
        let r = try await box.run("demo")
        #expect(r.status == 0, "\(r.err)")
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
    }
}
