import Foundation
import LoopbackHTTP
import Testing

/// A low descriptor limit queues transfers instead of failing them (issue 10 §6): `limit 0` with hundreds of tasks
/// under `prlimit --nofile=64` finishes every one (on the code before, most failed for good with "Too many open
/// files").
@Suite struct DescriptorTests {
    /// `dledger ARGS` under `prlimit --nofile=LIMIT`.
    private func limited(_ box: DledgerSandbox, _ limit: String, _ args: String...) throws -> Running {
        let process = box.process(args)
        process.executableURL = URL(fileURLWithPath: "/usr/bin/prlimit")
        process.arguments = ["--nofile=" + limit, DledgerSandbox.binary] + args
        return try Running(process, stdin: nil)
    }

    @Test(.enabled(if: FileManager.default.isExecutableFile(atPath: "/usr/bin/prlimit")))
    func manyTasksWithoutALimitFinishUnderSixtyFourDescriptors() async throws {
        let box = try DledgerSandbox()
        let server = try LoopbackServer()
        let count = 300
        for i in 1...count { server.serve("/f\(i).bin", Resource(size: 2_000, seed: UInt64(i))) }
        let urls = (1...count).map { server.url("/f\($0).bin") }.joined(separator: "\n")
        try await box.run("add", "--from-file", "-", stdin: urls + "\n")
        try await box.run("limit", "0")

        let run = try await limited(box, "64:64", "run", "--until-idle", "-q").wait()

        #expect(run.status == 0, "\(run.err)")
        let doc = try await box.run("ls", "--json").json as? [String: Any]
        let sections = (doc?["sections"] as? [[String: Any]]) ?? []
        let states = sections.flatMap { ($0["tasks"] as? [[String: Any]]) ?? [] }.compactMap {
            $0["state"] as? String
        }
        #expect(states.count == count)
        #expect(
            states.allSatisfy { $0 == "finished" },
            "\(Dictionary(grouping: states, by: { $0 }).mapValues(\.count))")
        let kinds = try await box.run("log", "--json").jsonLines.compactMap { $0["kind"] as? String }
        #expect(!kinds.contains("transferFailed"))
        #expect(box.contents("f300.bin") == Body.generatedBytes(seed: 300, in: 0..<2_000))
    }

    @Test(.enabled(if: FileManager.default.isExecutableFile(atPath: "/usr/bin/prlimit")))
    func theSoftLimitIsRaisedToTheHardOneAtStart() async throws {
        let box = try DledgerSandbox()
        let server = try LoopbackServer()
        server.servePaced("/slow.bin", size: 400_000, seed: 1)
        try await box.run("add", server.url("/slow.bin"))

        let run = try limited(box, "64:4096", "run", "--until-idle", "-q")
        // prlimit sets 64 (soft) and 4096 (hard), then becomes dledger, which raises the soft limit.
        var line = ""
        let raised = await eventually(10) {
            let path = "/proc/\(run.process.processIdentifier)/limits"
            let limits = (try? String(contentsOfFile: path, encoding: .utf8)) ?? ""
            line =
                limits.split(separator: "\n").first { $0.hasPrefix("Max open files") }.map(String.init) ?? ""
            return line.split(separator: " ").dropFirst(3).prefix(2) == ["4096", "4096"]
        }
        run.interrupt()
        _ = await run.wait()
        #expect(raised, "\(line)")
    }
}
