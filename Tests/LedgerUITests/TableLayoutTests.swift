import LedgerCore
import LedgerTransfer
import LedgerUI
import Testing

/// The list as a table: columns under a header row, sized to the terminal; the key bar and the totals at 80
/// columns; the help's key column.
@Suite struct TableLayoutTests {
    /// A downloading task with progress, a finished one, a paused one with a size, a failed one.
    func sample() throws -> UIModelFixture {
        var b = ListBuilder()
        try b.add(["debian.iso", "notes.txt", "talk.mp4", "missing.pdf"])
        b.fact(.transferStarted(id: 1, attempt: 1, offset: 0))
        b.fact(
            .transferCompleted(
                id: 2, bytes: 60_000, sha256: String(repeating: "a", count: 64), fileName: "notes.txt"))
        try b.run(.pause(.tasks([3])))
        b.fact(.transferStarted(id: 4, attempt: 1, offset: 0))
        b.fact(
            .transferFailed(
                id: 4, failure: TaskFailure(code: "http", detail: "404", retryable: false), bytes: 0))
        return UIModelFixture(list: b.list)
    }

    struct UIModelFixture {
        var list: DownloadList
        func model(_ columns: Int, _ rows: Int) -> UIModel {
            var m = UIModel.showing(list, columns: columns, rows: rows)
            m.setActivity([
                TransferActivity(id: 1, bytes: 10_200_000, expected: 117_000_000, speed: 1_200_000, eta: 89)
            ])
            return m
        }
    }

    /// Where `text` starts in `line` (in columns: the lines here are ASCII before it).
    func column(of text: String, in line: String) -> Int? {
        line.range(of: text).map { line.distance(from: line.startIndex, to: $0.lowerBound) }
    }

    @Test(arguments: [80, 100, 132, 220])
    func eachColumnStartsUnderItsTitle(width: Int) throws {
        let lines = try sample().model(width, 24).lines()
        let header = lines[2]
        for line in lines { #expect(TextWidth.width(line) == width) }
        #expect(header.contains("name") && header.contains("state") && header.contains("size"))
        // Short names leave room for a bar: the column is the progress (the percentage alone is "done").
        #expect(header.contains("progress"), "\(header)")
        let state = try #require(column(of: "state", in: header))
        let downloading = try #require(lines.first { $0.contains("#1 debian.iso") })
        #expect(column(of: "downloading", in: downloading) == state, "\(header)\n\(downloading)")
        #expect(column(of: "finished", in: lines.first { $0.contains("#2 notes.txt") } ?? "") == state)
        #expect(column(of: "paused", in: lines.first { $0.contains("#3 talk.mp4") } ?? "") == state)
        // The numbers are right-aligned under their titles.
        let size = try #require(column(of: "size", in: header))
        let bytes = try #require(column(of: "10.2 MB / 117 MB", in: downloading))
        #expect(bytes + "10.2 MB / 117 MB".count == size + "size".count, "\(header)\n\(downloading)")
        let speed = try #require(column(of: "speed", in: header))
        let rate = try #require(column(of: "1.2 MB/s", in: downloading))
        #expect(rate + "1.2 MB/s".count == speed + "speed".count, "\(header)\n\(downloading)")
        #expect(downloading.contains("8%"))
    }

    @Test func theNameColumnIsAsWideAsTheLongestNameSoNothingFloats() throws {
        let lines = try sample().model(220, 24).lines()
        let row = try #require(lines.first { $0.contains("#4 missing.pdf") })
        let nameEnd = try #require(column(of: "missing.pdf", in: row)) + "missing.pdf".count
        let state = try #require(column(of: "failed", in: row))
        // "missing.pdf" and "debian.iso" are the longest names (11): the state is one gap after them.
        #expect(state - nameEnd == 2, "\(row)")
        // The failure is whole in its row, and the wide terminal shows an ETA and a bar.
        #expect(row.contains("the server answered HTTP 404 (Not Found)"), "\(row)")
        #expect(lines[2].contains("ETA"))
        let downloading = try #require(lines.first { $0.contains("#1 debian.iso") })
        #expect(downloading.contains("1m29s") && downloading.contains("[█"), "\(downloading)")
    }

    @Test func wideAndCombiningCharactersAreMeasuredInColumns() throws {
        var b = ListBuilder()
        try b.add(["x.pdf", "a.iso", "y.bin"])
        try b.run(.rename(1, name: "非常长的文件.pdf"))
        try b.run(.rename(3, name: "cafe\u{301}-e\u{301}te\u{301}.bin"))
        let lines = UIModel.showing(b.list, columns: 100, rows: 12).lines()
        // The display column where "waiting" starts is the same in every row, and under "state".
        func displayColumn(of text: String, in line: String) -> Int? {
            line.range(of: text).map { TextWidth.width(String(line[..<$0.lowerBound])) }
        }
        let state = try #require(displayColumn(of: "state", in: lines[2]))
        for id in 1...3 {
            let row = try #require(lines.first { $0.contains("#\(id) ") })
            #expect(displayColumn(of: "waiting", in: row) == state, "\(row)")
            #expect(TextWidth.width(row) == 100)
        }
        // The widest name (16 columns: six wide characters and ".pdf") sets the name column.
        #expect(state == 2 + 2 + 1 + 16 + 2, "\(lines[2])")
    }

    @Test func theLayoutDropsColumnsAsTheTerminalNarrows() {
        let all = TableLayout.order
        let wide = TableLayout(width: 220, idWidth: 3, longestName: 12)
        #expect(wide.columns.map(\.column) == all && wide.name == 12 && wide.bar == TableLayout.maximumBar)
        let long = TableLayout(width: 220, idWidth: 3, longestName: 300)
        #expect(long.columns.map(\.column) == all && long.bar == TableLayout.minimumBar)
        #expect(long.lead + long.name + long.cellsWidth == 220, "long names take what is left")
        let eighty = TableLayout(width: 80, idWidth: 3, longestName: 60)
        #expect(eighty.columns.map(\.column) == [.state, .progress, .size, .speed] && eighty.bar == 0)
        #expect(eighty.name >= TableLayout.minimumName && eighty.lead + eighty.name + eighty.cellsWidth == 80)
        let forty = TableLayout(width: 40, idWidth: 3, longestName: 60)
        #expect(forty.columns.map(\.column) == [.state] && forty.lead + forty.name + forty.cellsWidth == 40)
        // Short names at 80 columns leave room for the ETA.
        let short = TableLayout(width: 80, idWidth: 3, longestName: 10)
        #expect(short.columns.map(\.column) == all)
        #expect(short.name == 10)
    }

    @Test func theKeyBarAt80ColumnsKeepsHelpQuitHistoryAndTheToDeleteList() throws {
        let lines = try sample().model(80, 24).lines()
        let bar = lines[23]
        #expect(TextWidth.width(bar) == 80)
        for hint in ["? help", "q quit", "h hist", "t trash", "/ find"] {
            #expect(bar.contains(hint), "\(bar)")
        }
        // At 220 every hint is in words.
        let wide = try sample().model(220, 24).lines()[23]
        for hint in [
            "? help", "/ search", "Enter pause/resume", "I details", "h history", "t to-delete", "q quit",
        ] {
            #expect(wide.contains(hint), "\(wide)")
        }
        // Without room for a bar, the percentage column is "done".
        #expect(try sample().model(64, 24).lines()[2].contains(" done"))
        // Even at 40 columns, help and quit stay.
        let narrow = try sample().model(40, 10).lines()[9]
        #expect(narrow.contains("? help") && narrow.contains("q quit"), "\(narrow)")
    }

    @Test func theTotalsAbbreviateRatherThanDrop() throws {
        var b = ListBuilder()
        try b.add(["a.iso", "b.iso", "c.iso", "d.iso", "e.iso"])
        try b.run(.pause(.tasks([1])))
        try b.run(.stop(.tasks([2])))
        try b.run(.setSpeedLimit(500_000))
        try b.run(.delete(.tasks([3, 4, 5]), mode: .record))
        let wide = UIModel.showing(b.list, columns: 160, rows: 24).lines()[1]
        #expect(wide.contains("1 paused · 1 stopped"), "\(wide)")
        #expect(
            wide.contains("limit 500 KB/s") && wide.contains("3 to delete")
                && wide.contains("max 3 at a time"))
        var m = UIModel.showing(b.list, columns: 80, rows: 24)
        _ = m.press(.char("*"))
        let line = m.lines()[1]
        #expect(line.contains("lim 500K/s") && line.contains("trash 3") && line.contains("max 3"), "\(line)")
        #expect(line.contains("sel"), "\(line)")
        #expect(line.contains("1 paused") && line.contains("1 stopped"), "\(line)")
        // Narrower still: the last counts give way, never the figures.
        let tight = UIModel.showing(b.list, columns: 56, rows: 24).lines()[1]
        #expect(tight.contains("lim 500K/s") && tight.contains("trash 3") && tight.contains("…"), "\(tight)")
    }

    @Test func aFailureCutInItsRowIsWholeInTheStatusLine() throws {
        var m = try sample().model(80, 24)
        _ = m.press(.down, .down, .down, .down, .down)
        let lines = m.lines()
        let whole = Units.failure(TaskFailure(code: "http", detail: "404", retryable: false))
        #expect(lines[22].contains("#4 failed: " + whole), "\(lines[22])")
        // In the row, a narrow terminal keeps the status code whole.
        let row = lines.first { $0.contains("#4 missing.pdf") } ?? ""
        #expect(
            row.contains("failed") && row.contains(" HTTP 404 (Not Found)"),
            "\(lines.joined(separator: "\n"))")
    }

    @Test func helpKeysAndWordsStayInTheirColumns() {
        for width in [80, 120] {
            let lines = KeyHelp.lines(width: width)
            for line in lines { #expect(TextWidth.width(line) <= width, "\(line)") }
            let all = lines.first { $0.contains("A p  A r  A x  A d") } ?? ""
            let enter = lines.first { $0.hasPrefix("  Enter ") } ?? ""
            #expect(
                all.range(of: "pause / resume").map { all.distance(from: all.startIndex, to: $0.lowerBound) }
                    == enter.range(of: "the accessory").map {
                        enter.distance(from: enter.startIndex, to: $0.lowerBound)
                    }, "\(all)\n\(enter)")
        }
    }
}
