import Foundation
import Glibc
import LoopbackHTTP
import Testing

/// Stopping is always clean (issue 10 §3): repeated signals never cut the stop short, and `ls` never claims a
/// download that no downloader runs.
@Suite struct StopTests {
    /// A sandbox with one throttled 2 MB download, and the URL.
    static func slowDownload(_ store: LedgerStoreKind = .sqlite) throws -> (
        DledgerSandbox, LoopbackServer, String
    ) {
        let box = try DledgerSandbox(store: store)
        let server = try LoopbackServer()
        server.serve(
            "/slow.bin", Resource(size: 2_000_000, seed: 3, faults: Faults(throttleBytesPerSecond: 200_000)))
        return (box, server, server.url("/slow.bin"))
    }

    /// The stop was recorded: the last transfer fact of #1 is `transferPaused`, the task waits again, and the run
    /// lock names nobody.
    static func expectCleanStop(_ box: DledgerSandbox, _ finished: Finished) async throws {
        #expect(finished.status == 130, "\(finished.err)")
        let kinds = try await box.run("log", "--task", "1", "--json").jsonLines.compactMap {
            $0["kind"] as? String
        }
        #expect(kinds.last == "transferPaused", "\(kinds)")
        #expect(try await box.task(1)?["state"] as? String == "waiting")
        let lock = FileManager.default.contents(atPath: box.ledger + ".lock") ?? Data()
        #expect(lock.isEmpty, "the lock still names \(String(decoding: lock, as: UTF8.self))")
    }

    // SQLite only: expectCleanStop reads the run lock file, which a PostgreSQL ledger has not (a session lock).
    @Test(arguments: [SIGTERM, SIGINT, SIGHUP])
    func twoSignalsInARowStillStopCleanly(_ sig: Int32) async throws {
        let (box, server, url) = try Self.slowDownload()
        try await box.run("add", url)
        let runner = try box.start("run")
        #expect(await eventually { partialSize(box.partialPath(1)) > 0 })
        kill(runner.process.processIdentifier, sig)
        kill(runner.process.processIdentifier, sig)
        usleep(2_000)
        kill(runner.process.processIdentifier, sig)
        try await Self.expectCleanStop(box, await runner.wait())
        _ = server
    }

    // SQLite only: expectCleanStop reads the run lock file, which a PostgreSQL ledger has not (a session lock).
    @Test func getUnderCoreutilsTimeoutStopsCleanly() async throws {
        let (box, server, url) = try Self.slowDownload()
        // timeout signals the command, then the whole process group it made: two SIGTERMs at once.
        let p = box.process([])
        p.executableURL = URL(fileURLWithPath: "/usr/bin/timeout")
        p.arguments = ["--preserve-status", "-s", "TERM", "2", DledgerSandbox.binary, "get", url]
        let finished = await (try Running(p, stdin: nil)).wait()
        try await Self.expectCleanStop(box, finished)
        #expect(finished.err.contains("interrupted: #1 will resume"), "\(finished.err)")
        _ = server
    }

    @Test(arguments: LedgerStoreKind.allCases)
    func lsShowsADownloadWithoutADownloaderAsInterrupted(store: LedgerStoreKind) async throws {
        let (box, server, url) = try Self.slowDownload(store)
        try await box.run("add", url)
        let runner = try box.start("run")
        #expect(await eventually { partialSize(box.partialPath(1)) > 0 })
        #expect(try await box.task(1)?["state"] as? String == "downloading")
        #expect(try await box.run("ls").out.contains("#1  downloading"))
        kill(runner.process.processIdentifier, SIGKILL)
        _ = await runner.wait()
        // The log still says downloading (the killed run could not say otherwise); ls tells the truth.
        let kinds = try await box.run("log", "--json").jsonLines.compactMap { $0["kind"] as? String }
        #expect(kinds.last != "transferPaused")
        #expect(try await box.task(1)?["state"] as? String == "interrupted")
        let text = try await box.run("ls").out
        #expect(text.contains("#1  interrupted"), "\(text)")
        // The next run resumes it.
        let again = try box.start("run")
        #expect(try await eventually { try await box.task(1)?["state"] as? String == "downloading" })
        again.interrupt()
        #expect(await again.wait().status == 130)
        _ = server
    }
}
