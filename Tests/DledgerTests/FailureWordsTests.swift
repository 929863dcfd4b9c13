import Foundation
import LoopbackHTTP
import Testing

/// Every failure and retry reason reads as a sentence, the same one in `get`'s lines, `ls`, `log` and `audit`,
/// while `--json` keeps the raw code and detail (issue 10 §6).
@Suite struct FailureWordsTests {
    @Test func failuresAndRetriesReadAsSentencesEverywhere() async throws {
        let box = try DledgerSandbox()
        let server = try LoopbackServer()
        server.serve("/a.bin", Resource(size: 30_000, seed: 1))
        var drop = Faults()
        drop.dropAfterBytes = 960_000
        server.serve("/talk.mp4", Resource(size: 2_400_000, seed: 2, faults: drop))
        server.serve("/odd.bin", Resource(size: 1000, seed: 3, faults: Faults(failFirst: 9, failStatus: 999)))
        let sha = String(repeating: "0", count: 64)
        let actual = try await sha256(Body.generatedBytes(seed: 1, in: 0..<30_000))

        let checksum = try await box.run("get", server.url("/a.bin"), "--sha256", sha)
        let rest = try await box.run(
            "get", server.url("/missing.bin"), server.url("/talk.mp4"), server.url("/odd.bin"))

        let mismatch = "checksum mismatch: expected 000000000000…, got \(actual.prefix(12))…"
        let missing = "the server answered HTTP 404 (Not Found)"
        let odd = "the server broke HTTP: status 999 is outside 100–599"
        let closed = "connection closed after 960 KB of 2.4 MB"
        #expect(checksum.status == 1)
        #expect(checksum.err.contains("#1 a.bin: \(mismatch)"), "\(checksum.err)")
        #expect(rest.err.contains("#2 missing.bin: \(missing)"), "\(rest.err)")
        #expect(rest.err.contains("#4 odd.bin: \(odd)"), "\(rest.err)")
        #expect(rest.out.contains("finished #3 talk.mp4"), "\(rest.out)")

        let ls = try await box.run("ls").out
        for (id, words) in [(1, mismatch), (2, missing), (4, odd)] {
            #expect(
                ls.split(separator: "\n").contains { $0.contains("#\(id) ") && $0.contains("(\(words))") },
                "\(ls)")
        }
        let log = try await box.run("log").out
        #expect(log.contains("#1 failed: \(mismatch) (not retryable)"), "\(log)")
        #expect(log.contains("#2 failed: \(missing) (not retryable)"))
        #expect(log.contains("#4 failed: \(odd) (not retryable)"))
        // A retry says why in the same words; the status 999 was asked for once, not six times.
        #expect(log.contains("#3 attempt failed: \(closed) at 960 KB, retrying in "), "\(log)")
        #expect(server.requests("/odd.bin").count == 1)
        let audit = try await box.run("audit", "3").out
        #expect(audit.contains(closed), "\(audit)")

        // The raw fields stay in the JSON.
        let failed = try await box.run("log", "--json").jsonLines.compactMap {
            $0["kind"] as? String == "transferFailed" ? $0["payload"] as? [String: Any] : nil
        }
        let raw = failed.map { "\($0["code"] ?? "") \($0["detail"] ?? "")" }
        #expect(raw.contains("checksumMismatch \(sha):\(actual)"), "\(raw)")
        #expect(raw.contains("http 404"))
        let task = try await box.task(1)
        let failure = task?["failure"] as? [String: Any]
        #expect(failure?["code"] as? String == "checksumMismatch")
        #expect(failure?["detail"] as? String == "\(sha):\(actual)")
    }

    private func sha256(_ bytes: [UInt8]) async throws -> String {
        let path = NSTemporaryDirectory() + "words-\(UUID().uuidString)"
        try Data(bytes).write(to: URL(fileURLWithPath: path))
        defer { try? FileManager.default.removeItem(atPath: path) }
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/sha256sum")
        process.arguments = [path]
        let output = Pipe()
        process.standardOutput = output
        try process.run()
        let data = output.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        return String(decoding: data.prefix(64), as: UTF8.self)
    }
}
