import Foundation
import LoopbackHTTP
import PostgresSupport
import Testing

/// Losing the database during `run`, at its edges: a hook's fact that comes back while the server is away waits with
/// the downloader's facts; a downloader of the same host name that took the run lock while this one was cut off
/// ends it, after it recorded what it did. Each test has a cluster of its own.
struct PostgresOutageRunTests {
    /// Writes an executable shell script into the sandbox; returns its absolute path.
    private func script(_ box: DledgerSandbox, _ name: String, _ body: String) throws -> String {
        let path = box.root + "/" + name
        try ("#!/bin/sh\n" + body).write(toFile: path, atomically: true, encoding: .utf8)
        chmod(path, 0o755)
        return path
    }

    @Test(.timeLimit(.minutes(3))) func aHookThatEndsWhileTheDatabaseIsAwayIsRecordedOnceItIsBack()
        async throws
    {
        let cluster = try PostgresOwnCluster()
        defer { cluster.remove() }
        let box = try DledgerSandbox()
        let server = try LoopbackServer()
        defer { server.stop() }
        server.serve("/a.bin", Resource(size: 50_000, seed: 31, etag: "\"a\""))
        // The second keeps the run busy past the outage (12 s at 100 kB/s).
        let size: Int64 = 1_200_000
        server.servePaced("/b.bin", size: size, seed: 32, etag: "\"b\"")
        let hook = try script(
            box, "slow-hook.sh", "touch \"$0.started\"\nsleep 5\necho hooked\ntouch \"$0.done\"\n")
        let uri = cluster.ledger("hooked")
        let env = ["DLEDGER_LEDGER": uri]
        #expect(try await box.run("add", server.url("/a.bin"), server.url("/b.bin"), env: env).status == 0)
        let run = try Running(
            box.process(["run", "--until-idle", "--on-download-complete", hook], env: env), stdin: nil)
        defer { if run.process.isRunning { run.process.terminate() } }
        let started = await eventually(30) { FileManager.default.fileExists(atPath: hook + ".started") }
        #expect(started, "the hook never started: \(run.output)")
        try cluster.stopServer()
        #expect(
            !FileManager.default.fileExists(atPath: hook + ".done"),
            "the hook ended before the server stopped")
        let ended = await eventually(20) { FileManager.default.fileExists(atPath: hook + ".done") }
        #expect(ended, "the hook never ended")
        // Its fact is handed over once the process is reaped: give it a moment, then bring the server back.
        try await Task.sleep(for: .seconds(1.5))
        #expect(run.process.isRunning, "the run ended without its database: \(run.output)")
        try cluster.startServer()

        let finished = await run.wait()
        #expect(finished.status == 0, "\(finished.out) \(finished.err)")
        #expect(finished.out.contains("database unreachable, retrying"), "\(finished.out)")
        #expect(box.contents("b.bin") == Body.generatedBytes(seed: 32, in: 0..<size))
        let log = try await box.run("log", "--json", env: env).jsonLines
        let kinds = log.compactMap { $0["kind"] as? String }
        // One hook per completion: task 1's, which ended while the server was away, is there once.
        #expect(kinds.filter { $0 == "hookFinished" }.count == 2, "\(kinds)")
        let hooks = log.indices.filter {
            log[$0]["kind"] as? String == "hookFinished" && (log[$0]["tasks"] as? [Int]) == [1]
        }
        #expect(hooks.count == 1, "\(kinds)")
        let completedA = log.firstIndex {
            $0["kind"] as? String == "transferCompleted" && ($0["tasks"] as? [Int]) == [1]
        }
        #expect(completedA != nil && hooks.first.map { $0 > completedA! } == true, "\(kinds)")
        if let at = hooks.first {
            let payload = log[at]["payload"] as? [String: Any]
            #expect(payload?["hook"] as? String == "complete", "\(log[at])")
            #expect((log[at]["tasks"] as? [Int]) == [1], "\(log[at])")
        }
        let seqs = log.compactMap { $0["seq"] as? Int }
        #expect(seqs == Array(1...seqs.count), "gaps: \(seqs)")
        let verified = try await box.run("verify", env: env)
        #expect(verified.status == 0, "\(verified.out) \(verified.err)")
    }

    /// Run A (host name `lab`) reaches the database through a path the test cuts. The server restarts while A is cut
    /// off, so A's session and its run lock are gone; a run B of the same host name starts and takes the lock before
    /// A's path is back. A then appends the facts that waited (its file finished meanwhile) and stops with the
    /// documented message naming B; B goes on.
    @Test(.timeLimit(.minutes(3))) func aRunWhoseLockWasTakenWhileItWasCutOffRecordsWhatItDidAndStops()
        async throws
    {
        let cluster = try PostgresOwnCluster()
        defer { cluster.remove() }
        let box = try DledgerSandbox()
        let server = try LoopbackServer()
        defer { server.stop() }
        let size: Int64 = 600_000
        server.servePaced("/f.bin", size: size, seed: 41, etag: "\"f\"")
        let direct = cluster.ledger("takeover")
        // A's way to the server: TCP through a relay, to the port the cluster also listens on.
        let address = try PostgresTCPAddress(cluster.uri)
        let relay = try TCPRelay(to: address.port)
        defer { relay.stop() }
        let viaRelay = address.uri(port: relay.port, ledger: "takeover")
        #expect(try await box.run("add", server.url("/f.bin"), env: ["DLEDGER_LEDGER": direct]).status == 0)
        let a = try Running(
            box.process(["run", "--until-idle", "--host-name", "lab"], env: ["DLEDGER_LEDGER": viaRelay]),
            stdin: nil)
        defer { if a.process.isRunning { a.process.terminate() } }
        #expect(await eventually(30) { partialSize(box.partialPath(1)) > 0 }, "A never started: \(a.output)")

        // The server restarts while A's path is cut: A's session, and its lock with it, are gone.
        relay.cut(true)
        try cluster.stopServer()
        try cluster.startServer()
        // The transfer goes on: A places the file, its completion waits in memory.
        #expect(await eventually(30) { box.contents("f.bin") != nil }, "A placed nothing: \(a.output)")
        // Someone pauses the task from elsewhere (so that B has nothing to transfer), and B, named `lab` too, starts.
        #expect(try await box.run("pause", "1", env: ["DLEDGER_LEDGER": direct]).status == 0)
        let b = try Running(
            box.process(["run", "--host-name", "lab"], env: ["DLEDGER_LEDGER": direct]), stdin: nil)
        defer { if b.process.isRunning { b.process.terminate() } }
        let holding = """
            SELECT count(*) FROM pg_locks l JOIN pg_stat_activity s ON s.pid = l.pid
            WHERE l.locktype = 'advisory' AND l.granted
              AND s.application_name = 'dledger run \(b.process.processIdentifier) lab'
            """
        let holds = await eventually(20) { (try? psql(cluster.uri, holding)) == "1" }
        #expect(holds, "B does not hold the lock: \(b.output)")
        #expect(a.process.isRunning, "A ended while cut off: \(a.output)")

        // A's path is back: it records what waited and stops, naming B.
        relay.cut(false)
        let stopped = await a.wait()
        #expect(stopped.status != 0, "\(stopped.out) \(stopped.err)")
        #expect(
            stopped.err.contains(
                "another downloader (pid \(b.process.processIdentifier)) took this ledger while the database was "
                    + "out of reach: stopped"),
            "\(stopped.err)")
        #expect(stopped.err.split(separator: "\n").count == 1, "\(stopped.err)")
        #expect(b.process.isRunning, "B ended: \(b.output)")
        b.interrupt()
        let bEnded = await b.wait()
        #expect(bEnded.status == 0 || bEnded.status == 130, "\(bEnded.out) \(bEnded.err)")

        #expect(box.contents("f.bin") == Body.generatedBytes(seed: 41, in: 0..<size))
        let log = try await box.run("log", "--json", env: ["DLEDGER_LEDGER": direct]).jsonLines
        let kinds = log.compactMap { $0["kind"] as? String }
        // A's completion is in the log, once, after the pause it could not see.
        #expect(kinds.filter { $0 == "transferCompleted" }.count == 1, "\(kinds)")
        let paused = kinds.firstIndex(of: "tasksPaused")
        let completed = kinds.firstIndex(of: "transferCompleted")
        #expect(paused != nil && completed != nil && paused! < completed!, "\(kinds)")
        let seqs = log.compactMap { $0["seq"] as? Int }
        #expect(seqs == Array(1...seqs.count), "gaps: \(seqs)")
        let verified = try await box.run("verify", env: ["DLEDGER_LEDGER": direct])
        #expect(verified.status == 0, "\(verified.out) \(verified.err)")
    }
}
