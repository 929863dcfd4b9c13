import Foundation
import LoopbackHTTP
import Testing

/// Every line tells the truth: running transfers in `ls` and `ls --json`, `run`'s lines for deletes and
/// restores, the to-delete list's states, audits of purged tasks, the log's columns, a broken chain.
@Suite struct TruthfulLinesTests {
    @Test(arguments: LedgerStoreKind.allCases)
    func runningTransfersAgreeInTextAndJSONAndRunNamesDeletesAndRestores(store: LedgerStoreKind) async throws
    {
        let box = try DledgerSandbox(store: store)
        let server = try LoopbackServer()
        server.serve("/s.bin", Resource(size: 2_000_000, seed: 3, faults: Faults(stallAfterBytes: 1_200_000)))
        try await box.run("add", server.url("/s.bin"))
        let run = try box.start("run")
        let bytes = { () async throws -> Int? in try await box.task(1)?["bytes"] as? Int }
        // The engine gathers bytes before they reach the partial file: wait until the file holds some and stops
        // growing for a second (the server stalls; a loaded machine can pause a transfer for a moment before
        // that), then text and JSON must say the same figure, the file's size.
        var onDisk = 0
        var since = Date()
        let settled = try await eventually(30) {
            let now = try await bytes() ?? 0
            if now != onDisk { since = Date() }
            onDisk = now
            return now > 0 && Date().timeIntervalSince(since) >= 1
        }
        #expect(settled, "ls --json bytes: \(onDisk)")
        let partial = box.downloads + "/.dledger/partial/1.part"
        let size = (try FileManager.default.attributesOfItem(atPath: partial)[.size] as? NSNumber)?.intValue
        #expect(size == onDisk)
        let text = try await box.run("ls").out
        #expect(
            text.contains("downloading") && text.contains(" / 2.0 MB  \(onDisk * 100 / 2_000_000)%"),
            "\(onDisk): \(text)")
        #expect(try await box.run("rm", "1").status == 0)
        let stopped = await eventually(10) {
            run.output.contains("stopped  #1 s.bin: moved to the to-delete list")
        }
        #expect(stopped, "\(run.output)")
        // The to-delete list shows the task's state now, as its JSON does (its transfer stopped: it waits), and
        // the state it had when deleted.
        let trash = try await box.run("ls", "--trash").out
        #expect(trash.contains("#1  waiting") && trash.contains(", was downloading\n"), "\(trash)")
        #expect(try await box.run("restore", "1").status == 0)
        let restored = await eventually(10) {
            run.output.contains("restored #1 s.bin: back in the list, ")
        }
        #expect(restored, "\(run.output)")
        #expect(try await box.run("rm", "1", "--now").status == 0)
        let removed = await eventually(10) {
            run.output.contains("removed  #1: deleted at once, without the to-delete list")
        }
        #expect(removed, "\(run.output)")
        run.interrupt()
        _ = await run.wait()
    }

    @Test(arguments: LedgerStoreKind.allCases)
    func auditOfAPurgedTaskShowsItsNameURLAndHistory(store: LedgerStoreKind) async throws {
        let box = try DledgerSandbox(store: store)
        try await box.run("add", "http://example.com/song.flac")
        try await box.run("rename", "1", "Song.flac")
        try await box.run("rm", "1")
        try await box.run("purge", "1")
        let r = try await box.run("audit", "1")
        #expect(r.status == 0)
        let lines = r.out.split(separator: "\n").map(String.init)
        #expect(lines[0] == "#1 Song.flac — purged by #5 (it was waiting, 0 B)", "\(lines[0])")
        #expect(lines[1] == "  http://example.com/song.flac")
        #expect(lines.count == 6 && lines[2].contains("tasksAdded") && lines[5].contains("trashPurged"))
    }

    @Test(arguments: LedgerStoreKind.allCases)
    func logSizesTheKindColumnAndAddsReadTheSameEverywhere(store: LedgerStoreKind) async throws {
        let box = try DledgerSandbox(store: store)
        try await box.run("add", "http://example.com/a", "--section", "Mid")
        try await box.run("add", "http://example.com/b", "--section", "Mid")
        try await box.run("set", "auto-remove-sections", "off")
        try await box.run("limit", "5")
        let log = try await box.run("log").out.split(separator: "\n").map(String.init)
        let kindStart = try #require(log[0].range(of: "ledgerCreated")).lowerBound
        // As wide as the catalog's longest kind, and a space.
        let width = "connectionsPerServerChanged".count + 1
        let textStart = { (line: String) in line.index(kindStart, offsetBy: width) }
        for line in log {
            #expect(!line.contains("…"), "\(line)")
            #expect(line[textStart(line)...].first != " ", "\(line)")
        }
        #expect(log.contains { $0.contains("emptySectionsPolicyChanged  empty sections are now kept") })
        let add = "added #2 to section 0 at index 1"
        #expect(log[2].hasSuffix(add))
        #expect(try await box.run("log", "--json").jsonLines[2]["text"] as? String == add)
        let padded = "tasksAdded" + String(repeating: " ", count: width - "tasksAdded".count)
        #expect(try await box.run("audit", "2").out.contains(padded + add))
    }

    @Test(arguments: LedgerStoreKind.allCases)
    func lsWarnsOnceWhenTheChainsHeadIsBroken(store: LedgerStoreKind) async throws {
        let box = try DledgerSandbox(store: store)
        try await box.run("add", "http://example.com/a")
        try await box.run("add", "http://example.com/b")
        let clean = try await box.run("ls")
        #expect(clean.err == "")
        switch store {
        case .sqlite:
            try box.editLedger(
                "DROP TRIGGER events_refuse_update; UPDATE events SET payload = replace(payload, 'example.com/b', 'example.com/c') WHERE seq = 3;"
            )
        case .postgres:
            try box.editLedger(
                "ALTER TABLE events DISABLE TRIGGER events_refuse_update_delete; UPDATE events SET payload = "
                    + "convert_to(replace(convert_from(payload, 'UTF8'), 'example.com/b', 'example.com/c'), 'UTF8') "
                    + "WHERE seq = 3")
        }
        let r = try await box.run("ls")
        #expect(r.status == 0)
        #expect(
            r.err
                == "warning: the ledger's hash chain is broken (the hash of event #3 does not match): run 'dledger verify'\n"
        )
        #expect(r.out.contains("waiting"))
    }
}
