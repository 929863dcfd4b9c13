import LedgerCore
import LedgerUI
import Testing

/// `/` as in less: a prompt, Enter to the first match, `n`/`N` next and previous, `Esc` clears.
@Suite struct SearchTests {
    func sample() throws -> DownloadList {
        var b = ListBuilder()
        try b.add(["debian.iso", "notes.txt", "ubuntu.iso"])
        try b.add(["talk.mp4"], placement: .newSection(title: "Media", at: nil))
        try b.run(
            .add(
                urls: ["https://mirror.example.org/pub/arch.img"], placement: .end, name: nil, sha256: nil,
                directory: nil))
        return b.list
    }

    /// The task under the cursor, read from the screen.
    func cursorRow(_ m: UIModel) -> String { m.lines().first { $0.hasPrefix(">") } ?? "" }

    @Test func slashTypesInAPromptAndEnterGoesToTheFirstMatchThenNAndShiftN() throws {
        var m = UIModel.showing(try sample(), columns: 100, rows: 20)
        _ = m.press(.char("/"))
        m.type("IsX")
        _ = m.press(.backspace)
        m.type("o")
        #expect(m.lines()[18].hasPrefix("/Iso_"), "\(m.lines()[18])")
        #expect(m.lines()[19].contains("Enter search") && m.lines()[19].contains("Esc cancels"))
        #expect(m.press(.enter).isEmpty)
        #expect(cursorRow(m).contains("#1 debian.iso"), "\(cursorRow(m))")
        #expect(m.message?.text.contains("match 1 of 2") == true)
        #expect(m.lines()[19].contains("n next") && m.lines()[19].contains("N prev"))
        _ = m.press(.char("n"))
        #expect(cursorRow(m).contains("#3 ubuntu.iso"))
        #expect(m.message?.text.contains("match 2 of 2") == true)
        _ = m.press(.char("n"))
        #expect(cursorRow(m).contains("#1 debian.iso"), "n wraps around")
        _ = m.press(.char("N"))
        #expect(cursorRow(m).contains("#3 ubuntu.iso"), "N wraps back")
        _ = m.press(.char("N"))
        #expect(cursorRow(m).contains("#1 debian.iso"))
        // A narrow bar keeps help, quit, n and N.
        m.resize(columns: 40, rows: 12)
        let bar = m.lines()[11]
        #expect(bar.contains("? help") && bar.contains("q quit") && bar.contains("n next"), "\(bar)")
    }

    @Test func urlsAreSearchedTooAndTheCursorStartsFromItsRow() throws {
        var m = UIModel.showing(try sample(), columns: 100, rows: 20)
        _ = m.press(.char("/"))
        m.type("mirror.example")
        _ = m.press(.enter)
        #expect(cursorRow(m).contains("#5 arch.img"), "\(cursorRow(m))")
        _ = m.press(.char("/"))
        m.type(".iso")
        _ = m.press(.enter)
        #expect(cursorRow(m).contains("#1 debian.iso"), "from the last row it wraps to the first match")
    }

    @Test func escClearsTheSearchAndNInsertsASectionAgain() throws {
        var m = UIModel.showing(try sample(), columns: 100, rows: 20)
        _ = m.press(.char("/"))
        m.type("notes")
        _ = m.press(.enter)
        #expect(m.search == "notes")
        #expect(m.lines().contains { $0.contains("#2 notes.txt") })
        _ = m.press(.escape)
        #expect(m.search == nil && m.message?.text == "search cleared")
        _ = m.press(.char("n"))
        guard case .prompt(let p) = m.overlay, case .insertSection = p.purpose else {
            Issue.record("n after Esc inserts a section: \(m.overlay)")
            return
        }
    }

    @Test func noMatchSaysSoAndKeepsTheCursor() throws {
        var m = UIModel.showing(try sample(), columns: 100, rows: 20)
        _ = m.press(.down, .down)
        let before = m.cursor
        _ = m.press(.char("/"))
        m.type("zzz")
        _ = m.press(.enter)
        #expect(m.cursor == before && m.search == nil)
        #expect(m.message?.text == "no name or URL holds 'zzz'" && m.message?.isError == true)
        #expect(m.lines()[18].contains("error: no name or URL holds 'zzz'"))
        // Esc in the prompt cancels it, without searching.
        _ = m.press(.char("/"))
        m.type("debian")
        _ = m.press(.escape)
        #expect(m.cursor == before && m.search == nil && m.overlay == .none)
    }

    @Test func theHistoryIsSearchedToo() throws {
        let list = try sample()
        var m = UIModel.showing(list, columns: 100, rows: 20)
        m.showHistory(HistoryPoint(list: list, seq: 3, time: 0, words: "added", head: 9))
        _ = m.press(.char("/"))
        m.type("talk")
        _ = m.press(.enter)
        #expect(cursorRow(m).contains("#4 talk.mp4"))
        // n is the next match, not "back to now", while the search is on.
        _ = m.press(.char("n"))
        #expect(m.history != nil)
        _ = m.press(.escape, .escape)
        #expect(m.history == nil)
    }
}
