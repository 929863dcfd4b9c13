import LedgerCore
import LedgerTransfer
import LedgerUI
import Testing

@Suite struct ScreenTests {
    func sample() throws -> DownloadList {
        var b = ListBuilder()
        try b.add(["debian.iso", "notes.txt"])
        try b.add(["talk.mp4"], placement: .newSection(title: "Media", at: nil))
        b.fact(.transferStarted(id: 1, attempt: 1, offset: 0))
        b.fact(
            .transferCompleted(
                id: 2, bytes: 60_000, sha256: String(repeating: "a", count: 64), fileName: "notes.txt"))
        b.fact(.transferStarted(id: 3, attempt: 1, offset: 0))
        b.fact(
            .transferFailed(
                id: 3, failure: TaskFailure(code: "http", detail: "404", retryable: false), bytes: 0))
        return b.list
    }

    @Test func everyLineHasTheWidthAndTheScreenItsHeight() throws {
        for (w, h) in [(40, 10), (80, 24), (132, 50)] {
            let lines = UIModel.showing(try sample(), columns: w, rows: h).lines()
            #expect(lines.count == h)
            for line in lines { #expect(TextWidth.width(line) == w, "\(w)x\(h): '\(line)'") }
        }
    }

    @Test func rowsShowSectionsTasksStatesAndFailureInWords() throws {
        var model = UIModel.showing(try sample(), columns: 100, rows: 12)
        model.setActivity([
            TransferActivity(id: 1, bytes: 10_200_000, expected: 117_000_000, speed: 1_200_000, eta: 89)
        ])
        let lines = model.lines()
        #expect(lines[0].contains("dledger ui") && lines[0].contains("seq 7") && lines[0].contains("pid 42"))
        #expect(lines[1].contains("1 downloading · 1 failed · 1 finished"))
        #expect(lines[3].hasPrefix(">") && lines[3].contains("0 Downloads") && lines[3].contains("(2 tasks)"))
        #expect(lines[4].contains("#1 debian.iso") && lines[4].contains("8%"))
        #expect(lines[4].contains("10.2 MB / 117 MB") && lines[4].contains("1.2 MB/s"))
        #expect(
            lines[5].contains("#2 notes.txt") && lines[5].contains("finished")
                && lines[5].contains(TransferActivity.formatBytes(60_000)))
        #expect(lines[6].contains("1 Media") && lines[6].contains("(1 task)"))
        #expect(
            lines[7].contains("#3 talk.mp4") && lines[7].contains("failed") && lines[7].contains("HTTP 404"))
        #expect(lines[11].contains("? help"))
    }

    /// While the database is out of reach the header says so, whole, in the words of `run`'s status line, at 80
    /// columns too (the view's words give way); once it answers again, the header is as before.
    @Test func theHeaderSaysTheDatabaseIsOutOfReach() throws {
        let words = "database unreachable, retrying in 5 s (10000 facts waiting)"
        for width in [80, 160] {
            var model = UIModel.showing(try sample(), columns: width, rows: 12)
            model.outage = words
            let header = model.lines()[0]
            #expect(TextWidth.width(header) == width)
            #expect(header.hasPrefix(" dledger ui") && header.hasSuffix(words + " "), "\(header)")
            #expect(header.contains("manual order") == (width == 160), "\(header)")
            model.outage = nil
            let back = model.lines()[0]
            #expect(!back.contains("unreachable") && back.contains("seq 7"), "\(back)")
        }
    }

    @Test func everyFailureReadsAsASentenceInItsRow() throws {
        // What the ledger stores, shown in the words of every other front end.
        var b = ListBuilder()
        try b.add(["talk.mp4", "big.iso", "loop.bin"])
        let failures = [
            TaskFailure(code: "sizeMismatch", detail: "2400000:960000", retryable: true),
            TaskFailure(code: "diskFull", detail: "", retryable: false),
            TaskFailure(code: "tooManyRedirects", detail: "", retryable: false),
        ]
        for (i, failure) in failures.enumerated() {
            b.fact(.transferStarted(id: Int64(i + 1), attempt: 1, offset: 0))
            b.fact(.transferFailed(id: Int64(i + 1), failure: failure, bytes: 0))
        }
        let lines = UIModel.showing(b.list, columns: 120, rows: 10).lines()
        #expect(
            lines.contains {
                $0.contains("#1 talk.mp4") && $0.contains("connection closed after 960 KB of 2.4 MB")
            })
        #expect(lines.contains { $0.contains("#2 big.iso") && $0.contains("disk full") })
        #expect(lines.contains { $0.contains("#3 loop.bin") && $0.contains("too many redirects") })
    }

    @Test func wideCharactersLongNamesAndControlsFitTheirColumns() throws {
        var b = ListBuilder()
        try b.add([
            "%E9%9D%9E%E5%B8%B8%E9%95%BF%E7%9A%84%E6%96%87%E4%BB%B6%E5%90%8D%E9%9D%9E%E5%B8%B8%E9%95%BF.pdf"
        ])
        try b.run(.rename(1, name: "非常长的文件名非常长的文件名非常长的文件名.pdf"))
        try b.add(["evil%1B%5B31mred"])
        let lines = UIModel.showing(b.list, columns: 40, rows: 10).lines()
        for line in lines { #expect(TextWidth.width(line) == 40) }
        #expect(lines[4].contains("非常长") && lines[4].contains("…"))
        #expect(!lines.joined().contains("\u{1B}"))
        #expect(lines[5].contains("evil?[31mred"))
    }

    @Test func colourOnlyWhenAskedAndOnlyBasicColours() throws {
        var model = UIModel.showing(try sample())
        #expect(!model.lines().joined().contains("\u{1B}"))
        model.color = true
        let text = model.lines().joined()
        #expect(text.contains("\u{1B}[0;31m") && text.contains("\u{1B}[0;32m"))
        // Only SGR 0-7 and 30-37: what a 16-colour terminal has.
        var codes: Set<String> = []
        for part in text.split(separator: "\u{1B}").dropFirst() {
            let sgr = part.prefix { $0 != "m" }.dropFirst()
            for code in sgr.split(separator: ";") { codes.insert(String(code)) }
        }
        #expect(codes.isSubset(of: ["0", "1", "2", "7", "31", "32", "33", "34", "35", "36"]))
    }

    @Test func tenThousandTasksScrollByIndex() throws {
        var b = ListBuilder()
        try b.add((0..<5_000).map { "a\($0).bin" })
        try b.add((0..<5_000).map { "b\($0).bin" }, placement: .newSection(title: "More", at: nil))
        var model = UIModel.showing(b.list, columns: 80, rows: 24)
        _ = model.press(.end)
        var lines = model.lines()
        #expect(lines[21].hasPrefix(">") && lines[21].contains("#10000 b4999.bin"))
        for _ in 0..<25 { _ = model.handle(.pageUp) }
        lines = model.lines()
        #expect(
            lines.contains { $0.contains("1 More") && $0.contains("(5000 tasks)") } || lines[3].contains("#")
        )
        _ = model.press(.home)
        #expect(model.lines()[3].contains("0 Downloads"))
    }

    @Test func historyShowsThePointReadOnly() throws {
        let list = try sample()
        var model = UIModel.showing(list)
        var earlier = ListBuilder()
        try earlier.add(["debian.iso", "notes.txt"])
        model.showHistory(HistoryPoint(list: earlier.list, seq: 2, time: 0, words: "added #1 #2", head: 7))
        let lines = model.lines()
        #expect(lines[0].contains("HISTORY") && lines[0].contains("#2 of 7"))
        #expect(lines[1].contains("added #1 #2"))
        #expect(!lines.joined().contains("Media"))
        #expect(model.press(.char("p")).isEmpty)
        #expect(model.lines()[14].contains("read-only"))
        _ = model.press(.escape)
        #expect(model.lines().joined().contains("Media"))
    }

    @Test func tinyTerminalsStillDraw() throws {
        for (w, h) in [(1, 1), (10, 3), (39, 9)] {
            let lines = UIModel.showing(try sample(), columns: w, rows: h).lines()
            #expect(lines.count == h)
            for line in lines { #expect(TextWidth.width(line) == w) }
        }
    }
}
