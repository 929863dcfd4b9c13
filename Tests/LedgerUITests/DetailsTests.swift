import LedgerCore
import LedgerTransfer
import LedgerUI
import Testing

/// `I`: one task's details in a pane as wide as the list; the audit pane too.
@Suite struct DetailsTests {
    func sample() throws -> DownloadList {
        var b = ListBuilder()
        try b.add(["debian.iso", "notes.txt"])
        try b.add(["talk.mp4"], placement: .newSection(title: "Media", at: nil))
        var options = TaskOptions()
        options.headers = [
            HeaderField(name: "Cookie", value: .sealed(SealedValue(ciphertext: "c2VjcmV0"))),
            HeaderField(name: "Accept", value: .plain("*/*")),
        ]
        options.maxSpeed = 250_000
        try b.run(.setOptions(1, options))
        b.fact(
            .transferCompleted(
                id: 2, bytes: 60_000, sha256: String(repeating: "a", count: 64), fileName: "notes.txt"))
        b.fact(.transferStarted(id: 3, attempt: 1, offset: 0))
        b.fact(
            .transferFailed(
                id: 3, failure: TaskFailure(code: "http", detail: "404", retryable: false), bytes: 0))
        return b.list
    }

    @Test func capitalIAsksTheHostThenThePaneShowsTheTaskWhole() throws {
        var m = UIModel.showing(try sample(), columns: 80, rows: 24)
        _ = m.press(.down)
        #expect(m.press(.char("I")) == [.details(1)])
        m.showDetails(1, file: nil)
        let text = m.lines().joined(separator: "\n")
        #expect(text.contains("Details #1 debian.iso"))
        #expect(text.contains("state      waiting"))
        #expect(text.contains("URL        https://example.com/debian.iso"))
        #expect(text.contains("folder     /downloads"))
        #expect(text.contains("header Cookie: [redacted]") && !text.contains("c2VjcmV0"), "\(text)")
        #expect(text.contains("header Accept: */*") && text.contains("max-speed 250000 B/s"))
        #expect(text.contains("location   0:0 in 'Downloads'"))
        // The list stays above the pane, the cursor's row on screen.
        #expect(m.lines().contains { $0.hasPrefix(">") && $0.contains("#1 debian.iso") })
        for line in m.lines() { #expect(TextWidth.width(line) == 80) }
        _ = m.press(.escape)
        #expect(m.overlay == .none && !m.lines().joined().contains("Details #1"))
    }

    @Test func aFinishedTaskShowsItsFileAndChecksumAFailedOneItsFailure() throws {
        var m = UIModel.showing(try sample(), columns: 120, rows: 30)
        m.showDetails(2, file: true)
        var text = m.lines().joined(separator: "\n")
        #expect(text.contains("file       /downloads/notes.txt (on disk)"), "\(text)")
        #expect(text.contains("sha256 " + String(repeating: "a", count: 64)))
        m.showDetails(2, file: false)
        #expect(m.lines().joined().contains("/downloads/notes.txt (not on disk)"))
        m.showDetails(3, file: nil)
        text = m.lines().joined(separator: "\n")
        #expect(
            text.contains(
                "failure    " + Units.failure(TaskFailure(code: "http", detail: "404", retryable: false))))
        #expect(text.contains("location   1:0 in 'Media'") && text.contains("attempt 1"))
    }

    @Test func theAuditPaneIsAsWideAsTheListAndWrapsRatherThanCuts() throws {
        let long = String(repeating: "word ", count: 40) + "END"
        for width in [80, 220] {
            var m = UIModel.showing(try sample(), columns: width, rows: 24)
            _ = m.press(.down)
            m.showAudit(1, lines: ["#2  first event", "#4  " + long])
            let lines = m.lines()
            let title = try #require(lines.firstIndex { $0.contains("Audit #1 debian.iso") })
            // The pane's rule spans the whole width, and the long event is whole, wrapped.
            #expect(lines[title].hasSuffix("─"), "\(lines[title])")
            #expect(lines.contains { $0.contains("END") }, "\(lines.joined(separator: "\n"))")
            let words = lines[(title + 1)...].joined().components(separatedBy: "word").count - 1
            #expect(words == 40, "\(width): \(words)")
            #expect(title > 3, "the list is above the pane")
        }
        // A URL longer than the screen, in the details, is whole.
        var b = ListBuilder()
        try b.add(["a/" + String(repeating: "x", count: 150) + ".bin"])
        var m = UIModel.showing(b.list, columns: 80, rows: 24)
        m.showDetails(1, file: nil)
        let joined = m.lines().map { $0.trimmingCharacters(in: .whitespaces) }.joined()
        #expect(joined.contains(String(repeating: "x", count: 150) + ".bin"))
    }

    @Test func userinfoInAURLIsRedacted() {
        #expect(
            UIModel.redactingUserinfo("https://bob:pw@host.example/a@b.iso")
                == "https://[redacted]@host.example/a@b.iso")
        #expect(UIModel.redactingUserinfo("https://host.example/a@b.iso") == "https://host.example/a@b.iso")
    }
}
