import Foundation
import LedgerCore
import LedgerUI
import Testing

@Suite struct KeyParserTests {
    @Test func readsKeysSequencesAndUTF8() {
        var p = KeyParser()
        let keys = p.feed(Array("a\u{1B}[A\u{1B}[B\u{1B}OC\u{1B}[5~\u{1B}[3~\r\u{7F}\u{12}é文".utf8))
        #expect(
            keys == [
                .char("a"), .up, .down, .right, .pageUp, .delete, .enter, .backspace, .ctrl("r"), .char("é"),
                .char("文"),
            ])
    }

    @Test func aSequenceCutBetweenReadsIsKept() {
        var p = KeyParser()
        #expect(p.feed([0x1B, 0x5B]).isEmpty)
        #expect(p.hasPending)
        #expect(p.feed([0x41]) == [.up])
        #expect(p.feed([0xE6, 0x96]).isEmpty)
        #expect(p.feed([0x87]) == [.char("文")])
    }

    @Test func aLoneEscapeIsTheEscapeKey() {
        var p = KeyParser()
        #expect(p.feed([0x1B]).isEmpty)
        #expect(p.flush() == [.escape])
        #expect(!p.hasPending)
    }

    @Test func bracketedPasteKeepsNewlinesAndIsOneKey() {
        var p = KeyParser()
        let first = p.feed(Array("\u{1B}[200~http://a/1\nhttp://a/2\r\nhttp:".utf8))
        #expect(first.isEmpty)
        #expect(p.feed(Array("//a/3\u{1B}[20".utf8)).isEmpty)
        #expect(p.feed(Array("1~q".utf8)) == [.paste("http://a/1\nhttp://a/2\r\nhttp://a/3"), .char("q")])
    }
}

@Suite struct KeyMapTests {
    func twoSections() throws -> DownloadList {
        var b = ListBuilder()
        try b.add(["a", "b", "c"])
        try b.add(["d"], placement: .newSection(title: "Other", at: nil))
        return b.list
    }

    @Test func eachKeyIsOneCommandOnTheCursorOrTheSelection() throws {
        var m = UIModel.showing(try twoSections())
        #expect(m.press(.down, .char("p")) == [.execute(.pause(.tasks([1])))])
        #expect(m.press(.char(" "), .char(" "), .char("x")) == [.execute(.stop(.tasks([1, 2])))])
        #expect(m.press(.char("P")) == [.execute(.pause(.section(0)))])
        #expect(m.press(.char("A"), .char("r")) == [.execute(.resume(.all))])
        #expect(m.press(.char("u")) == [.execute(.undo)])
        #expect(m.press(.ctrl("r")) == [.execute(.redo)])
        #expect(m.press(.char("q")) == [.quit])
    }

    /// SDE's `shouldRemoveEmptySection` is a setting (one event, as `dledger set auto-remove-sections`); its
    /// `isFileNamePreferred` is how the rows read (no event).
    @Test func emptiedSectionsAndURLsAreKeys() throws {
        var b = ListBuilder()
        try b.add(["a.iso", "b.iso"])
        var m = UIModel.showing(b.list, columns: 100)
        #expect(m.press(.char("S")) == [.execute(.setAutoRemoveEmptySections(true))])
        try b.run(.setAutoRemoveEmptySections(true))
        m.setList(b.list)
        #expect(m.press(.char("S")) == [.execute(.setAutoRemoveEmptySections(false))])
        #expect(m.lines().contains { $0.contains("#1 a.iso") })
        #expect(m.press(.char("U")).isEmpty)
        #expect(m.lines().contains { $0.contains("#1 https://example.com/a.iso") }, "\(m.lines())")
        #expect(!m.lines().contains { $0.contains("#1 a.iso") })
        _ = m.press(.char("U"))
        #expect(m.lines().contains { $0.contains("#1 a.iso") })
    }

    @Test func theAccessoryKeyPausesOrResumes() throws {
        var b = ListBuilder()
        try b.add(["a", "b"])
        try b.run(.pause(.tasks([2])))
        var m = UIModel.showing(b.list)
        #expect(m.press(.down, .enter) == [.execute(.pause(.tasks([1])))])
        #expect(m.press(.down, .enter) == [.execute(.resume(.tasks([2])))])
    }

    @Test func deleteAsksTheMode() throws {
        var m = UIModel.showing(try twoSections())
        #expect(m.press(.down, .char("d")).isEmpty)
        #expect(m.lines().joined().contains("Move to the to-delete list"))
        #expect(m.press(.char("3")) == [.execute(.delete(.tasks([1]), mode: .file))])
        #expect(m.press(.char("d"), .char("1")) == [.execute(.delete(.tasks([1]), mode: .all))])
        #expect(m.press(.char("d"), .escape).isEmpty)
        #expect(
            m.press(.char("A"), .char("d"), .char("2")) == [
                .execute(.delete(.tasks([1, 2, 3, 4]), mode: .record))
            ])
        #expect(!m.lines().joined().contains("Move to the to-delete list"))
    }

    @Test func renameAndAddArePrompts() throws {
        var m = UIModel.showing(try twoSections())
        _ = m.press(.down, .char("e"), .ctrl("u"))
        m.type("new.bin")
        #expect(m.lines()[4].contains("[new.bin_"))
        #expect(m.press(.enter) == [.execute(.rename(1, name: "new.bin"))])
        _ = m.press(.char("a"), .paste("http://h/1\nhttp://h/2\n"))
        #expect(
            m.press(.enter) == [
                .execute(
                    .add(
                        urls: ["http://h/1", "http://h/2"], placement: .section(0, index: nil), name: nil,
                        sha256: nil, directory: nil))
            ])
        _ = m.press(.char("N"))
        m.type("New")
        _ = m.press(.enter)
        m.type("http://h/3")
        #expect(
            m.press(.enter) == [
                .execute(
                    .add(
                        urls: ["http://h/3"], placement: .newSection(title: "New", at: 1), name: nil,
                        sha256: nil, directory: nil))
            ])
        _ = m.press(.char("a"))
        m.type("http://h/4")
        #expect(m.press(.escape).isEmpty)
        #expect(m.overlay == .none)
    }

    @Test func movingKeepsOrderAndCrossesSections() throws {
        var m = UIModel.showing(try twoSections())
        // Rows: 0 header, 1 a, 2 b, 3 c, 4 header Other, 5 d.
        #expect(
            m.press(.down, .down, .char("K")) == [.execute(.move([2], to: Location(section: 0, index: 0)))])
        #expect(m.press(.char("J")) == [.execute(.move([2], to: Location(section: 0, index: 2)))])
        #expect(m.press(.down, .char("J")) == [.execute(.move([3], to: Location(section: 1, index: 0)))])
        _ = m.press(.home, .down, .char(" "), .char(" "))
        #expect(m.press(.char("m"), .char("1")) == [.execute(.move([1, 2], to: Location(section: 1)))])
        #expect(m.press(.char("T")) == [.execute(.move([1, 2], to: Location(section: 0, index: 0)))])
        #expect(m.press(.char("}")) == [.execute(.moveSection(0, to: 1))])
        #expect(m.press(.char("{")).isEmpty)
        #expect(m.message?.isError == true)
    }

    /// The task ids the list area shows, top to bottom.
    static func shownTasks(_ lines: [String]) -> [String] {
        lines.dropFirst(2).compactMap { line in
            line.range(of: #"#[0-9]+ "#, options: .regularExpression).map { String(line[$0].dropLast()) }
        }
    }

    @Test func oneSectionAloneAsSDEsSubsectionView() throws {
        var b = ListBuilder()
        try b.add(["a", "b", "c"])
        try b.add(["d"], placement: .newSection(title: "Other", at: nil))
        var m = UIModel.showing(b.list)
        // The cursor on `1 Other`'s task, then s: that section alone, its keys acting on section 1.
        _ = m.press(.end, .char("s"))
        var lines = m.lines()
        #expect(lines[0].contains("manual order, 'Other' only"), "\(lines)")
        #expect(Self.shownTasks(lines) == ["#4"], "\(lines)")
        #expect(m.press(.char("P")) == [.execute(.pause(.section(1)))])
        #expect(m.press(.char("*"), .char("p")) == [.execute(.pause(.tasks([4])))])
        // The section goes (its task moved out, the emptied section removed): the whole list again.
        try b.run(.move([4], to: Location(section: 0)))
        if b.list.sections.count == 2 { try b.run(.removeSection(1)) }
        m.setList(b.list)
        lines = m.lines()
        #expect(m.subsection == nil && Self.shownTasks(lines) == ["#1", "#2", "#3", "#4"], "\(lines)")
        _ = m.press(.home, .char("s"))
        #expect(m.lines()[0].contains("'Downloads' only"))
        _ = m.press(.char("s"))
        #expect(m.subsection == nil && m.lines()[0].contains("manual order  "))
        _ = m.press(.char("t"), .char("s"))
        #expect(m.subsection == nil && m.message?.isError == true)
    }

    @Test func limitPromptsHandTheTextToTheCLIsReaders() throws {
        var m = UIModel.showing(try twoSections())
        _ = m.press(.char("L"))
        m.type(" 2M ")
        #expect(m.press(.enter) == [.setSpeedLimit("2M")])
        _ = m.press(.char("l"), .ctrl("u"))
        m.type("5")
        #expect(m.press(.enter) == [.setMaxDownloads("5")])
        _ = m.press(.char("l"), .escape)
        #expect(m.overlay == .none)
    }

    @Test func historyKeys() throws {
        var m = UIModel.showing(try twoSections())
        #expect(m.press(.char("h")) == [.historyAt(nil)])
        m.showHistory(HistoryPoint(list: try twoSections(), seq: 2, time: 0, words: "x", head: 3))
        #expect(m.press(.left) == [.historyStep(events: -1)])
        #expect(m.press(.char("]")) == [.historyMinutes(1)])
        _ = m.press(.char(":"))
        m.type("17")
        #expect(m.press(.enter) == [.historyJump("17")])
        #expect(m.press(.char("d")).isEmpty)
        _ = m.press(.escape)
        #expect(m.history == nil)
    }

    @Test func theToDeleteViewRestoresAndPurges() throws {
        var b = ListBuilder()
        try b.add(["a", "b"])
        try b.run(.delete(.tasks([2]), mode: .record))
        var m = UIModel.showing(b.list)
        _ = m.press(.char("t"))
        #expect(m.lines()[2].contains("delete") && m.lines()[2].contains("from"))
        #expect(m.lines()[3].contains("To-delete list"))
        #expect(m.lines()[4].contains("#2") && m.lines()[4].contains("from 0:1 'Downloads'"))
        #expect(m.press(.down, .char("r")) == [.execute(.restore([2], to: nil))])
        #expect(m.press(.char("d"), .char("y")) == [.execute(.purge([2]))])
        #expect(m.press(.char("A"), .char("r")) == [.execute(.restore(nil, to: nil))])
    }
}
