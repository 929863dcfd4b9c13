import Foundation
import LoopbackHTTP
import PostgresSupport
import Testing

/// `dledger` with `--ledger postgresql://…` (issue 25): the same commands on a ledger in PostgreSQL, bad URIs and a
/// refused login in one line, and backups between SQLite and PostgreSQL that keep the chain.
struct PostgresLedgerTests {
    @Test func commandsWorkOnAPostgresLedgerAndReadsOfAMissingOneCreateNothing() async throws {
        let box = try DledgerSandbox()
        let uri = try PostgresTestCluster.freshLedger("cli")
        let missing = try await box.run("ls", "--ledger", uri)
        #expect(missing.status != 0 && missing.err.contains("no ledger at"), "\(missing.err)")
        let added = try await box.run(
            "add", "--ledger", uri, "https://example.com/a.iso", "https://example.com/b.iso")
        #expect(added.status == 0, "\(added.err)")
        let list = try await box.run("ls", "--json", "--ledger", uri)
        #expect(list.status == 0 && list.out.contains("a.iso") && list.out.contains("b.iso"), "\(list.err)")
        let verified = try await box.run("verify", "--skip-files", "--ledger", uri)
        #expect(verified.status == 0, "\(verified.out) \(verified.err)")
        // Through the environment too, as every other location.
        let paused = try await box.run("pause", "1", env: ["DLEDGER_LEDGER": uri])
        #expect(paused.status == 0, "\(paused.err)")
        #expect(!FileManager.default.fileExists(atPath: box.ledger))
    }

    @Test func badURIsAndARefusedLoginSayWhyInOneLine() async throws {
        let box = try DledgerSandbox()
        for bad in ["postgresql://h/db?ledger=No-Caps", "postgresql://h/db?bogus=1"] {
            let r = try await box.run("add", "--ledger", bad, "https://example.com/a.iso")
            #expect(r.status == 64, "\(bad): \(r.err)")
            #expect(r.err.split(separator: "\n").count == 1, "\(r.err)")
        }
        let cluster = try PostgresTestCluster.uri
        let parts = cluster.split(separator: "?", maxSplits: 1)
        let query = parts.count > 1 ? parts[1].split(separator: "&").filter { !$0.hasPrefix("user=") } : []
        let refused =
            parts[0].replacingOccurrences(of: "://", with: "://nobody_here:hunter2@") + "?"
            + query.joined(separator: "&") + "&ledger=refused"
        let r = try await box.run("add", "--ledger", refused, "https://example.com/a.iso")
        #expect(r.status == 65, "\(r.err)")
        #expect(r.err.split(separator: "\n").count == 1 && r.err.contains("nobody_here"), "\(r.err)")
        #expect(!r.err.contains("hunter2") && !r.out.contains("hunter2"))
        #expect(!FileManager.default.fileExists(atPath: box.ledger))
        // A server that is not there: libpq's hint comes after a newline and a tab, and both go.
        let away = try await box.run("ls", "--ledger", "postgresql://me:hunter2@127.0.0.1:1/db")
        #expect(away.status == 65, "\(away.err)")
        #expect(away.err.hasPrefix("error: cannot connect to ledger postgresql://me:***@127.0.0.1:1/db: "))
        #expect(away.err.split(separator: "\n").count == 1 && !away.err.contains("\t"), "\(away.err)")
        let nothing = try await box.run("ls", "--ledger", cluster + "&ledger=refused")
        #expect(nothing.status != 0 && nothing.err.contains("no ledger at"), "\(nothing.err)")
    }

    /// SQLite to PostgreSQL and back: every step verifies, and the last copy ends on the first one's head hash.
    @Test func backupToPostgresAndBackKeepsTheHeadHash() async throws {
        let box = try DledgerSandbox()
        let added = try await box.run("add", "https://example.com/a.iso", "https://example.com/b.iso")
        #expect(added.status == 0, "\(added.err)")
        #expect(try await box.run("pause", "2").status == 0)
        #expect(try await box.run("rename", "1", "first.iso").status == 0)
        // A password in the URI (the test cluster trusts every local login, so any will do) is never printed.
        let uri = try PostgresTestCluster.freshLedger("bk") + "&password=hunter2"
        let there = try await box.run("backup", "--json", uri)
        #expect(there.status == 0 && there.out.contains("password=***"), "\(there.out) \(there.err)")
        let again = try await box.run("backup", uri)
        #expect(again.status != 0 && again.err.contains("already"), "\(again.err)")
        let verified = try await box.run("verify", "--skip-files", "--ledger", uri)
        #expect(verified.status == 0, "\(verified.out) \(verified.err)")
        let stats = try await box.run("stats", "--ledger", uri)
        #expect(stats.status == 0 && stats.out.contains("password=***"), "\(stats.out) \(stats.err)")
        let statsJSON = try await box.run("stats", "--json", "--ledger", uri)
        #expect(statsJSON.status == 0, "\(statsJSON.err)")
        for output in [there, again, verified, stats, statsJSON] {
            #expect(!output.out.contains("hunter2") && !output.err.contains("hunter2"))
        }
        let back = box.root + "/back.sqlite"
        let returned = try await box.run("backup", "--ledger", uri, back)
        #expect(returned.status == 0, "\(returned.err)")
        #expect(try await box.run("verify", "--skip-files", "--ledger", back).status == 0)
        #expect(try headHash(box.ledger) == headHash(back))
        #expect(try headHash(back).count == 64)
    }

    /// One downloader per PostgreSQL ledger, as per SQLite file (a session advisory lock keyed by the ledger's
    /// schema): a second `run` is refused naming the first, its password never shown, and once the first stops a
    /// new `run` takes over and finishes the file.
    @Test func aSecondRunOnOnePostgresLedgerIsRefusedAndTheNextOneFinishes() async throws {
        let box = try DledgerSandbox()
        let server = try LoopbackServer()
        defer { server.stop() }
        let size: Int64 = 450_000
        server.serve(
            "/slow.bin",
            Resource(size: size, seed: 5, etag: "\"s\"", faults: Faults(throttleBytesPerSecond: 150_000)))
        let uri = try PostgresTestCluster.freshLedger("run") + "&password=hunter2"
        #expect(try await box.run("add", "--ledger", uri, server.url("/slow.bin")).status == 0)
        let first = try box.start("run", "--ledger", uri)
        defer { if first.process.isRunning { first.process.terminate() } }
        let downloading = await eventually(15) { partialSize(box.partialPath(1)) > 0 }
        #expect(downloading, "the first run never wrote its partial file")
        let second = try await box.run("run", "--ledger", uri)
        #expect(second.status != 0)
        #expect(
            second.err.contains("another downloader (pid \(first.process.processIdentifier))"),
            "\(second.err)")
        #expect(!second.err.contains("hunter2") && !second.out.contains("hunter2"))
        first.interrupt()
        let stopped = await first.wait()
        #expect(stopped.status == 0 || stopped.status == 130, "\(stopped.err)")
        let next = try await box.run("run", "--until-idle", "--ledger", uri)
        #expect(next.status == 0, "\(next.err)")
        #expect(box.contents("slow.bin") == Body.generatedBytes(seed: 5, in: 0..<size))
        #expect(!FileManager.default.fileExists(atPath: box.ledger))
    }

    /// The hash of the last event, in hex, read with the sqlite3 shell.
    private func headHash(_ path: String) throws -> String {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/env")
        process.arguments = [
            "sqlite3", "-readonly", path, "SELECT hex(hash) FROM events ORDER BY seq DESC LIMIT 1",
        ]
        let output = Pipe()
        process.standardOutput = output
        try process.run()
        let data = output.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        return String(decoding: data, as: UTF8.self).trimmingCharacters(in: .whitespacesAndNewlines)
    }
}
