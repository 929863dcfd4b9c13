import Testing

@testable import LedgerCore

struct HookTests {
    @Test func firstLineStopsAtTheFirstBreakAndReplacesControls() {
        #expect(
            Hook.firstLine(of: Array("  moved to /srv/a.iso  \nsecond line\n".utf8)) == "moved to /srv/a.iso")
        #expect(Hook.firstLine(of: Array("\u{1B}[31mred\tand\u{7}bell\r\nnext".utf8)) == "?[31mred?and?bell")
        #expect(Hook.firstLine(of: Array("report\u{202E}txt.exe \u{9B}2J".utf8)) == "report?txt.exe ?2J")
        // Bytes that are not UTF-8 come out as replacement characters, never as raw bytes.
        #expect(Hook.firstLine(of: [0x66, 0xFF, 0xFE, 0x67]) == "f\u{FFFD}\u{FFFD}g")
        #expect(Hook.firstLine(of: []) == "")
        #expect(Hook.firstLine(of: Array("\n\nlater".utf8)) == "")
    }

    @Test func firstLineIsBounded() {
        let long = String(repeating: "é", count: 10_000)
        let line = Hook.firstLine(of: Array(long.utf8))
        #expect(line.count == Hook.maxLineCharacters)
        #expect(line.allSatisfy { $0 == "é" })
    }

    @Test func aCommandIsAnAbsolutePathWithoutControls() throws {
        try Hook.check(command: "/usr/local/bin/after-download")
        try Hook.check(command: "/home/ü/my hooks/done.sh")
        for bad in [
            "done.sh", "./done.sh", "~/done.sh", "", "/bin/x\u{0}y", "/bin/\u{1B}x", "/bin/a\u{2066}b",
        ] {
            #expect(throws: LedgerError.self, "\(bad)") { try Hook.check(command: bad) }
        }
        #expect(throws: LedgerError.self) {
            try Hook.check(command: "/" + String(repeating: "a", count: Hook.maxCommandBytes))
        }
    }
}
