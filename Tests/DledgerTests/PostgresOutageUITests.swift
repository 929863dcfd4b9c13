import Foundation
import LoopbackHTTP
import PostgresSupport
import Testing

/// `dledger ui` on a ledger in PostgreSQL whose server goes away: the header says so in `run`'s words, keys that
/// would append fail in one line and append nothing, and once the server is back the list goes on; a watching ui
/// keeps its sessions instead of opening one a second. Each test has a cluster of its own.
struct PostgresOutageUITests {
    @Test(.enabled(if: TmuxTerminal.isAvailable, "needs tmux"), .timeLimit(.minutes(3)))
    func theUiSaysTheDatabaseIsAwayRefusesKeysAndGoesOnWhenItIsBack() async throws {
        let cluster = try PostgresOwnCluster()
        defer { cluster.remove() }
        let box = try DledgerSandbox()
        let server = try LoopbackServer()
        defer { server.stop() }
        let size: Int64 = 1_200_000
        server.servePaced("/a.bin", size: size, seed: 21, etag: "\"a\"")
        // The small one finishes while the server is away: its facts wait, and the header counts them.
        let small: Int64 = 500_000
        server.servePaced("/c.bin", size: small, seed: 23, etag: "\"c\"")
        let uri = cluster.ledger("uiaway")
        let env = ["DLEDGER_LEDGER": uri]
        #expect(
            try await box.run(
                "add", server.url("/a.bin"), "http://127.0.0.1:9/b.iso", server.url("/c.bin"), env: env
            ).status == 0)
        #expect(try await box.run("pause", "2", env: env).status == 0)
        let t = try UITests().ui(box, columns: 80, rows: 24, environment: env)
        defer { t.close() }
        let running = try await t.waitFor(20) { $0.first?.contains("downloading here") == true }
        #expect(running != nil, "\(t.shown)")
        #expect(await eventually(30) { partialSize(box.partialPath(1)) > 0 }, "no partial: \(t.shown)")

        try cluster.stopServer()
        let away = try await t.waitFor(15) { Self.outageWords($0.first ?? "") != nil }
        #expect(away != nil, "no outage line: \(t.shown)")
        let header = away?.first ?? ""
        #expect(header.hasPrefix(" dledger ui") && !header.contains("seq "), "\(header)")
        // The small transfer ends meanwhile (its file placed): its facts wait, counted in the header.
        let waiting = try await t.waitFor(20) {
            Self.outageWords($0.first ?? "").map { !$0.contains("(0 facts") } == true
        }
        #expect(waiting != nil, "no fact waits: \(t.shown)")
        #expect(box.contents("c.bin") != nil)
        // A key that appends (pause all) is refused in the message line, in one line.
        try t.keys("A", "p")
        let refused = try await t.waitFor(10) {
            $0.count == 24 && $0[22].contains("error: database out of reach")
        }
        #expect(refused != nil, "\(t.shown)")
        #expect(
            refused?[22].contains("error: database out of reach: nothing was changed") == true, "\(t.shown)")
        // Wider, the view's words fit beside it.
        try t.resize(columns: 160, rows: 24)
        let wide = try await t.waitFor(10) {
            Self.outageWords($0.first ?? "") != nil && $0.first?.contains("manual order") == true
        }
        #expect(wide != nil, "\(t.shown)")
        try t.resize(columns: 80, rows: 24)
        let narrow = try await t.waitFor(10) {
            Self.outageWords($0.first ?? "") != nil && $0.first?.contains("manual order") == false
        }
        #expect(narrow != nil, "\(t.shown)")
        #expect(
            t.lastScreen.contains { $0.contains("#1 a.bin") }
                && t.lastScreen.contains { $0.contains("#2 b.iso") })

        try cluster.startServer()
        let back = try await t.waitFor(20) {
            $0.first?.contains("unreachable") == false && $0.first?.contains("downloading here") == true
        }
        #expect(back != nil, "the outage line stayed: \(t.shown)")
        // The list goes on: the transfer finishes, the paused task stays paused.
        let done = try await t.waitFor(40) { s in
            s.contains { $0.contains("#1 a.bin") && $0.contains("finished") }
                && s.contains { $0.contains("#2 b.iso") && $0.contains("paused") }
                && s.contains { $0.contains("#3 c.bin") && $0.contains("finished") }
        }
        #expect(done != nil, "\(t.shown)")
        try t.keys("q")
        try await UITests().expectRestored(t, exit: 0)
        #expect(box.contents("a.bin") == Body.generatedBytes(seed: 21, in: 0..<size))
        #expect(box.contents("c.bin") == Body.generatedBytes(seed: 23, in: 0..<small))
        // The refused pause is nowhere: the one pause is the command's before the ui.
        let kinds = try await box.run("log", "--json", env: env).jsonLines.compactMap {
            $0["kind"] as? String
        }
        #expect(kinds.filter { $0 == "tasksPaused" }.count == 1, "\(kinds)")
        #expect(kinds.filter { $0 == "transferCompleted" }.count == 2, "\(kinds)")
        let seqs = try await box.run("log", "--json", env: env).jsonLines.compactMap { $0["seq"] as? Int }
        #expect(seqs == Array(1...seqs.count), "gaps: \(seqs)")
        let verified = try await box.run("verify", env: env)
        #expect(verified.status == 0, "\(verified.out) \(verified.err)")
    }

    /// `run`'s words in a header line, if it has them: `database unreachable, retrying in N s (M facts waiting)`
    /// (or `retrying now`).
    static func outageWords(_ line: String) -> String? {
        guard let start = line.range(of: "database unreachable, retrying ") else { return nil }
        let rest = line[start.lowerBound...]
        guard let end = rest.range(of: " waiting)") else { return nil }
        let words = String(rest[..<end.upperBound])
        let pattern = #"^database unreachable, retrying (in [0-9]+ s|now) \([0-9]+ facts? waiting\)$"#
        return words.range(of: pattern, options: .regularExpression) != nil ? words : nil
    }

    /// A watching ui asks whose downloader runs once a second: on one session kept for it, so that its sessions stay
    /// the same (no new connection a second: the server's session counter stands still). Through a restart it says the
    /// database is away, then follows the downloader again.
    @Test(.enabled(if: TmuxTerminal.isAvailable, "needs tmux"), .timeLimit(.minutes(2)))
    func aWatchingUiKeepsItsSessions() async throws {
        let cluster = try PostgresOwnCluster()
        defer { cluster.remove() }
        let box = try DledgerSandbox()
        let uri = cluster.ledger("watching")
        let env = ["DLEDGER_LEDGER": uri]
        #expect(try await box.run("add", "http://127.0.0.1:9/a.iso", env: env).status == 0)
        #expect(try await box.run("pause", "--all", env: env).status == 0)
        let t = try UITests().ui(box, "--watch", environment: env)
        defer { t.close() }
        #expect(try await t.waitFor("#1 a.iso", seconds: 15) != nil, "\(t.shown)")
        let pid = try #require(try t.programPID())
        // Settled: the first looks made their connections.
        try await Task.sleep(for: .seconds(2))
        // One psql session for the whole measure, a transaction per statement (its own connection may be counted
        // between the two reads: one session at most).
        let sessions = "SELECT sessions FROM pg_stat_database WHERE datname = current_database()"
        let backends =
            "SELECT string_agg(pid::text, ',' ORDER BY pid) FROM pg_stat_activity "
            + "WHERE application_name = 'dledger \(pid)'"
        let measured = try psql(
            cluster.uri,
            [backends, sessions, "SELECT pg_sleep(5)", "SELECT pg_stat_clear_snapshot()", backends, sessions]
        ).split(separator: "\n").map(String.init).filter { !$0.isEmpty }
        #expect(measured.count == 4, "\(measured)")
        if measured.count == 4 {
            let before = measured[0].split(separator: ",")
            #expect(!before.isEmpty && before.count <= 3, "the ui's sessions: \(measured[0])")
            #expect(measured[0] == measured[2], "the ui's sessions changed: \(measured)")
            let opened = (Int(measured[3]) ?? 0) - (Int(measured[1]) ?? 0)
            #expect(opened >= 0 && opened <= 1, "sessions were opened meanwhile: \(measured)")
        }
        // It still follows: a downloader started elsewhere is named.
        let run = try Running(box.process(["run"], env: env), stdin: nil)
        let watching = try await t.waitFor(15) {
            $0.first?.contains("watching: pid \(run.process.processIdentifier) downloads") == true
        }
        #expect(watching != nil, "\(t.shown)")
        // The server restarts: the watcher says so (no facts of its own), then names the downloader again once the
        // run holds its lock again, on a session made again for the look.
        try cluster.stopServer()
        let away = try await t.waitFor(15) {
            Self.outageWords($0.first ?? "")?.hasSuffix("(0 facts waiting)") == true
        }
        #expect(away != nil, "\(t.shown)")
        try cluster.startServer()
        let again = try await t.waitFor(30) {
            $0.first?.contains("watching: pid \(run.process.processIdentifier) downloads") == true
                && $0.first?.contains("unreachable") == false
        }
        #expect(again != nil, "\(t.shown)")
        #expect(run.process.isRunning, "\(run.output)")
        run.interrupt()
        _ = await run.wait()
        let gone = try await t.waitFor(15) { $0.first?.contains("not downloading") == true }
        #expect(gone != nil, "\(t.shown)")
        try t.keys("q")
        try await UITests().expectRestored(t, exit: 0)
    }

    /// A ui that would download while another process does waits without trying the run lock again and again (each
    /// try a session): the server's session counter stands still; once the other ends, the ui takes over.
    @Test(.enabled(if: TmuxTerminal.isAvailable, "needs tmux"), .timeLimit(.minutes(2)))
    func aUiWaitingForAnotherDownloaderKeepsItsSessionsAndTakesOver() async throws {
        let cluster = try PostgresOwnCluster()
        defer { cluster.remove() }
        let box = try DledgerSandbox()
        let env = ["DLEDGER_LEDGER": cluster.ledger("waiting")]
        #expect(try await box.run("add", "http://127.0.0.1:9/a.iso", env: env).status == 0)
        #expect(try await box.run("pause", "--all", env: env).status == 0)
        let run = try Running(box.process(["run"], env: env), stdin: nil)
        defer { if run.process.isRunning { run.process.terminate() } }
        let runPid = run.process.processIdentifier
        let t = try UITests().ui(box, environment: env)
        defer { t.close() }
        let watching = try await t.waitFor(15) {
            $0.first?.contains("watching: pid \(runPid) downloads") == true
        }
        #expect(watching != nil, "\(t.shown)")
        try await Task.sleep(for: .seconds(1))
        let sessions = "SELECT sessions FROM pg_stat_database WHERE datname = current_database()"
        let measured = try psql(
            cluster.uri, [sessions, "SELECT pg_sleep(5)", "SELECT pg_stat_clear_snapshot()", sessions]
        ).split(separator: "\n").map(String.init).filter { !$0.isEmpty }
        #expect(measured.count == 2, "\(measured)")
        let opened = (Int(measured.last ?? "") ?? 0) - (Int(measured.first ?? "") ?? 0)
        #expect(
            measured.count == 2 && opened >= 0 && opened <= 1, "sessions were opened meanwhile: \(measured)")
        #expect(try t.screen().first?.contains("watching: pid \(runPid) downloads") == true, "\(t.shown)")
        run.interrupt()
        _ = await run.wait()
        let here = try await t.waitFor(15) { $0.first?.contains("downloading here (pid") == true }
        #expect(here != nil, "\(t.shown)")
        try t.keys("q")
        try await UITests().expectRestored(t, exit: 0)
    }
}
