import Foundation
import LoopbackHTTP
import Testing

/// A ledger whose caches were edited behind its back: commands read the log, `verify` names the damage.
@Suite struct TamperCommandsTests {
    /// A ledger with task 1 at `url`, then 6,000 paused tasks added at once: the big add is snapshotted.
    private func ledgerWithSnapshot(_ box: DledgerSandbox, url: String) async throws {
        try await box.run("add", url)
        let filler = (1...6000).map { "http://filler.invalid/file-\($0).bin" }.joined(separator: "\n")
        try filler.write(toFile: box.root + "/filler.txt", atomically: true, encoding: .utf8)
        #expect(
            try await box.run("add", "--from-file", box.root + "/filler.txt", "--section", "Later", "-q")
                .status == 0)
        #expect(try await box.run("pause", "--section", "1").status == 0)
        let stats = try await box.run("stats", "--json").json as? [String: Any]
        #expect(stats?["snapshotSeq"] as? Int == 3, "\(stats ?? [:])")
    }

    /// Rewrites the snapshot rows' bytes with `edit`, through files and the sqlite3 shell (no code of ours).
    private func editSnapshots(_ box: DledgerSandbox, _ edit: (inout [UInt8]) -> Void) throws {
        let blob = box.root + "/snapshot.bin"
        try sqlite3(box.ledger, "SELECT writefile('\(blob)', bytes) FROM snapshots ORDER BY seq DESC LIMIT 1")
        var bytes = try #require(FileManager.default.contents(atPath: blob).map { Array($0) })
        edit(&bytes)
        try Data(bytes).write(to: URL(fileURLWithPath: blob))
        try sqlite3(box.ledger, "UPDATE snapshots SET bytes = readfile('\(blob)')")
    }

    @Test func anEditedSnapshotIsNotLoadedAndVerifyNamesIt() async throws {
        let box = try DledgerSandbox()
        let server = try LoopbackServer()
        server.serve("/real.bin", Resource(size: 40_000, seed: 3))
        server.serve("/evil.bin", Resource(size: 40_000, seed: 4))
        try await ledgerWithSnapshot(box, url: server.url("/real.bin"))
        try editSnapshots(box) { bytes in
            // "/real.bin" → "/evil.bin" in the URL of task 1: same length, the snapshot still decodes.
            let from = Array("/real.bin".utf8)
            let to = Array("/evil.bin".utf8)
            let at = try! #require(
                (0...(bytes.count - from.count)).first { bytes[$0..<($0 + from.count)].elementsEqual(from) })
            bytes.replaceSubrange(at..<(at + from.count), with: to)
        }
        let task = try await box.task(1)
        #expect(task?["url"] as? String == server.url("/real.bin"))
        let verify = try await box.run("verify", "--skip-files")
        #expect(verify.status != 0)
        #expect(
            verify.out.contains("snapshot at #3 is not used: its bytes were changed after it was saved"),
            "\(verify.out)")
        let run = try await box.run("run", "--until-idle")
        #expect(run.status == 0, "\(run.err)")
        #expect(server.requests("/real.bin").count == 1)
        #expect(server.requests("/evil.bin").isEmpty)
        #expect(box.contents("real.bin") == Body.generatedBytes(seed: 3, in: 0..<40_000))
        #expect(box.contents("evil.bin") == nil)
    }

    /// `stats` reads its counts from the snapshot's summary, sealed on its own, but names the snapshot an open
    /// loads: not one whose bytes were edited (issue 24 §5), and it says what `verify` says.
    @Test func statsNamesTheSnapshotAnOpenLoadsNotAnEditedOne() async throws {
        let box = try DledgerSandbox()
        try await box.run("add", "http://example.invalid/first.bin")
        let filler = (1...6000).map { "http://filler.invalid/file-\($0).bin" }.joined(separator: "\n")
        try filler.write(toFile: box.root + "/filler.txt", atomically: true, encoding: .utf8)
        #expect(try await box.run("add", "--from-file", box.root + "/filler.txt", "-q").status == 0)
        // A setting after the snapshot changes no count: stats folds it into the summary, decoding no task.
        #expect(try await box.run("limit", "2").status == 0)
        let before = try #require(try await box.run("stats", "--json").json as? [String: Any])
        #expect(before["snapshotSeq"] as? Int == 3, "\(before)")
        try editSnapshots(box) { bytes in bytes[bytes.count / 2] ^= 0x01 }
        let after = try #require(try await box.run("stats", "--json").json as? [String: Any])
        #expect(after["snapshotSeq"] is NSNull, "\(after)")
        #expect((after["tasks"] as? [String: Any])?["total"] as? Int == 6001)
        #expect(after["events"] as? Int == 4)
        let human = try await box.run("stats")
        #expect(human.out.contains("snapshot        none\n"), "\(human.out)")
        let verify = try await box.run("verify", "--skip-files")
        #expect(verify.status == 1)
        #expect(verify.out.contains("4 events, head #4, no snapshot"), "\(verify.out)")
        #expect(verify.out.contains("snapshot at #3 is not used: its bytes were changed"), "\(verify.out)")
    }

    @Test func rowsDeletedFromTheAuditIndexAreStillAuditedAndNamed() async throws {
        let box = try DledgerSandbox()
        try await box.run("add", "http://example.com/a", "http://example.com/b")
        try await box.run("pause", "1")
        try await box.run("rename", "1", "renamed.bin")
        try await box.run("resume", "1", "2")
        let before = try await box.run("audit", "1", "--json").jsonLines.map { $0["seq"] as? Int }
        #expect(before == [2, 3, 4, 5])
        #expect(try await box.run("verify", "--skip-files").status == 0)
        try sqlite3(box.ledger, "DELETE FROM event_tasks WHERE task = 1 AND seq IN (3, 4)")
        let audit = try await box.run("audit", "1", "--json")
        #expect(audit.status == 0)
        #expect(audit.jsonLines.map { $0["seq"] as? Int } == before)
        #expect(audit.err.contains("the audit index of this ledger disagrees with its log"))
        #expect(try await box.run("log", "--task", "1", "--json").jsonLines.count == 4)
        let verify = try await box.run("verify", "--skip-files")
        #expect(verify.status != 0)
        #expect(
            verify.out.contains(
                "the audit index disagrees with the log (2 links missing, 0 extra); first: event #3 touches task #1"
            ), "\(verify.out)")
        // A row slipped in that points task 2 (touched by its add alone: resume skipped it) at an event about 1.
        try sqlite3(box.ledger, "INSERT INTO event_tasks(task, seq) VALUES (1, 3), (1, 4), (2, 4)")
        let audit2 = try await box.run("audit", "2", "--json")
        #expect(audit2.jsonLines.map { $0["seq"] as? Int } == [2])
        #expect(audit2.err.contains("disagrees"))
        #expect(try await box.run("verify", "--skip-files").out.contains("0 links missing, 1 extra"))
    }
}
