import Foundation
import LoopbackHTTP
import Testing

/// The transfers of another process as its activity board tells them: a retry says when, which attempt and why.
extension UITests {
    @Test func watchingShowsTheOtherProcesssRetryInWords() async throws {
        let box = try DledgerSandbox()
        let server = try LoopbackServer()
        defer { server.stop() }
        server.serve(
            "/busy.bin",
            Resource(size: 100_000, seed: 97, faults: Faults(failFirst: 3, failStatus: 500, retryAfter: 4)))
        try await box.run("add", server.url("/busy.bin"))
        let run = try box.start("run")
        defer { run.interrupt() }
        let t = try ui(box, "", columns: 120, rows: 24)
        defer { t.close() }
        try await t.waitFor("watching: pid \(run.process.processIdentifier) downloads")
        let seen = try await t.waitFor(15) { s in s.contains { $0.contains("retrying in ") } }
        let row = seen?.first { $0.contains("#1 busy.bin") } ?? ""
        #expect(
            row.contains("downloading") && row.contains(" of 6): the server answered HTTP 500"), "\(t.shown)")
        try t.keys("q")
        try await expectRestored(t, exit: 0)
    }
}
