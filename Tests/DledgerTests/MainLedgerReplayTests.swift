import Foundation
import Testing

/// A ledger written by an earlier version opens and replays as it did: `Fixtures/MainLedger/ledger.sqlite` was
/// written by `dledger` of main at 823e087 (before the event catalog became data) through its command line, with
/// real downloads from a LoopbackHTTP server (113 events of 44 of the 45 kinds: every user action, undo and redo,
/// settings, hooks that ran, a 404, a retry after a 503, a held pause, a stop and a resume by Range request; only
/// `transferConnections` is missing). The files beside it are what that version printed for it, with `TZ=UTC`,
/// and the ledger's path in `stats` written `$LEDGER`, plus the two fields main added since (export's
/// `pauseHold`, stats' `live`). The names in the log never change: any difference here means an old ledger reads
/// differently.
@Suite struct MainLedgerReplayTests {
    static let fixtures =
        URL(fileURLWithPath: #filePath).deletingLastPathComponent().appendingPathComponent(
            "Fixtures/MainLedger"
        )
        .path

    /// Each command and the file holding what it printed.
    static let commands: [(arguments: [String], file: String)] = [
        (["ls"], "ls.txt"), (["ls", "--json"], "ls.json"), (["ls", "--trash", "--json"], "trash.json"),
        (["log"], "log.txt"), (["log", "--json"], "log.jsonl"), (["audit", "3"], "audit-3.txt"),
        (["audit", "12"], "audit-12.txt"), (["audit", "9", "--json"], "audit-9.json"),
        (["export", "--json"], "export.json"), (["verify", "--skip-files"], "verify.txt"),
        (["replay", "--to", "60", "--json"], "replay-60.json"), (["stats", "--json"], "stats.json"),
    ]

    @Test func aLedgerOfTheEarlierVersionPrintsWhatItPrintedThen() async throws {
        let box = try DledgerSandbox()
        try FileManager.default.copyItem(atPath: Self.fixtures + "/ledger.sqlite", toPath: box.ledger)
        for (arguments, file) in Self.commands {
            let r = try await box.run(arguments, env: ["TZ": "UTC"])
            #expect(r.status == 0, "dledger \(arguments.joined(separator: " ")): \(r.err)")
            let want = try String(contentsOfFile: Self.fixtures + "/" + file, encoding: .utf8)
            let got = r.out.replacingOccurrences(of: "\"\(box.ledger)\"", with: "\"$LEDGER\"")
            #expect(got == want, "dledger \(arguments.joined(separator: " ")) differs from \(file)")
        }
    }

    @Test func itStillVerifiesAndTakesNewActionsOnTop() async throws {
        let box = try DledgerSandbox()
        try FileManager.default.copyItem(atPath: Self.fixtures + "/ledger.sqlite", toPath: box.ledger)
        // Undo reaches back into the old log: the newest action there was a resume of #12 (finished since, so its
        // state stays), before it a stop.
        let undo = try await box.run("undo")
        #expect(undo.status == 0, "\(undo.err)")
        #expect(undo.out.contains("undid #109"), "\(undo.out)")
        #expect(try await box.run("limit", "5").status == 0)
        let log = try await box.run("log", "--json").jsonLines
        #expect(log.count == 115)
        #expect(log.last?["kind"] as? String == "maxDownloadsChanged")
        let verify = try await box.run("verify", "--skip-files")
        #expect(verify.status == 0, "\(verify.out)\(verify.err)")
        #expect(verify.out.contains("ok: hash chain intact"), "\(verify.out)")
    }
}
