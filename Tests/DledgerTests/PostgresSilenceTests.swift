import Foundation
import PostgresSupport
import Testing

/// A network that goes silent in the middle of a statement (every packet dropped, nothing closed or reset): a
/// command learns that the database is out of reach within the bound of the TCP settings the store gives libpq
/// (docs/postgres.md, "Losing the database"), not once TCP's retransmissions give up, about 15 minutes later.
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
}
