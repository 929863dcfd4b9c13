import Foundation
import LoopbackHTTP
import Testing

/// `dledger ui` end to end in a real terminal (tmux).
@Suite(.enabled(if: TmuxTerminal.isAvailable, "needs tmux"))
struct UITests {
    func ui(
        _ box: DledgerSandbox, _ args: String = "", columns: Int = 100, rows: Int = 24,
        environment: [String: String] = [:], wrap: (String) -> String = { $0 }
    ) throws -> TmuxTerminal {
        let command = "\(TmuxTerminal.quote(DledgerSandbox.binary)) ui \(args)"
        return try TmuxTerminal(
            "cd \(TmuxTerminal.quote(box.downloads)) && \(wrap(command))", columns: columns, rows: rows,
            environment: [
                "DLEDGER_LEDGER": box.ledger, "NO_COLOR": "1", "TMPDIR": box.root, "LC_ALL": "C.UTF-8",
                "XDG_DOWNLOAD_DIR": box.downloads,
            ].merging(environment) { $1 })
    }

    /// The terminal was given back: main screen, and cooked mode with echo. Waits for the shell's last line, so
    /// that the whole report is on screen (its `stty -a` line can arrive in pieces under load).
    func expectRestored(_ t: TmuxTerminal, exit status: Int32) async throws {
        try await expectRestored(t, exitIn: [status])
    }

    /// The same, for an exit status that is one of `statuses`.
    func expectRestored(_ t: TmuxTerminal, exitIn statuses: [Int32]) async throws {
        let after = try await t.waitFor(10) { s in s.contains { $0.contains(TmuxTerminal.reportEnd) } }
        #expect(after != nil, "\(t.shown)")
        let text = try t.joinedScreen().joined(separator: "\n")
        #expect(statuses.contains { text.contains("EXIT=\($0)\n") }, "\(statuses): \(text)")
        #expect(text.contains(" icanon") && text.contains(" echo ") && !text.contains("-icanon"), "\(text)")
        #expect(!text.contains("dledger ui"), "the alternate screen is left: \(text)")
    }

    @Test func refusesWithoutATerminalAndCreatesNothing() async throws {
        let box = try DledgerSandbox()
        let r = try await box.run("ui")
        #expect(r.status == 64)
        #expect(r.err.contains("error: 'dledger ui' needs a terminal on stdin and stdout"))
        #expect(!FileManager.default.fileExists(atPath: box.ledger))
    }

    @Test func aMissingLedgerIsCreatedOnlyByAnAdd() async throws {
        let box = try DledgerSandbox()
        let t = try ui(box)
        defer { t.close() }
        let first = try await t.waitFor("not downloading")
        // No event exists yet: the header names no seq.
        #expect(first?[0].contains("new ledger · not downloading") == true, "\(t.shown)")
        try t.keys("A", "p")
        try t.keys("q")
        try await expectRestored(t, exit: 0)
        #expect(!FileManager.default.fileExists(atPath: box.ledger))
        #expect(!FileManager.default.fileExists(atPath: box.ledger + ".lock"))
    }

    @Test func showsTheListLiveAndQuitsRestoringTheTerminal() async throws {
        let box = try DledgerSandbox()
        try await box.run("add", "http://127.0.0.1:9/a.iso", "http://127.0.0.1:9/b.iso")
        try await box.run("pause", "--all")
        let t = try ui(box, "--watch")
        defer { t.close() }
        let first = try await t.waitFor("#2 b.iso")
        #expect(first?[0].contains("dledger ui") == true, "\(t.shown)")
        #expect(first?[0].contains("not downloading") == true, "\(t.shown)")
        #expect(first?[1].contains("2 paused") == true, "\(t.shown)")
        // Another process's change shows up without a key.
        try await box.run("section", "add", "Later")
        #expect(try await t.waitFor("1 Later") != nil, "\(t.shown)")
        try t.keys("q")
        try await expectRestored(t, exit: 0)
    }
}

extension UITests {
    @Test func historyShowsTheListThatReplayShows() async throws {
        let box = try DledgerSandbox()
        try await box.run(
            "add", "http://127.0.0.1:9/a.iso", "http://127.0.0.1:9/b.iso", "http://127.0.0.1:9/c.iso")
        try await box.run("section", "add", "Later")
        try await box.run("mv", "2", "--to", "1")
        try await box.run("rm", "1")
        try await box.run("section", "rename", "0", "Renamed")
        let t = try ui(box, "--watch")
        defer { t.close() }
        try await t.waitFor("0 Renamed")
        // h shows the list before the last event (#5 of 6), Left one more: after event #4.
        try t.keys("h")
        try await t.waitFor("after #5 of 6")
        try t.keys("Left")
        let screen = try await t.waitFor("after #4 of 6")
        #expect(screen != nil, "\(t.shown)")
        let replay = try await box.run("replay", "--to", "4", "--json").json as? [String: Any]
        let sections = replay?["sections"] as? [[String: Any]] ?? []
        let expected = sections.map { s in
            ["\(s["index"] ?? "") \(s["title"] ?? "")"]
                + (s["tasks"] as? [[String: Any]] ?? []).map { "#\($0["id"] ?? "") \($0["name"] ?? "")" }
        }.flatMap { $0 }
        #expect(Self.listRows(screen ?? []) == expected, "\(t.shown)")
        #expect(expected == ["0 Downloads", "#1 a.iso", "#3 c.iso", "1 Later", "#2 b.iso"])
        try t.keys("Escape")
        try await t.waitFor("0 Renamed")
        try t.keys("q")
        try await expectRestored(t, exit: 0)
    }

    /// Section headers (`0 Downloads`) and tasks (`#2 b.iso`) as the list area shows them.
    static func listRows(_ screen: [String]) -> [String] {
        screen.dropFirst(2).compactMap { row in
            let text = row.dropFirst(2).trimmingCharacters(in: .whitespaces)
            if let r = text.range(of: "  (") { return String(text[..<r.lowerBound]) }
            guard text.hasPrefix("#") else { return nil }
            return text.split(separator: " ").prefix(2).joined(separator: " ")
        }
    }

    @Test func resizingTo40ColumnsRedrawsEveryRowToFit() async throws {
        let box = try DledgerSandbox()
        try await box.run(
            "add", "http://127.0.0.1:9/" + String(repeating: "very-long-name-", count: 8) + "end.iso")
        try await box.run("pause", "--all")
        let t = try ui(box, "--watch", columns: 120, rows: 24)
        defer { t.close() }
        try await t.waitFor("end.iso")
        try t.resize(columns: 40, rows: 10)
        let small = try await t.waitFor(3) { s in
            s.count == 10 && s.allSatisfy { $0.count <= 40 } && s[0].contains("dledger ui")
                && s[4].contains("…")
        }
        #expect(small != nil, "\(t.shown)")
        #expect(small?[4].contains("#1 very-long-name") == true, "\(t.shown)")
        #expect(small?[4].contains("paused") == true, "\(t.shown)")
        try t.resize(columns: 120, rows: 24)
        try t.keys("q")
        try await expectRestored(t, exit: 0)
    }

    @Test func sigtermStopsCleanlyRestoresTheTerminalAndKeepsTheBytes() async throws {
        let box = try DledgerSandbox()
        let server = try LoopbackServer()
        defer { server.stop() }
        server.serve(
            "/slow.bin", Resource(size: 4_000_000, seed: 3, faults: Faults(throttleBytesPerSecond: 400_000)))
        try await box.run("add", server.url("/slow.bin"))
        let t = try ui(box)
        defer { t.close() }
        #expect(
            try await t.waitFor(5) { $0.contains { $0.contains("#1 slow.bin") && $0.contains("%") } } != nil,
            "\(t.shown)")
        let pid = try #require(try t.programPID())
        kill(pid, SIGTERM)
        try await expectRestored(t, exit: 130)
        let log = try await box.run("log", "--task", "1")
        #expect(log.out.contains("transferPaused"), "\(log.out)")
        let task = try await box.task(1)
        #expect(task?["state"] as? String == "waiting")
        #expect((task?["bytes"] as? Int ?? 0) > 0)
    }

    @Test func watchesAndSteersWhenAnotherRunDownloads() async throws {
        let box = try DledgerSandbox()
        let server = try LoopbackServer()
        defer { server.stop() }
        server.serve(
            "/slow.bin", Resource(size: 4_000_000, seed: 4, faults: Faults(throttleBytesPerSecond: 200_000)))
        try await box.run("add", server.url("/slow.bin"))
        let run = try box.start("run")
        defer { run.interrupt() }
        #expect(try await eventually(5) { try await box.task(1)?["state"] as? String == "downloading" })
        let t = try ui(box)
        defer { t.close() }
        let seen = try await t.waitFor("watching: pid \(run.process.processIdentifier) downloads")
        #expect(seen != nil, "\(t.shown)")
        try t.keys("j", "p")
        #expect(try await t.waitFor("paused #1") != nil, "\(t.shown)")
        #expect(try await eventually(5) { try await box.task(1)?["state"] as? String == "paused" })
        try t.keys("q")
        try await expectRestored(t, exit: 0)
    }
}
