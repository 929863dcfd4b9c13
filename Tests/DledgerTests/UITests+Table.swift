import Foundation
import LoopbackHTTP
import Testing

/// The list as a table in a real terminal, at 80x24 and 220x50: the header row over aligned columns, the key
/// bar and totals at 80 columns, the panes as wide as the list, `/` search, `I` details.
extension UITests {
    /// A finished task, a failed one (HTTP 404), two paused ones with long and short names, one with a sealed
    /// cookie, a speed limit and three tasks in the to-delete list.
    func tableSetUp(_ box: DledgerSandbox, _ server: LoopbackServer) async throws {
        server.serve("/notes.txt", Resource(size: 60_000, seed: 2))
        let get = try await box.run("get", server.url("/notes.txt"), server.url("/missing.pdf"))
        #expect(get.err.contains("HTTP 404"), "\(get.err)")
        try await box.run(
            "add", "http://127.0.0.1:9/debian-12.5.0-amd64-netinst.iso", "http://127.0.0.1:9/a.iso",
            "http://127.0.0.1:9/t1", "http://127.0.0.1:9/t2", "http://127.0.0.1:9/t3")
        try await box.run("add", "http://127.0.0.1:9/private.bin", "--header", "Cookie: session=hunter2")
        try await box.run("pause", "--all")
        try await box.run("rm", "5", "6", "7")
        try await box.run("speed-limit", "500000")
    }

    /// Where `text` starts in `line`, in columns (the screen's rows are ASCII before it).
    func start(of text: String, in line: String) -> Int? {
        line.range(of: text).map { line.distance(from: line.startIndex, to: $0.lowerBound) }
    }

    @Test func at80x24TheTableTheKeyBarTheTotalsTheHelpAndTheFailureFit() async throws {
        let box = try DledgerSandbox()
        let server = try LoopbackServer()
        defer { server.stop() }
        try await tableSetUp(box, server)
        let t = try ui(box, "--watch", columns: 80, rows: 24)
        defer { t.close() }
        let s = try #require(try await t.waitFor("#8 private.bin"), "\(t.shown)")
        let header = s[2]
        #expect(header.contains("name") && header.contains("state") && header.contains("size"), "\(header)")
        let state = try #require(start(of: "state", in: header))
        for (row, word) in [
            ("#1 notes.txt", "finished"), ("#2 missing.pdf", "failed"), ("#3 debian", "paused"),
        ] {
            let line = s.first { $0.contains(row) } ?? ""
            #expect(start(of: word, in: line) == state, "\(row): \(t.shown)")
        }
        #expect(s[1].contains("lim 500K/s") && s[1].contains("trash 3"), "\(s[1])")
        #expect(s[23].contains("? help") && s[23].contains("q quit") && s[23].contains("h hist"), "\(s[23])")
        // The failure, cut in its row, is whole in the status line with the cursor on it.
        try t.keys("/")
        try t.type("missing")
        try t.keys("Enter")
        #expect(try await t.waitFor("match 1 of 1") != nil, "\(t.shown)")
        try t.keys("k", "j")
        #expect(
            try await t.waitFor("#2 failed: the server answered HTTP 404 (Not Found)") != nil, "\(t.shown)")
        // The help's key column holds `A p  A r  A x  A d`.
        try t.keys("?")
        let help = try #require(try await t.waitFor("A p  A r  A x  A d"), "\(t.shown)")
        let all = help.first { $0.contains("A p  A r  A x  A d") } ?? ""
        let enter = help.first { $0.hasPrefix("  Enter ") } ?? ""
        #expect(start(of: "pause / resume", in: all) == start(of: "the accessory", in: enter), "\(t.shown)")
        #expect(help.allSatisfy { $0.count <= 80 })
        try t.keys("Escape", "q")
        try await expectRestored(t, exit: 0)
    }

    @Test func at220x50NothingFloatsAndThePanesAreAsWideAsTheList() async throws {
        let box = try DledgerSandbox()
        let server = try LoopbackServer()
        defer { server.stop() }
        try await tableSetUp(box, server)
        let t = try ui(box, "--watch", columns: 220, rows: 50)
        defer { t.close() }
        // The whole first frame: its last row, the key bar, is drawn last (a loaded machine shows it in pieces).
        let s = try #require(
            try await t.waitFor { s in
                s.contains { $0.contains("#8 private.bin") } && s.count > 49 && s[49].contains("q quit")
            }, "\(t.shown)")
        #expect(s[2].contains("ETA") && s[2].contains("speed"), "\(s[2])")
        // The longest name is followed by its state after one gap, and every state is in that column.
        let longest = "debian-12.5.0-amd64-netinst.iso"
        let row = try #require(s.first { $0.contains(longest) })
        let nameEnd = try #require(start(of: longest, in: row)) + longest.count
        #expect(start(of: "paused", in: row) == nameEnd + 2, "\(row)")
        let failed = s.first { $0.contains("#2 missing.pdf") } ?? ""
        #expect(
            failed.contains("failed") && failed.contains("the server answered HTTP 404 (Not Found)"),
            "\(failed)")
        #expect(s[1].contains("limit 500 KB/s") && s[1].contains("3 to delete"), "\(s[1])")
        #expect(s[49].contains("Enter pause/resume") && s[49].contains("t to-delete"), "\(s[49])")
        // `/` by URL, then n and N; Esc clears.
        try t.keys("/")
        try t.type(".iso")
        try t.keys("Enter")
        #expect(try await t.waitFor("match 1 of 2") != nil, "\(t.shown)")
        #expect(t.lastScreen.contains { $0.hasPrefix(">") && $0.contains("#3 debian") }, "\(t.shown)")
        try t.keys("n")
        #expect(try await t.waitFor("match 2 of 2") != nil, "\(t.shown)")
        #expect(t.lastScreen.contains { $0.hasPrefix(">") && $0.contains("#4 a.iso") }, "\(t.shown)")
        try t.keys("N")
        #expect(try await t.waitFor("match 1 of 2") != nil, "\(t.shown)")
        try t.keys("Escape")
        #expect(try await t.waitFor("search cleared") != nil, "\(t.shown)")
        // The details of #8: its cookie redacted, in a pane under the list as wide as it.
        try t.keys("G", "I")
        // A loaded machine draws the pane in pieces: wait for its header line, then look at what it says.
        let details = try #require(
            try await t.waitFor { s in
                s.contains { $0.contains("Details #8 private.bin") }
                    && s.contains { $0.contains("header Cookie:") }
            }, "\(t.shown)")
        let title = try #require(details.firstIndex { $0.contains("Details #8") })
        #expect(details[title].count == 220 && details[title].hasSuffix("─"), "\(t.shown)")
        #expect(details.contains { $0.contains("header Cookie: [redacted]") }, "\(t.shown)")
        #expect(!details.joined().contains("hunter2"))
        #expect(details.contains { $0.contains("URL        http://127.0.0.1:9/private.bin") }, "\(t.shown)")
        #expect(
            details[..<title].contains { $0.hasPrefix(">") && $0.contains("#8 private.bin") }, "\(t.shown)")
        try t.keys("Escape")
        #expect(try await t.waitFor { !$0.contains { $0.contains("Details #8") } } != nil, "\(t.shown)")
        // The audit pane too: the whole width, the events whole.
        try t.keys("i")
        let audit = try #require(
            try await t.waitFor { s in
                s.contains { $0.contains("Audit #8 private.bin") } && s.contains { $0.contains("Cookie:") }
            }, "\(t.shown)")
        let auditTitle = try #require(audit.firstIndex { $0.contains("Audit #8") })
        #expect(audit[auditTitle].count == 220, "\(t.shown)")
        #expect(audit[auditTitle...].contains { $0.contains("Cookie: [redacted]") }, "\(t.shown)")
        try t.keys("Escape", "q")
        try await expectRestored(t, exit: 0)
    }
}
