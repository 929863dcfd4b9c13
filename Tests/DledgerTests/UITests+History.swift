import Foundation
import Testing

/// The history scrubber's jumps (a seq, a time, a refused seq) and the audit pane, in a real terminal.
extension UITests {
    /// Six events: created, three tasks added, a section, a move, a rename, a delete.
    func historySetUp(_ box: DledgerSandbox) async throws {
        try await box.run(
            "add", "http://127.0.0.1:9/a.iso", "http://127.0.0.1:9/b.iso", "http://127.0.0.1:9/c.iso")
        try await box.run("section", "add", "Later")
        try await box.run("mv", "2", "--to", "1")
        try await box.run("rename", "1", "first.iso")
        try await box.run("rm", "3")
    }

    /// The list `replay --to seq --json` shows, as `listRows` reads the screen.
    func replayed(_ box: DledgerSandbox, _ seq: Int) async throws -> [String] {
        let replay = try await box.run("replay", "--to", "\(seq)", "--json").json as? [String: Any]
        let sections = replay?["sections"] as? [[String: Any]] ?? []
        return sections.flatMap { s in
            ["\(s["index"] ?? "") \(s["title"] ?? "")"]
                + (s["tasks"] as? [[String: Any]] ?? []).map { "#\($0["id"] ?? "") \($0["name"] ?? "")" }
        }
    }

    @Test func historyJumpsToASeqAndToATimeAndRefusesASeqOutsideTheLog() async throws {
        let box = try DledgerSandbox()
        try await historySetUp(box)
        let log = try await box.run("log", "--json").jsonLines
        let head = log.count
        #expect(head == 6)
        let t = try ui(box, "--watch", columns: 100, rows: 24)
        defer { t.close() }
        try await t.waitFor("#1 first.iso")
        try t.keys("h")
        try await t.waitFor("after #5 of 6")
        // By seq, with and without '#'.
        for (typed, seq) in [("2", 2), ("#4", 4)] {
            try t.keys(":")
            try await t.waitFor("Show the list after seq, or at time:")
            try t.type(typed)
            try t.keys("Enter")
            let screen = try await t.waitFor("after #\(seq) of 6")
            #expect(screen != nil, "\(typed): \(t.shown)")
            #expect(Self.listRows(screen ?? []) == (try await replayed(box, seq)), "\(t.shown)")
        }
        // By time: Unix seconds with milliseconds, the commit time of event #3. The list shown is the one after
        // the last event committed at or before that moment.
        let ms = try #require(log[2]["timeMs"] as? Int)
        let expected = log.filter { ($0["timeMs"] as? Int ?? .max) <= ms }.compactMap { $0["seq"] as? Int }
            .max()!
        try t.keys(":")
        try t.type("\(ms / 1000).\(String(format: "%03d", ms % 1000))")
        try t.keys("Enter")
        let atTime = try await t.waitFor("after #\(expected) of 6")
        #expect(atTime != nil, "\(t.shown)")
        #expect(Self.listRows(atTime ?? []) == (try await replayed(box, expected)), "\(t.shown)")
        // A seq the log does not have: one line, the point shown stays.
        try t.keys(":")
        try t.type("99")
        try t.keys("Enter")
        #expect(try await t.waitFor("error: no event #99 (the log has 1 to 6)") != nil, "\(t.shown)")
        #expect(t.lastScreen[0].contains("after #\(expected) of 6"), "\(t.shown)")
        try t.keys("Escape")
        try await t.waitFor("#1 first.iso")
        #expect(try await box.run("log", "--json").jsonLines.count == head, "the history appends nothing")
        try t.keys("q")
        try await expectRestored(t, exit: 0)
    }

    @Test func theAuditPaneShowsEveryEventOfTheTaskUnderTheList() async throws {
        let box = try DledgerSandbox()
        try await historySetUp(box)
        let t = try ui(box, "--watch", columns: 120, rows: 24)
        defer { t.close() }
        try await t.waitFor("#1 first.iso")
        // The cursor on #1 (the first task row), then the audit pane.
        try t.keys("j", "i")
        // Drawn in pieces on a loaded machine: wait for the title and the rename, its last event.
        let pane = try await t.waitFor { s in
            s.contains { $0.contains("Audit #1 first.iso") } && s.contains { $0.contains("renamed #1 to") }
        }
        #expect(pane != nil, "\(t.shown)")
        let seqs = try await box.run("log", "--task", "1", "--json").jsonLines.compactMap {
            $0["seq"] as? Int
        }
        #expect(seqs == [2, 5], "\(seqs)")
        let screen = pane ?? []
        for seq in seqs {
            #expect(screen.contains { $0.hasPrefix(" #\(seq)  ") }, "#\(seq): \(t.shown)")
        }
        #expect(screen.contains { $0.contains("renamed #1 to 'first.iso'") }, "\(t.shown)")
        // The list stays above, and the pane's rule spans the whole width as the list does.
        let title = try #require(screen.firstIndex { $0.contains("Audit #1 first.iso") })
        #expect(screen[..<title].contains { $0.contains("#2 b.iso") }, "\(t.shown)")
        #expect(screen[title].hasSuffix("─") && screen[title].count == 120, "\(t.shown)")
        try t.keys("Escape")
        let closed = try await t.waitFor { s in !s.contains { $0.contains("Audit #1") } }
        #expect(closed != nil, "\(t.shown)")
        try t.keys("q")
        try await expectRestored(t, exit: 0)
    }
}
