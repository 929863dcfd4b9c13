import DownloadLedger
import Foundation
import Glibc
import LoopbackHTTP
import Testing

/// Live progress on a PostgreSQL ledger shared by several hosts (issue 25): each `run` publishes its host's row on
/// the board in the database, a third process's `ls` and `stats` show every live host's bytes as they grow, a
/// runner killed with SIGKILL stops counting (its run lock's session ended), and a ledger an older build made gets
/// its board from the first writer, never from a read.
@Suite struct SharedHostsLiveActivityTests {
    /// `dledger run -j 1` as host `host`, downloading into `<sandbox>/<host>`.
    static func runner(_ box: DledgerSandbox, host: String) throws -> Running {
        let folder = box.root + "/" + host
        try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
        return try Running(
            box.process(["run", "--host-name", host, "--dir", folder, "-j", "1"]), stdin: nil)
    }

    /// The tasks of `ls --json`, by id.
    static func tasks(_ box: DledgerSandbox) async throws -> [Int: [String: Any]] {
        let listed = try await box.run("ls", "--json")
        let sections = (listed.json as? [String: Any])?["sections"] as? [[String: Any]] ?? []
        let tasks = sections.flatMap { $0["tasks"] as? [[String: Any]] ?? [] }
        return Dictionary(tasks.map { ($0["id"] as? Int ?? 0, $0) }, uniquingKeysWith: { a, _ in a })
    }

    /// The `live` object of `stats --json`; nil when it is null.
    static func statsLive(_ box: DledgerSandbox) async throws -> [String: Any]? {
        (try await box.run("stats", "--json").json as? [String: Any])?["live"] as? [String: Any]
    }

    /// Whether the ledger has its activity board (the table migration 0005 makes).
    static func hasBoard(_ box: DledgerSandbox) throws -> Bool {
        try box.psql("SELECT to_regclass('\(box.postgresSchema).activity') IS NOT NULL", inSchema: false)
            == "t"
    }

    @Test func aThirdProcessSeesTwoHostsLiveBytesUntilOneIsKilled() async throws {
        let box = try DledgerSandbox(store: .postgres)
        let size: Int64 = 4_000_000
        let server = try SharedHostsTests.server(count: 2, size: size, rate: 200_000)
        defer { server.stop() }
        // One connection each, so that what the server has sent is bounded by its pace.
        let added = try await box.run(
            "add", server.url("/f1.bin"), server.url("/f2.bin"), "--connections", "1")
        #expect(added.status == 0, "\(added.err)")
        // As an older build made it: no board, and reads do not make one.
        _ = try box.psql("DROP TABLE activity; DELETE FROM schema_migrations WHERE version = 5")
        #expect(try await box.run("ls").status == 0)
        #expect(try await box.run("stats").status == 0)
        #expect(try await Self.statsLive(box) == nil)
        #expect(try !Self.hasBoard(box), "a read made the board")
        let begun = Date()
        let alpha = try Self.runner(box, host: "alpha")
        let beta = try Self.runner(box, host: "beta")
        defer {
            for runner in [alpha, beta] { kill(runner.process.processIdentifier, SIGKILL) }
        }
        // One task on each host, each with a speed: only a published record has one.
        var tasks: [Int: [String: Any]] = [:]
        let started = await eventually(20) {
            tasks = (try? await Self.tasks(box)) ?? [:]
            return tasks.count == 2
                && tasks.values.allSatisfy {
                    ($0["speed"] as? Int ?? 0) > 0 && ($0["bytes"] as? Int ?? 0) > 0
                }
        }
        #expect(started, "\(tasks)")
        #expect(try Self.hasBoard(box), "the first writer did not add the board")
        let hostOf = tasks.mapValues { $0["host"] as? String ?? "" }
        #expect(Set(hostOf.values) == ["alpha", "beta"], "\(hostOf)")
        // Growing in a process that downloads nothing, never ahead of what the server can have sent (a sequential
        // transfer's partial file lags by the chunk it gathers, so it is no bound).
        var last: [Int: Int64] = [:]
        for round in 0..<3 {
            let listed = try await Self.tasks(box)
            for (id, task) in listed {
                let host = hostOf[id] ?? ""
                let bytes = Int64(task["bytes"] as? Int ?? -1)
                let sent = Int64(Date().timeIntervalSince(begun) * 200_000)
                #expect(bytes <= sent, "#\(id) on \(host): ls \(bytes) > \(sent) sent at most")
                #expect(bytes > last[id] ?? 0, "round \(round): #\(id) on \(host) did not grow from \(bytes)")
                #expect(bytes < size)
                last[id] = bytes
            }
            let live = try await Self.statsLive(box)
            #expect(live?["transfers"] as? Int == 2, "\(String(describing: live))")
            #expect(
                Int64(live?["bytes"] as? Int ?? 0) >= last.values.reduce(0, +), "\(String(describing: live))")
            try await Task.sleep(for: .milliseconds(800))
        }
        #expect(try box.psql("SELECT string_agg(host, ',' ORDER BY host) FROM activity") == "alpha,beta")
        // Killed, alpha's row stays behind and no longer counts: its task shows the log's figure, with no speed.
        let killedID = try #require(hostOf.first { $0.value == "alpha" }?.key)
        let otherID = killedID == 1 ? 2 : 1
        kill(alpha.process.processIdentifier, SIGKILL)
        _ = await alpha.wait()
        #expect(try box.psql("SELECT count(*) FROM activity WHERE host = 'alpha'") == "1")
        var killed: [String: Any] = [:]
        let gone = await eventually(10) {
            killed = (try? await Self.tasks(box))?[killedID] ?? [:]
            return killed["speed"] == nil
        }
        #expect(gone, "the killed host's row was still believed: \(killed)")
        let logged = Int64(killed["bytes"] as? Int ?? -1)
        #expect(logged < last[killedID] ?? 0, "ls shows \(logged), not the log's figure")
        try await Task.sleep(for: .milliseconds(800))
        let after = try await Self.tasks(box)
        #expect(Int64(after[killedID]?["bytes"] as? Int ?? -2) == logged, "the dead host's bytes moved")
        #expect(Int64(after[otherID]?["bytes"] as? Int ?? 0) > last[otherID] ?? 0, "beta stopped growing")
        #expect((after[otherID]?["speed"] as? Int ?? 0) > 0)
        let live = try await Self.statsLive(box)
        #expect(live?["transfers"] as? Int == 1, "\(String(describing: live))")
        beta.interrupt()
        _ = await beta.wait()
        // A clean exit withdraws the host's row; the killed one's stays, believed by nobody.
        #expect(try box.psql("SELECT string_agg(host, ',') FROM activity") == "alpha")
        #expect(try await Self.statsLive(box) == nil)
    }

    @Test func serveOnOneHostAnswersWithAnotherHostsLiveBytes() async throws {
        let box = try DledgerSandbox(store: .postgres)
        let server = try SharedHostsTests.server(count: 1, size: 4_000_000, rate: 200_000)
        defer { server.stop() }
        #expect(try await box.run("add", server.url("/f1.bin"), "--connections", "1").status == 0)
        let alpha = try Self.runner(box, host: "alpha")
        defer { kill(alpha.process.processIdentifier, SIGKILL) }
        let started = await eventually(20) { ((try? await Self.tasks(box))?[1]?["speed"] as? Int ?? 0) > 0 }
        #expect(started, "alpha never published")
        let folder = box.root + "/beta"
        try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
        let (serve, port) = try await ServeCommandTests.serve(
            box, secret: "pw", ["--host-name", "beta", "--dir", folder])
        defer { serve.interrupt() }
        // beta's RPC answers for the transfer alpha runs with alpha's figures, as ls does.
        var status: [String: Any] = [:]
        let seen = await eventually(10) {
            status = (try? LiveActivityTests.status(port, GID.of(1))) ?? [:]
            return LiveActivityTests.number(status["downloadSpeed"]) > 0
        }
        #expect(seen, "\(status)")
        for _ in 0..<2 {
            let rpc = LiveActivityTests.number(
                try LiveActivityTests.status(port, GID.of(1))["completedLength"])
            let started = Date()
            let ls = Int64(try await Self.tasks(box)[1]?["bytes"] as? Int ?? -1)
            let drift = Int64(200_000 * (1 + Date().timeIntervalSince(started)))
            #expect(rpc > 0 && abs(ls - rpc) <= drift, "ls \(ls) vs RPC \(rpc)")
            try await Task.sleep(for: .milliseconds(500))
        }
        kill(alpha.process.processIdentifier, SIGKILL)
        _ = await alpha.wait()
        let stopped = await eventually(10) {
            LiveActivityTests.number((try? LiveActivityTests.status(port, GID.of(1)))?["downloadSpeed"]) == 0
        }
        #expect(stopped, "beta's RPC still showed the killed host's speed")
        serve.interrupt()
        _ = await serve.wait()
    }

    @Test(.enabled(if: TmuxTerminal.isAvailable, "needs tmux"), .timeLimit(.minutes(2)))
    func aUiOnAnotherHostShowsTheTransferLiveUntilItsHostIsKilled() async throws {
        let box = try DledgerSandbox(store: .postgres)
        let server = try SharedHostsTests.server(count: 1, size: 4_000_000, rate: 200_000)
        defer { server.stop() }
        #expect(try await box.run("add", server.url("/f1.bin"), "--connections", "1").status == 0)
        let alpha = try Self.runner(box, host: "alpha")
        defer { kill(alpha.process.processIdentifier, SIGKILL) }
        let t = try UITests().ui(box, "--watch --host-name gamma", columns: 120)
        defer { t.close() }
        // Nobody downloads for gamma: the row's speed and moving bytes are what alpha publishes.
        var first: String?
        let live = try await t.waitFor(20) { lines in
            first = lines.first { $0.contains("f1.bin") }
            return first?.contains("B/s") == true
        }
        #expect(live != nil, "\(t.shown)")
        let moved = try await t.waitFor(10) { lines in
            let row = lines.first { $0.contains("f1.bin") }
            return row?.contains("B/s") == true && row != first
        }
        #expect(moved != nil, "\(t.shown)")
        kill(alpha.process.processIdentifier, SIGKILL)
        _ = await alpha.wait()
        let stopped = try await t.waitFor(15) { lines in
            lines.first { $0.contains("f1.bin") }.map { !$0.contains("B/s") } ?? false
        }
        #expect(stopped != nil, "the killed host's speed stayed: \(t.shown)")
        try t.keys("q")
    }
}
