import Foundation
import LoopbackHTTP
import PostgresSupport
import Testing

/// Losing the database (issue 25): PostgreSQL stopped during a `run` and started again. The run's transfers go on,
/// their facts wait in memory and are appended in order once the server is back; commands meanwhile fail in one
/// line. The test has a cluster of its own (the shared one stays up for the other tests).
struct PostgresOutageTests {
    @Test func aRunOutlivesFiveSecondsWithoutItsDatabaseAndLosesNothing() async throws {
        let cluster = try PostgresOwnCluster()
        defer { cluster.remove() }
        let box = try DledgerSandbox()
        let server = try LoopbackServer()
        defer { server.stop() }
        // At 100 kB/s: the first ends while the server is stopped, the next two go on after it is back, the fourth
        // waits for a free slot (three at a time): none starts while the list may be behind the log.
        let sizes: [Int64] = [450_000, 1_000_000, 1_000_000, 300_000]
        for (n, size) in sizes.enumerated() {
            server.servePaced("/f\(n + 1).bin", size: size, seed: UInt64(n + 11), etag: "\"f\(n + 1)\"")
        }
        let uri = cluster.ledger("outage")
        let added = try await box.run(
            ["add", "--ledger", uri] + (1...sizes.count).map { server.url("/f\($0).bin") })
        #expect(added.status == 0, "\(added.err)")
        let run = try box.start("run", "--until-idle", "--ledger", uri)
        defer { if run.process.isRunning { run.process.terminate() } }
        let downloading = await eventually(30) { partialSize(box.partialPath(1)) > 0 }
        #expect(downloading, "the run never wrote a partial file")
        #expect(box.contents("f1.bin") == nil, "the first file was done before the server stopped")

        try cluster.stopServer()
        let stoppedAt = Date()
        // A command while the database is away: one line, at once (exit 65 as any server that cannot be reached).
        let refused = try await box.run("add", "--ledger", uri, server.url("/never.bin"))
        #expect(refused.status == 65, "\(refused.out) \(refused.err)")
        #expect(refused.err.split(separator: "\n").count == 1, "\(refused.err)")
        #expect(refused.err.hasPrefix("error: cannot connect to ledger "), "\(refused.err)")
        let listed = try await box.run("ls", "--ledger", uri)
        #expect(listed.status == 65 && listed.err.split(separator: "\n").count == 1, "\(listed.err)")
        #expect(Date().timeIntervalSince(stoppedAt) < 4, "the commands took too long to fail")
        // The transfers went on meanwhile: the small file was placed.
        let placed = await eventually(20) { box.contents("f1.bin") != nil }
        #expect(placed, "no transfer finished while the database was away")
        try await Task.sleep(for: .seconds(max(0.5, 5 - Date().timeIntervalSince(stoppedAt))))
        #expect(run.process.isRunning, "the run ended without its database: \(run.output)")
        try cluster.startServer()

        let finished = await run.wait()
        #expect(finished.status == 0, "\(finished.out) \(finished.err)")
        #expect(finished.out.contains("database unreachable, retrying"), "\(finished.out)")
        #expect(finished.out.contains("database reachable again"), "\(finished.out)")
        let lost = finished.out.range(of: "database unreachable")?.lowerBound
        let fourth = finished.out.range(of: "started  #4")?.lowerBound
        #expect(lost != nil && fourth != nil && lost! < fourth!, "a transfer started during the outage")
        for (n, size) in sizes.enumerated() {
            #expect(
                box.contents("f\(n + 1).bin") == Body.generatedBytes(seed: UInt64(n + 11), in: 0..<size),
                "f\(n + 1).bin")
        }
        #expect(box.contents("never.bin") == nil)
        // The log: seqs 1…head without a gap, the head row on the last one, each task completed once, and the
        // command refused during the outage nowhere.
        let rows = try psql(
            cluster.uri,
            """
            SELECT count(*), min(seq), max(seq), (SELECT seq FROM dledger_outage.head),
                   (SELECT count(*) FROM dledger_outage.events WHERE kind = 'transferCompleted'),
                   (SELECT count(DISTINCT tasks) FROM dledger_outage.events WHERE kind = 'transferCompleted'),
                   (SELECT count(*) FROM dledger_outage.events WHERE kind = 'tasksAdded')
            FROM dledger_outage.events
            """)
        let counts = rows.split(separator: "|").map { Int($0) ?? -1 }
        #expect(counts.count == 7, "\(rows)")
        if counts.count == 7 {
            #expect(counts[0] == counts[2] && counts[1] == 1 && counts[3] == counts[2], "gaps: \(rows)")
            #expect(counts[4] == sizes.count && counts[5] == sizes.count, "completions: \(rows)")
            #expect(counts[6] == 1, "adds: \(rows)")
        }
        let verified = try await box.run("verify", "--ledger", uri)
        #expect(verified.status == 0, "\(verified.out) \(verified.err)")
        #expect(!FileManager.default.fileExists(atPath: box.partialPath(1)), "a recorded partial was left")
    }

    /// The run lock's session ends with the server: once it is back the run takes the lock again, so a second
    /// `run` is still refused, naming the first; the first then finishes the file.
    @Test func afterARestartTheRunHoldsItsLockAgain() async throws {
        let cluster = try PostgresOwnCluster()
        defer { cluster.remove() }
        let box = try DledgerSandbox()
        let server = try LoopbackServer()
        defer { server.stop() }
        let size: Int64 = 2_000_000
        server.servePaced("/slow.bin", size: size, seed: 9, etag: "\"s\"")
        let uri = cluster.ledger("relock")
        #expect(try await box.run("add", "--ledger", uri, server.url("/slow.bin")).status == 0)
        let first = try box.start("run", "--until-idle", "--ledger", uri)
        defer { if first.process.isRunning { first.process.terminate() } }
        let downloading = await eventually(30) { partialSize(box.partialPath(1)) > 0 }
        #expect(downloading, "the run never wrote its partial file")
        try cluster.stopServer()
        try await Task.sleep(for: .seconds(1))
        try cluster.startServer()
        // The run notices within a tick and takes the lock again once its store reconnected (at most 5 s apart).
        try await Task.sleep(for: .seconds(7))
        #expect(first.process.isRunning, "the first run ended: \(first.output)")
        let second = try await box.run("run", "--until-idle", "--ledger", uri)
        #expect(second.status != 0, "\(second.out) \(second.err)")
        #expect(
            second.err.contains("another downloader (pid \(first.process.processIdentifier))"),
            "\(second.err)")
        let finished = await first.wait()
        #expect(finished.status == 0, "\(finished.out) \(finished.err)")
        #expect(box.contents("slow.bin") == Body.generatedBytes(seed: 9, in: 0..<size))
        let verified = try await box.run("verify", "--ledger", uri)
        #expect(verified.status == 0, "\(verified.out) \(verified.err)")
    }

    /// A server that accepts the connection and never answers (a hung host, a dead network path the handshake
    /// still crossed): a command gives up after libpq's `connect_timeout` (5 s unless the URI says otherwise), in one
    /// line, instead of hanging.
    @Test func aServerThatNeverAnswersFailsACommandWithinTheConnectTimeout() async throws {
        let box = try DledgerSandbox()
        let listener = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        #expect(listener >= 0)
        defer { close(listener) }
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        var length = socklen_t(MemoryLayout<sockaddr_in>.size)
        let bound = withUnsafeMutablePointer(to: &address) { pointer in
            pointer.withMemoryRebound(to: sockaddr.self, capacity: 1) { generic in
                bind(listener, generic, length) == 0 && listen(listener, 8) == 0
                    && getsockname(listener, generic, &length) == 0
            }
        }
        #expect(bound)
        let port = UInt16(bigEndian: address.sin_port)
        let started = Date()
        let r = try await box.run("ls", "--ledger", "postgresql://me@127.0.0.1:\(port)/db?sslmode=disable")
        let took = Date().timeIntervalSince(started)
        #expect(r.status == 65, "\(r.err)")
        #expect(r.err.split(separator: "\n").count == 1 && r.err.contains("timeout expired"), "\(r.err)")
        #expect(took >= 4 && took < 15, "gave up after \(took) s")
        #expect(!FileManager.default.fileExists(atPath: box.ledger))
    }
}
