import Foundation
import LoopbackHTTP
import Testing

/// `dledger ui` end to end in a real terminal (tmux).
@Suite(.enabled(if: TmuxTerminal.isAvailable, "needs tmux"))
struct UITests {
    func ui(_ box: DledgerSandbox, _ args: String = "", columns: Int = 100, rows: Int = 24) throws
        -> TmuxTerminal
    {
        try TmuxTerminal(
            "cd \(TmuxTerminal.quote(box.downloads)) && \(TmuxTerminal.quote(DledgerSandbox.binary)) ui \(args)",
            columns: columns, rows: rows,
            environment: [
                "DLEDGER_LEDGER": box.ledger, "NO_COLOR": "1", "TMPDIR": box.root, "LC_ALL": "C.UTF-8",
            ])
    }

    /// The terminal was given back: main screen, and cooked mode with echo.
    func expectRestored(_ t: TmuxTerminal, exit status: Int32) async throws {
        let after = try await t.waitFor("EXIT=")
        #expect(after != nil, "\(t.shown)")
        let text = t.shown
        #expect(text.contains("EXIT=\(status)"), "\(text)")
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
        #expect(try await t.waitFor("1 Later", seconds: 2) != nil, "\(t.shown)")
        try t.keys("q")
        try await expectRestored(t, exit: 0)
    }
}
