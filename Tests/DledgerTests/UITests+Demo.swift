import Foundation
import Testing

extension UITests {
    /// `dledger demo --ui`: the demo's files in two sections of a ledger of its own, downloading from its loopback
    /// server while the screen shows them; the paused one resumes with Enter; `q` gives the terminal back and the
    /// demo's folder is gone.
    @Test func theDemoShowsTheListDownloading() async throws {
        let box = try DledgerSandbox()
        let t = try TmuxTerminal(
            "cd \(TmuxTerminal.quote(box.downloads)) && \(TmuxTerminal.quote(DledgerSandbox.binary)) demo --ui",
            columns: 100, rows: 24,
            environment: ["NO_COLOR": "1", "TMPDIR": box.root, "LC_ALL": "C.UTF-8"])
        defer { t.close() }
        // Its own downloader runs (the header says so once it started), the paused file waits for a key.
        let shown = try await t.waitFor(30) { s in
            s.first?.contains("downloading here (pid") == true
                && s.contains { $0.contains("Linux and media") }
                && s.contains { $0.contains("1 Documents") }
                && s.contains { $0.contains("#4 manual.pdf") && $0.contains("paused") }
        }
        #expect(shown != nil, "\(t.shown)")
        // notes.txt is small and not throttled: it finishes while the screen is open.
        #expect(
            try await t.waitFor(30) { s in
                s.contains { $0.contains("#5 notes.txt") && $0.contains("finished") }
            } != nil, "\(t.shown)")
        // Put the cursor on manual.pdf (the row after the "1 Documents" header) and press the accessory button.
        for _ in 0..<5 { try t.keys("j") }
        let onIt = try await t.waitFor(5) { s in
            s.contains { $0.hasPrefix(">") && $0.contains("#4 manual.pdf") }
        }
        #expect(onIt != nil, "\(t.shown)")
        try t.keys("Enter")
        let resumed = try await t.waitFor(30) { s in
            s.contains { $0.contains("#4 manual.pdf") && !$0.contains("paused") }
        }
        #expect(resumed != nil, "\(t.shown)")
        try t.keys("q")
        try await expectRestored(t, exit: 0)
        let left = try FileManager.default.contentsOfDirectory(atPath: box.root).filter {
            $0.hasPrefix("dledger-demo-")
        }
        #expect(left.isEmpty, "\(left)")
    }
}
