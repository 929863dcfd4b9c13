import DownloadLedger
import Foundation
import Glibc
import LoopbackHTTP
import Testing

/// Truthful progress from any process (issue 23): what `dledger run` or `serve` publishes on its activity board is
/// what `ls`, `stats` and RPC show in other processes, never more than has arrived; a killed run's partial shows
/// what its piece map holds; a retry says when, which attempt and why; a split transfer's pause keeps every
/// connection within `pause-hold`. Each runs on both stores: the board is a file beside a SQLite ledger and a row in
/// a PostgreSQL ledger's `activity` table (docs/postgres.md).
@Suite struct LiveActivityTests {
    /// Whether a downloader's board is left: the file beside a SQLite ledger, a row on a PostgreSQL ledger's.
    static func boardLeft(_ box: DledgerSandbox) throws -> Bool {
        switch box.store {
        case .sqlite: return FileManager.default.fileExists(atPath: box.ledger + "-activity")
        case .postgres: return try box.psql("SELECT count(*) FROM activity") != "0"
        }
    }

    /// Puts `forged` where the downloader's record is: the file's whole text, or the record of every row.
    static func forge(_ box: DledgerSandbox, _ forged: [UInt8]) throws {
        switch box.store {
        case .sqlite:
            let board = box.ledger + "-activity"
            unlink(board)
            try Data(forged).write(to: URL(fileURLWithPath: board))
        case .postgres:
            // Too long for one argument in hex: a record of nines is made by the server.
            let value =
                forged.count > 100_000 && forged.allSatisfy({ $0 == UInt8(ascii: "9") })
                ? "convert_to(repeat('9', \(forged.count)), 'UTF8')"
                : "decode('\(forged.map { String(format: "%02x", $0) }.joined())', 'hex')"
            _ = try box.psql("UPDATE activity SET record = \(value)")
        }
    }

    /// The bytes the piece map of #`id`'s partial file says are written; nil without a map.
    static func mapped(_ box: DledgerSandbox, _ id: Int) -> Int64? {
        PartialPieces.read(path: box.partialPath(id)).map {
            $0.written.reduce(Int64(0)) { $0 + ($1.upperBound - $1.lowerBound) }
        }
    }

    /// aria2.tellStatus of `gid` through serve on `port`.
    static func status(_ port: Int, _ gid: String) throws -> [String: Any] {
        let body =
            #"{"jsonrpc":"2.0","id":1,"method":"aria2.tellStatus","params":["token:pw","\#(gid)"]}"#
        return try ServeCommandTests.call(port, body)["result"] as? [String: Any] ?? [:]
    }

    static func number(_ value: Any?) -> Int64 { Int64(value as? String ?? "") ?? -1 }

    @Test(arguments: LedgerStoreKind.allCases)
    func lsInAnotherProcessShowsASplitTransfersReceivedBytesWithinASecondOfRPC(store: LedgerStoreKind)
        async throws
    {
        let box = try DledgerSandbox(store: store)
        let server = try LoopbackServer()
        defer { server.stop() }
        // 8 MB at 250 KB/s per connection: about eight seconds over four connections.
        let rate: Int64 = 250_000
        let resource = Resource(
            size: 8_000_000, seed: 91, etag: "\"a1\"", faults: Faults(throttleBytesPerSecond: Int(rate)))
        server.serve("/s.bin", resource)
        #expect(try await box.run("add", server.url("/s.bin"), "--connections", "4").status == 0)
        let (serve, port) = try await ServeCommandTests.serve(box, secret: "pw")
        let gid = GID.of(1)
        let split = await eventually(20) { (try? Self.status(port, gid)["connections"] as? String) == "4" }
        #expect(split, "tellStatus never counted 4 live connections")
        for _ in 0..<3 {
            let before = Self.mapped(box, 1) ?? 0
            let rpc = Self.number(try Self.status(port, gid)["completedLength"])
            let started = Date()
            let task = try #require(try await box.task(1))
            let seconds = Date().timeIntervalSince(started)
            let after = Self.mapped(box, 1) ?? 0
            let ls = task["bytes"] as? Int64 ?? Int64(task["bytes"] as? Int ?? -1)
            // What ls shows is what had arrived: at most the map read after it plus what four connections hold
            // unwritten (256 KiB each), at least what the map held before, less half a second of publishing.
            #expect(ls <= after + 4 * 262_144, "ls \(ls) > map \(after) + buffers")
            #expect(ls >= before - 4 * rate / 2, "ls \(ls) < map \(before)")
            #expect(ls < 8_000_000, "ls shows the partial file's length")
            // Within a second of the RPC figure (plus the time ls took to start and read).
            let drift = Int64(Double(4 * rate) * (1 + seconds))
            #expect(abs(ls - rpc) <= drift, "ls \(ls) vs RPC \(rpc) (\(seconds) s)")
            #expect(task["connections"] as? Int == 4)
        }
        // The speed, once the four connections have been measured (a split starts their meter afresh).
        let speed = await eventually(5) { ((try? await box.task(1))?["speed"] as? Int ?? 0) > 0 }
        #expect(speed, "ls never showed a speed")
        let files = try Self.status(port, gid)["files"] as? [[String: Any]]
        #expect(files?.first?["path"] as? String == box.downloads + "/s.bin")
        let stats = try await box.run("stats").out
        #expect(stats.contains("downloading now 1 transfer,"), "\(stats)")
        serve.interrupt()
        _ = await serve.wait()
        // A clean exit withdraws the board.
        #expect(try !Self.boardLeft(box))
    }

    @Test(arguments: LedgerStoreKind.allCases)
    func afterKill9APartialShowsWhatItsPieceMapHolds(store: LedgerStoreKind) async throws {
        let box = try DledgerSandbox(store: store)
        let server = try LoopbackServer()
        defer { server.stop() }
        let resource = Resource(
            size: 8_000_000, seed: 92, etag: "\"k9\"", faults: Faults(throttleBytesPerSecond: 300_000))
        server.serve("/k.bin", resource)
        #expect(try await box.run("add", server.url("/k.bin"), "--connections", "4").status == 0)
        let runner = try box.start("run")
        let holes = await eventually(20) {
            (PartialPieces.read(path: box.partialPath(1))?.written.count ?? 0) >= 2
        }
        #expect(holes, "the piece map never showed a piece after the first")
        kill(runner.process.processIdentifier, SIGKILL)
        _ = await runner.wait()
        // The dead run's board is left behind, and not believed.
        #expect(try Self.boardLeft(box))
        let written = try #require(Self.mapped(box, 1))
        #expect(partialSize(box.partialPath(1)) > written, "the split file's length counts its holes")
        let task = try #require(try await box.task(1))
        #expect(task["state"] as? String == "interrupted")
        #expect(task["bytes"] as? Int == Int(written))
        let row = try await box.run("ls").out.split(separator: "\n").first { $0.contains("#1") } ?? ""
        #expect(row.contains(" \(written * 100 / 8_000_000)%"), "\(row)")
        #expect(!row.contains("100%"), "\(row)")
        let info = try await box.run("info", "1", "--json").json as? [String: Any]
        #expect(info?["bytes"] as? Int == Int(written), "\(String(describing: info))")
        #expect(!(try await box.run("stats").out.contains("downloading now")))
    }

    @Test(arguments: LedgerStoreKind.allCases)
    func aTaskWaitingToRetrySaysWhenWhichAttemptAndWhy(store: LedgerStoreKind) async throws {
        let box = try DledgerSandbox(store: store)
        let server = try LoopbackServer()
        defer { server.stop() }
        server.serve(
            "/busy.bin",
            Resource(
                size: 100_000, seed: 93, faults: Faults(failFirst: 2, failStatus: 500, retryAfter: 4)))
        #expect(try await box.run("add", server.url("/busy.bin")).status == 0)
        let (serve, port) = try await ServeCommandTests.serve(box, secret: "pw")
        let gid = GID.of(1)
        var row = ""
        let seen = try await eventually(10) {
            row =
                try await box.run("ls").out.split(separator: "\n").first { $0.contains("#1") }.map(
                    String.init) ?? ""
            return row.contains("retrying in ")
        }
        #expect(seen, "\(row)")
        #expect(row.contains(" of 6): the server answered HTTP 500"), "\(row)")
        #expect(row.contains("(attempt 2 of 6)") || row.contains("(attempt 3 of 6)"), "\(row)")
        let retry = try #require(try await box.task(1))["retry"] as? [String: Any]
        #expect(
            [2, 3].contains(retry?["attempt"] as? Int ?? 0) && retry?["of"] as? Int == 6,
            "\(String(describing: retry))")
        #expect((retry?["reason"] as? String)?.hasPrefix("the server answered HTTP 500") == true)
        let status = try Self.status(port, gid)
        #expect(status["status"] as? String == "active")
        #expect(status["connections"] as? String == "0")
        #expect((status["errorMessage"] as? String)?.contains("(attempt ") == true, "\(status)")
        // The countdown moves from one call to the next a second later (the server's reply cache kept the
        // first answer while nothing else changed).
        try await Task.sleep(for: .milliseconds(1_100))
        let later = try Self.status(port, gid)
        if later["status"] as? String == "active", let message = later["errorMessage"] as? String,
            message.contains("(attempt ")
        {
            #expect(message != status["errorMessage"] as? String, "\(message)")
        }
        // The wait is not logged as progress: the retries are the log's own facts, the countdown is not.
        let finished = await eventually(20) { (try? await box.task(1)?["state"] as? String) == "finished" }
        #expect(finished)
        serve.interrupt()
        _ = await serve.wait()
    }

    @Test(arguments: LedgerStoreKind.allCases)
    func pauseOfASplitTransferKeepsEveryConnectionWithinTheHold(store: LedgerStoreKind) async throws {
        let box = try DledgerSandbox(store: store)
        let server = try LoopbackServer()
        defer { server.stop() }
        // Pieces of 2 MiB at 200 KB/s (`--min-split-size 2M`; the default is 1 MiB): ten seconds each, so none
        // ends, and no new piece is asked for, during the pause and the resume even on a slow machine.
        let resource = Resource(
            size: 8_000_000, seed: 94, etag: "\"p4\"", faults: Faults(throttleBytesPerSecond: 200_000))
        server.serve("/p.bin", resource)
        let add = try await box.run(
            "add", server.url("/p.bin"), "--connections", "4", "--min-split-size", "2M")
        #expect(add.status == 0, "\(add.err)")
        let runner = try box.start("run")
        #expect(await eventually(20) { (try? await box.task(1)?["connections"] as? Int) == 4 })
        let requests = server.requests("/p.bin").count
        #expect(try await box.run("pause", "1").status == 0)
        let kept = await eventually(10) { (try? await box.task(1)?["connectionKept"] as? Bool) == true }
        #expect(kept, "the pause did not keep the connections")
        let heldBytes = Self.mapped(box, 1) ?? 0
        usleep(1_000_000)
        #expect(Self.mapped(box, 1) == heldBytes, "bytes arrived while held")
        #expect(try await box.run("resume", "1").status == 0)
        let grew = await eventually(10) { (Self.mapped(box, 1) ?? 0) > heldBytes + 300_000 }
        #expect(grew, "the held connections did not go on")
        #expect(server.requests("/p.bin").count == requests, "the resume opened new requests")
        let kinds = try await box.run("log", "--task", "1", "--json").jsonLines.compactMap {
            $0["kind"] as? String
        }
        #expect(kinds.contains("transferHeld") && kinds.contains("transferContinued"), "\(kinds)")
        #expect(!kinds.contains("transferPaused"), "\(kinds)")
        runner.interrupt()
        _ = await runner.wait()
    }

    @Test(arguments: LedgerStoreKind.allCases)
    func pastThePauseHoldTheConnectionsAreReleased(store: LedgerStoreKind) async throws {
        let box = try DledgerSandbox(store: store)
        let server = try LoopbackServer()
        defer { server.stop() }
        let resource = Resource(
            size: 8_000_000, seed: 95, etag: "\"h1\"", faults: Faults(throttleBytesPerSecond: 200_000))
        server.serve("/h.bin", resource)
        #expect(try await box.run("add", server.url("/h.bin"), "--connections", "4").status == 0)
        #expect(try await box.run("set", "pause-hold", "1").status == 0)
        let runner = try box.start("run")
        #expect(await eventually(20) { (try? await box.task(1)?["connections"] as? Int) == 4 })
        #expect(try await box.run("pause", "1").status == 0)
        let released = await eventually(10) {
            let kinds =
                (try? await box.run("log", "--task", "1", "--json").jsonLines.compactMap {
                    $0["kind"] as? String
                }) ?? []
            return kinds.last == "transferPaused" && kinds.contains("transferHeld")
        }
        #expect(released, "the hold did not end after pause-hold's second")
        #expect(try await box.task(1)?["connectionKept"] as? Bool == false)
        runner.interrupt()
        _ = await runner.wait()
    }

    @Test(arguments: LedgerStoreKind.allCases)
    func pauseHoldIsRangeCheckedShownAndUndone(store: LedgerStoreKind) async throws {
        let box = try DledgerSandbox(store: store)
        #expect(try await box.run("add", "http://127.0.0.1:9/a").status == 0)
        let events = try await box.eventCount()
        for bad in ["0", "3601", "-1", "1.5", "abc", "99999999999999999999"] {
            let r = try await box.run("set", "pause-hold", bad)
            #expect(r.status == 64, "\(bad): \(r.err)")
            #expect(r.err.contains("pause-hold must be a whole number from 1 to 3600"), "\(r.err)")
        }
        #expect(try await box.eventCount() == events, "a refused value appended an event")
        #expect(try await box.run("set").out.contains("default (60 s)"))
        #expect(try await box.run("set", "pause-hold", "5").status == 0)
        let shown =
            try await box.run("set").out.split(separator: "\n").first { $0.hasPrefix("pause-hold") } ?? ""
        #expect(shown.hasSuffix(" 5 s"), "\(shown)")
        #expect((try await box.run("set", "--json").json as? [String: Any])?["pause-hold"] as? Int == 5)
        #expect(try await box.run("undo").status == 0)
        #expect((try await box.run("set", "--json").json as? [String: Any])?["pause-hold"] as? Int == 0)
        #expect(try await box.run("set", "pause-hold", "default").status != 0, "already the default")
    }

    @Test(arguments: LedgerStoreKind.allCases)
    func aTamperedActivityFileIsIgnored(store: LedgerStoreKind) async throws {
        let box = try DledgerSandbox(store: store)
        let server = try LoopbackServer()
        defer { server.stop() }
        server.serve(
            "/t.bin", Resource(size: 4_000_000, seed: 96, faults: Faults(throttleBytesPerSecond: 200_000)))
        #expect(try await box.run("add", server.url("/t.bin")).status == 0)
        let runner = try box.start("run")
        #expect(await eventually(10) { ((try? await box.task(1)?["speed"] as? Int) ?? 0) > 0 })
        // Frozen, the downloader holds its lock and publishes nothing: the file is what we leave there.
        kill(runner.process.processIdentifier, SIGSTOP)
        defer { kill(runner.process.processIdentifier, SIGCONT) }
        let pid = runner.process.processIdentifier
        // Written now: each forgery is refused for what it is, not for its age (ActivityRecord.maxAgeMs).
        let now = Int64(Date().timeIntervalSince1970 * 1000)
        let forgeries = [
            "garbage\u{0}\u{FF}", "dledger-activity 1\n\(pid)\t\(now)\n1\t9000000\t0\t4000000\t5\t1\t0\n",
            "dledger-activity 1\n\(pid)\t\(now)\n1\t5\t5\t9\t0\t99999\t0\n",
            String(repeating: "9", count: 2 << 20),
            // Well formed, by another process than the one that holds the run lock (and, in PostgreSQL, than the
            // row names).
            "dledger-activity 1\n\(pid + 1)\t\(now)\n1\t5\t5\t4000000\t100\t1\t0\n",
        ]
        for forged in forgeries {
            try Self.forge(box, Array(forged.utf8))
            let ls = try await box.run("ls", "--json")
            #expect(ls.status == 0, "\(ls.err)")
            let task = try #require(try await box.task(1))
            #expect((task["bytes"] as? Int ?? 0) <= Int(partialSize(box.partialPath(1))))
            #expect(task["speed"] == nil, "a forged record was believed")
            #expect(try await box.run("stats").status == 0)
        }
        // The control: the same record by the process that holds the lock is believed.
        try Self.forge(box, Array("dledger-activity 1\n\(pid)\t\(now)\n1\t5\t5\t4000000\t100\t1\t0\n".utf8))
        #expect(try await box.task(1)?["speed"] as? Int == 100, "the control record was not believed")
        if store == .postgres {
            // Under another host name, naming the session that holds this downloader's lock: that session holds
            // no lock of the name "ghost".
            _ = try box.psql(
                """
                INSERT INTO activity (host, pid, lock_backend, written_at, record)
                    SELECT 'ghost', pid, lock_backend, written_at, record FROM activity;
                UPDATE activity SET record = 'x' WHERE host <> 'ghost'
                """)
            #expect(try await box.task(1)?["speed"] == nil, "a row under another host name was believed")
        }
        kill(runner.process.processIdentifier, SIGCONT)
        runner.interrupt()
        _ = await runner.wait()
    }
}
