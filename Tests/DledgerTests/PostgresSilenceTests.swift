import Foundation
import LoopbackHTTP
import PostgresSupport
import Testing

/// A network that goes silent in the middle of a statement (every packet dropped, nothing closed or reset): a
/// command learns that the database is out of reach within the bound of the TCP settings the store gives libpq
/// (docs/postgres.md, "Losing the database"), not once TCP's retransmissions give up, about 15 minutes later; a
/// running downloader says so, keeps what it has, and finishes once the network speaks again.
struct PostgresSilenceTests {
    @Test(.timeLimit(.minutes(2)), .enabled(if: NetworkNamespace.isAvailable))
    func aCommandWaitingOnASilentServerSaysItIsOutOfReachWithinTheBound() async throws {
        let cluster = try PostgresOwnCluster()
        defer { cluster.remove() }
        let box = try DledgerSandbox()
        let direct = cluster.ledger("silent")
        #expect(
            try await box.run("add", "https://example.com/a.iso", env: ["DLEDGER_LEDGER": direct]).status == 0
        )
        // The command's host: a network of its own, whose only way to the server is a relay.
        let address = try PostgresTCPAddress(cluster.uri)
        let network = try NetworkNamespace()
        defer { network.remove() }
        let relay = try TCPRelay(to: address.port, listeningIn: network.path)
        defer { relay.stop() }
        let viaRelay = address.uri(port: relay.port, ledger: "silent")
        func ls() throws -> Running {
            let process = box.process(["ls"], env: ["DLEDGER_LEDGER": viaRelay])
            network.enter(process)
            return try Running(process, stdin: nil)
        }
        let reached = try await ls().wait()
        #expect(reached.status == 0 && reached.out.contains("a.iso"), "\(reached.out) \(reached.err)")

        // Another session holds the counter row's table: the command's read of it waits in the server.
        let holder = Process()
        holder.executableURL = URL(fileURLWithPath: "/usr/bin/env")
        holder.arguments = [
            "psql", "-X", "-q", "-d", cluster.uri, "-c", "BEGIN",
            "-c", "LOCK TABLE dledger_silent.head IN ACCESS EXCLUSIVE MODE", "-c", "SELECT pg_sleep(100)",
        ]
        holder.standardOutput = FileHandle.nullDevice
        holder.standardError = FileHandle.nullDevice
        try holder.run()
        defer { holder.terminate() }
        let locked = """
            SELECT count(*) FROM pg_locks WHERE relation = 'dledger_silent.head'::regclass
              AND mode = 'AccessExclusiveLock' AND granted
            """
        #expect(await eventually(20) { (try? psql(cluster.uri, locked)) == "1" }, "the table was not locked")
        let waiting = try ls()
        defer { if waiting.process.isRunning { waiting.process.terminate() } }
        let inLockWait = """
            SELECT count(*) FROM pg_stat_activity
            WHERE application_name = 'dledger \(waiting.process.processIdentifier)' AND wait_event_type = 'Lock'
            """
        #expect(
            await eventually(20) { (try? psql(cluster.uri, inLockWait)) == "1" },
            "ls is not waiting in the server: \(waiting.output)")

        // The network goes silent: the request was taken, its answer never comes, and nothing says so.
        let silent = ContinuousClock.now
        try network.silence()
        let ended = await waiting.wait()
        let took = ContinuousClock.now - silent
        #expect(ended.status == 65, "\(ended.out) \(ended.err)")
        #expect(
            ended.err.split(separator: "\n").count == 1 && ended.err.contains("cannot connect to ledger"),
            "\(ended.err)")
        // Not at once (the silence said nothing), and within the keepalives' 14 s and the user timeout's 15 s, with
        // room for a loaded machine; with TCP's defaults it would wait about 15 minutes.
        #expect(took >= .seconds(5) && took < .seconds(30), "ls gave up after \(took)")
    }
    /// `run` in a network of its own reaches the database and the web server through relays. The network goes
    /// silent mid-transfer: within the bound the run says the database is unreachable and goes on waiting (it
    /// neither hangs on the silent connection nor ends); once the network speaks again it finishes the file byte for
    /// byte and records it once, every seq in order.
    @Test(.timeLimit(.minutes(3)), .enabled(if: NetworkNamespace.isAvailable))
    func aRunWhoseNetworkGoesSilentSaysSoAndFinishesOnceItSpeaksAgain() async throws {
        let cluster = try PostgresOwnCluster()
        defer { cluster.remove() }
        let box = try DledgerSandbox()
        let server = try LoopbackServer()
        defer { server.stop() }
        let size: Int64 = 1_500_000
        server.servePaced("/s.bin", size: size, seed: 51, etag: "\"s\"")
        let network = try NetworkNamespace()
        defer { network.remove() }
        let address = try PostgresTCPAddress(cluster.uri)
        let database = try TCPRelay(to: address.port, listeningIn: network.path)
        defer { database.stop() }
        let web = try TCPRelay(to: server.port, listeningIn: network.path)
        defer { web.stop() }
        let direct = cluster.ledger("silentrun")
        let added = try await box.run(
            "add", "http://127.0.0.1:\(web.port)/s.bin", "--connections", "1", env: ["DLEDGER_LEDGER": direct]
        )
        #expect(added.status == 0, "\(added.err)")
        let process = box.process(
            ["run", "--until-idle"],
            env: ["DLEDGER_LEDGER": address.uri(port: database.port, ledger: "silentrun")])
        network.enter(process)
        let run = try Running(process, stdin: nil)
        defer { if run.process.isRunning { run.process.terminate() } }
        #expect(
            await eventually(30) { partialSize(box.partialPath(1)) > 200_000 }, "no transfer: \(run.output)")

        try network.silence()
        let silent = ContinuousClock.now
        let said = await eventually(45) { run.output.contains("database unreachable, retrying") }
        let took = ContinuousClock.now - silent
        #expect(said, "the run never said its database was out of reach: \(run.output)")
        #expect(took < .seconds(40), "it took \(took)")
        #expect(run.process.isRunning, "the run ended while its network was silent: \(run.output)")

        try network.speak()
        let finished = await run.wait()
        #expect(finished.status == 0, "\(finished.out) \(finished.err)")
        let whole = box.contents("s.bin") == Body.generatedBytes(seed: 51, in: 0..<size)
        #expect(whole, "s.bin is not the served file")
        let log = try await box.run("log", "--json", env: ["DLEDGER_LEDGER": direct]).jsonLines
        let kinds = log.compactMap { $0["kind"] as? String }
        #expect(kinds.filter { $0 == "transferCompleted" }.count == 1, "\(kinds)")
        let seqs = log.compactMap { $0["seq"] as? Int }
        #expect(seqs == Array(1...seqs.count), "gaps: \(seqs)")
        let verified = try await box.run("verify", env: ["DLEDGER_LEDGER": direct])
        #expect(verified.status == 0, "\(verified.out) \(verified.err)")
    }
}
