import Foundation
import LoopbackHTTP
import PostgresSupport
import Testing

/// Several downloaders on one PostgreSQL ledger (issue 25): `dledger run` processes with their own host names and
/// folders claim tasks, so that each task is downloaded once; a killed one's tasks are taken over after its lease.
@Suite struct SharedHostsTests {
    /// A server of `count` files of `size` bytes (`/fN.bin`, seed N), each sent at `rate` bytes per second.
    static func server(count: Int, size: Int64, rate: Int) throws -> LoopbackServer {
        let server = try LoopbackServer()
        for n in 1...count {
            server.serve(
                "/f\(n).bin",
                Resource(
                    size: size, seed: UInt64(n), etag: "\"f\(n)\"",
                    faults: Faults(throttleBytesPerSecond: rate)))
        }
        return server
    }

    /// `dledger run --until-idle` (or without, when `untilIdle` is false) as host `host`, downloading into
    /// `<sandbox>/<host>`, with `-j 3` unless `ownLimit` (the host's or the ledger's count).
    static func runner(
        _ box: DledgerSandbox, _ uri: String, host: String, untilIdle: Bool = true, ownLimit: Bool = false
    ) throws -> Running {
        let folder = box.root + "/" + host
        try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
        var args = ["run", "--ledger", uri, "--host-name", host, "--dir", folder]
        if !ownLimit { args += ["-j", "3"] }
        if untilIdle { args.insert("--until-idle", at: 1) }
        return try Running(box.process(args), stdin: nil)
    }

    /// Every task of `ls --json`.
    static func tasks(_ box: DledgerSandbox, _ uri: String) async throws -> [[String: Any]] {
        let listed = try await box.run("ls", "--json", "--ledger", uri)
        let sections = (listed.json as? [String: Any])?["sections"] as? [[String: Any]] ?? []
        return sections.flatMap { $0["tasks"] as? [[String: Any]] ?? [] }
    }

    /// The events of `log --json`.
    static func events(_ box: DledgerSandbox, _ uri: String) async throws -> [[String: Any]] {
        try await box.run("log", "--json", "--ledger", uri).jsonLines
    }

    /// Checks that every task finished once, on a host of `hosts`, its file in that host's folder and nowhere
    /// else, byte for byte; returns how many each host did.
    static func checkFinishedOnce(
        _ box: DledgerSandbox, _ uri: String, count: Int, size: Int64, hosts: [String]
    ) async throws -> [String: Int] {
        let tasks = try await Self.tasks(box, uri)
        #expect(tasks.count == count)
        var byHost: [String: Int] = [:]
        for t in tasks {
            let id = t["id"] as? Int ?? 0
            #expect(t["state"] as? String == "finished", "#\(id): \(t)")
            guard let host = t["host"] as? String, let file = t["file"] as? String,
                let url = t["url"] as? String,
                let n = UInt64(url.split(separator: "/f").last?.dropLast(4) ?? "")
            else {
                Issue.record("#\(id) has no host or file: \(t)")
                continue
            }
            byHost[host, default: 0] += 1
            #expect(file == box.root + "/\(host)/f\(n).bin", "#\(id): \(file)")
            let bytes = FileManager.default.contents(atPath: file).map { Array($0) }
            #expect(bytes == Body.generatedBytes(seed: n, in: 0..<size), "#\(id) on \(host)")
            for other in hosts where other != host {
                #expect(!FileManager.default.fileExists(atPath: box.root + "/\(other)/f\(n).bin"))
            }
        }
        let events = try await Self.events(box, uri)
        var completions: [Int: Int] = [:]
        for e in events where e["kind"] as? String == "transferCompleted" {
            let id = (e["payload"] as? [String: Any])?["id"] as? Int ?? 0
            completions[id, default: 0] += 1
            #expect(((e["payload"] as? [String: Any])?["host"] as? String).map(hosts.contains) == true)
        }
        #expect(completions.count == count && completions.values.allSatisfy { $0 == 1 }, "\(completions)")
        return byHost
    }

    @Test func threeHostsShareSixtyTasksAndDownloadEachOnce() async throws {
        let box = try DledgerSandbox()
        let size: Int64 = 60_000
        let server = try Self.server(count: 60, size: size, rate: 150_000)
        defer { server.stop() }
        let uri = try PostgresTestCluster.freshLedger("hosts")
        let urls = (1...60).map { server.url("/f\($0).bin") }
        let added = try await box.run(["add", "--ledger", uri] + urls)
        #expect(added.status == 0, "\(added.err)")
        let hosts = ["alpha", "beta", "gamma"]
        let runners = try hosts.map { try Self.runner(box, uri, host: $0) }
        for (host, runner) in zip(hosts, runners) {
            let done = await runner.wait()
            #expect(done.status == 0, "\(host): \(done.err)")
        }
        let byHost = try await Self.checkFinishedOnce(box, uri, count: 60, size: size, hosts: hosts)
        #expect(byHost.keys.sorted() == hosts && byHost.values.allSatisfy { $0 > 0 }, "\(byHost)")
        // Each task was claimed by the host that completed it before it started.
        let events = try await Self.events(box, uri)
        let claims = events.filter { $0["kind"] as? String == "transferClaimed" }
        #expect(claims.count >= 60)
        // Each host checks the files on its own disk: the others' are counted, not looked for (on separate
        // machines they would all be "missing").
        var checked = 0
        for host in hosts {
            let verified = try await box.run(
                "verify", "--json", "--ledger", uri, env: ["DLEDGER_HOST_NAME": host])
            #expect(verified.status == 0, "\(verified.out) \(verified.err)")
            let report = verified.json as? [String: Any]
            #expect(report?["filesChecked"] as? Int == byHost[host], "\(host): \(verified.out)")
            #expect(
                report?["filesOnOtherHosts"] as? Int == 60 - (byHost[host] ?? 0), "\(host): \(verified.out)")
            checked += report?["filesChecked"] as? Int ?? 0
        }
        #expect(checked == 60)
        // A file of alpha's gone: alpha's check finds it, beta's does not look for it.
        let alphaFile = try FileManager.default.contentsOfDirectory(atPath: box.root + "/alpha").first {
            $0.hasSuffix(".bin")
        }
        try FileManager.default.removeItem(atPath: box.root + "/alpha/" + (alphaFile ?? "none"))
        let onAlpha = try await box.run("verify", "--ledger", uri, env: ["DLEDGER_HOST_NAME": "alpha"])
        #expect(onAlpha.status != 0 && onAlpha.out.contains("file missing"), "\(onAlpha.out)")
        let onBeta = try await box.run("verify", "--ledger", uri, env: ["DLEDGER_HOST_NAME": "beta"])
        #expect(
            onBeta.status == 0 && onBeta.out.contains("on other hosts, not checked here"), "\(onBeta.out)")
    }

    @Test func aKilledHostsTasksAreTakenOverAfterItsLease() async throws {
        let box = try DledgerSandbox()
        let size: Int64 = 400_000
        let server = try Self.server(count: 6, size: size, rate: 100_000)
        defer { server.stop() }
        let uri = try PostgresTestCluster.freshLedger("kill")
        let urls = (1...6).map { server.url("/f\($0).bin") }
        #expect(try await box.run(["add", "--ledger", uri] + urls).status == 0)
        let lease = try await box.run("set", "claim-lease", "2", "--ledger", uri)
        #expect(lease.status == 0, "\(lease.err)")
        // The doomed host starts first and claims three tasks; the others come once its bytes flow.
        let doomed = try Self.runner(box, uri, host: "doomed", untilIdle: false)
        defer { if doomed.process.isRunning { kill(doomed.process.processIdentifier, SIGKILL) } }
        let partials = box.root + "/doomed/.dledger/partial"
        let flowing = await eventually(20) {
            let names = (try? FileManager.default.contentsOfDirectory(atPath: partials)) ?? []
            return names.count == 3 && names.allSatisfy { partialSize(partials + "/" + $0) > 0 }
        }
        #expect(flowing, "the first host never wrote three partial files")
        let others = try ["left", "right"].map { try Self.runner(box, uri, host: $0) }
        // Both see the doomed host's live claims before it dies: they take the other three meanwhile.
        try await Task.sleep(for: .milliseconds(500))
        kill(doomed.process.processIdentifier, SIGKILL)
        _ = await doomed.wait()
        for (host, runner) in zip(["left", "right"], others) {
            let done = await runner.wait()
            #expect(done.status == 0, "\(host): \(done.err)")
        }
        let byHost = try await Self.checkFinishedOnce(
            box, uri, count: 6, size: size, hosts: ["doomed", "left", "right"])
        #expect(byHost["doomed"] == nil, "\(byHost)")
        // The log says why: each of the doomed host's tasks was taken over, naming it, and started from zero.
        let events = try await Self.events(box, uri)
        let takeovers = events.filter {
            $0["kind"] as? String == "transferClaimed"
                && ($0["payload"] as? [String: Any])?["expired"] as? String == "doomed"
        }
        #expect(Set(takeovers.compactMap { ($0["payload"] as? [String: Any])?["id"] as? Int }).count == 3)
        #expect(takeovers.allSatisfy { ($0["text"] as? String)?.contains("host doomed") == true })
        let audit = try await box.run("audit", "1", "--ledger", uri)
        #expect(audit.status == 0 && audit.out.contains("host"), "\(audit.out) \(audit.err)")
        let verified = try await box.run("verify", "--ledger", uri)
        #expect(verified.status == 0, "\(verified.out) \(verified.err)")
    }

    @Test func aHostsOwnLimitAndFileCommandsElsewhereRefused() async throws {
        let box = try DledgerSandbox()
        let size: Int64 = 100_000
        let server = try Self.server(count: 3, size: size, rate: 200_000)
        defer { server.stop() }
        let uri = try PostgresTestCluster.freshLedger("own")
        #expect(
            try await box.run(["add", "--ledger", uri] + (1...3).map { server.url("/f\($0).bin") }).status
                == 0)
        let own = try await box.run("limit", "1", "--host", "alpha", "--ledger", uri)
        #expect(own.status == 0, "\(own.err)")
        #expect(try await box.run("limit", "--host", "alpha", "--ledger", uri).out.contains("at most 1"))
        #expect(try await box.run("limit", "--ledger", uri).out.contains("at most 3"))
        let again = try await box.run("limit", "1", "--host", "alpha", "--ledger", uri)
        #expect(again.status == 1 && again.err.contains("host alpha is already 1"), "\(again.err)")
        let alpha = try Self.runner(box, uri, host: "alpha", ownLimit: true)
        let done = await alpha.wait()
        #expect(done.status == 0, "\(done.err)")
        _ = try await Self.checkFinishedOnce(box, uri, count: 3, size: size, hosts: ["alpha"])
        // Its own limit held: the server sent one file at a time, though the ledger's limit is 3.
        #expect(server.peakConcurrency.paths == 1, "\(server.peakConcurrency)")
        let listed = try await box.run("ls", "--ledger", uri)
        #expect(listed.out.contains("on alpha"), "\(listed.out)")
        // Another host may not touch alpha's files: one line naming alpha, nothing appended, the file kept.
        let before = try await box.eventCount(uri)
        for args in [["redownload", "1"], ["rename", "2", "other.bin"]] {
            let r = try await box.run(args + ["--ledger", uri], env: ["DLEDGER_HOST_NAME": "beta"])
            #expect(r.status == 1, "\(args): \(r.err)")
            #expect(
                r.err.contains("file is on host alpha") && r.err.split(separator: "\n").count == 1, "\(r.err)"
            )
        }
        #expect(try await box.eventCount(uri) == before)
        #expect(FileManager.default.fileExists(atPath: box.root + "/alpha/f2.bin"))
        // alpha itself may.
        let renamed = try await box.run(
            "rename", "2", "other.bin", "--ledger", uri, env: ["DLEDGER_HOST_NAME": "alpha"])
        #expect(renamed.status == 0, "\(renamed.err)")
        #expect(FileManager.default.fileExists(atPath: box.root + "/alpha/other.bin"))
        let back = try await box.run("limit", "default", "--host", "alpha", "--ledger", uri)
        #expect(back.status == 0, "\(back.err)")
        #expect(try await box.run("limit", "--host", "alpha", "--ledger", uri).out.contains("at most 3"))
    }

    @Test func badHostNamesAreRefusedInOneLine() async throws {
        let box = try DledgerSandbox()
        let uri = try PostgresTestCluster.freshLedger("names")
        #expect(try await box.run("add", "--ledger", uri, "https://example.com/a.iso").status == 0)
        let before = try await box.eventCount(uri)
        for bad in ["", "has space", String(repeating: "x", count: 65), "é", "a/b"] {
            let r = try await box.run("run", "--until-idle", "--ledger", uri, "--host-name", bad)
            // One line says why (a usage error's hint to --help may follow).
            #expect(r.status == 64, "'\(bad)': \(r.err)")
            #expect(r.err.hasPrefix("error: host name") && r.err.filter { $0 == "\n" }.count <= 2, "\(r.err)")
        }
        let env = try await box.run(
            "run", "--until-idle", "--ledger", uri, env: ["DLEDGER_HOST_NAME": "no way"])
        #expect(env.status == 64 && env.err.contains("DLEDGER_HOST_NAME"), "\(env.err)")
        #expect(try await box.eventCount(uri) == before)
        let lease = try await box.run("set", "claim-lease", "3601", "--ledger", uri)
        #expect(lease.status == 64 && lease.err.hasPrefix("error: claim-lease must be"), "\(lease.err)")
    }
}

extension DledgerSandbox {
    /// The number of events in the ledger at `uri`.
    func eventCount(_ uri: String) async throws -> Int {
        try await run("log", "--json", "--ledger", uri).jsonLines.count
    }
}
