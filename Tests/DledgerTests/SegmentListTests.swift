import DownloadLedger
import Foundation
import Glibc
import LoopbackHTTP
import Testing

/// What another process sees of a split transfer: `ls` (text and JSON) shows its connections while a `dledger run`
/// fetches it, nothing once that run is gone, and the run that resumes it logs the count again.
@Suite struct SegmentListTests {
    @Test func lsShowsTheConnectionsOfARunningSplitTransferAndTheResumeLogsThemAgain() async throws {
        let box = try DledgerSandbox()
        let server = try LoopbackServer()
        defer { server.stop() }
        // 8 MB at 400 KB/s per connection: about five seconds over four connections, twenty over one.
        let resource = Resource(
            size: 8_000_000, seed: 81, etag: "\"c4\"", faults: Faults(throttleBytesPerSecond: 400_000))
        server.serve("/c.bin", resource)
        #expect(try await box.run("add", server.url("/c.bin")).status == 0)

        let runner = try box.start("run", "--connections", "4")
        let shown = await eventually(20) { (try? await box.task(1)?["connections"] as? Int) == 4 }
        #expect(shown, "ls --json never showed 4 connections")
        let text = try await box.run("ls")
        let row = text.out.split(separator: "\n").first { $0.contains("#1") } ?? ""
        #expect(row.contains("downloading") && row.hasSuffix("×4"), "\(row)")

        // Killed once pieces after the first are in the file, so the next run resumes in pieces.
        let holes = await eventually(20) {
            (PartialPieces.read(path: box.partialPath(1))?.written.count ?? 0) >= 2
        }
        #expect(holes, "the piece map never showed a piece after the first")
        kill(runner.process.processIdentifier, SIGKILL)
        _ = await runner.wait()
        let gone = try #require(try await box.task(1))
        #expect(gone["state"] as? String == "interrupted")
        #expect(gone["connections"] is NSNull)
        #expect(try await box.run("ls").out.contains("×") == false)

        let resumed = try await box.run("run", "--until-idle", "--connections", "4")
        #expect(resumed.status == 0, "\(resumed.err)")
        #expect(box.contents("c.bin") == resource.body.allBytes)
        let log = try await box.run("log").out
        #expect(log.contains("resumed in pieces over 4 connections"), "\(log)")
        #expect(try await box.task(1)?["connections"] is NSNull)
    }

    /// `add --connections 4 --mirror URL`, then `run --until-idle`: both URLs serve pieces, the file is whole, and
    /// the log says how many connections there were and which URL served how many bytes.
    @Test func addWithConnectionsAndAMirrorDrivesTheRunAndTheLogNamesWhoServedWhat() async throws {
        let box = try DledgerSandbox()
        let server = try LoopbackServer()
        defer { server.stop() }
        let resource = Resource(
            size: 6_000_000, seed: 82, etag: "\"m4\"", faults: Faults(throttleBytesPerSecond: 1_500_000))
        server.serve("/a/m.bin", resource)
        server.serve("/b/m.bin", resource)
        let add = try await box.run(
            "add", server.url("/a/m.bin"), "--connections", "4", "--mirror", server.url("/b/m.bin"))
        #expect(add.status == 0, "\(add.err)")

        let run = try await box.run("run", "--until-idle")
        #expect(run.status == 0, "\(run.err)")
        let identical = box.contents("m.bin") == resource.body.allBytes
        #expect(identical, "m.bin differs from the served body")
        #expect(!server.requests("/a/m.bin").isEmpty && !server.requests("/b/m.bin").isEmpty)
        // Every piece request asks a bounded Range; the mirror's are all piece requests.
        #expect(server.requests("/b/m.bin").allSatisfy { $0.range?.hasSuffix("-") == false })
        let log = try await box.run("log").out
        #expect(log.contains("split into 4 connections"), "\(log)")
        let summary = log.split(separator: "\n").first { $0.contains("4 connections; ") } ?? ""
        #expect(summary.contains("/a/m.bin: ") && summary.contains("/b/m.bin: "), "\(summary)")
    }
}
