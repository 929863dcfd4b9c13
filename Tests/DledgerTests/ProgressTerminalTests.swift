import Foundation
import LoopbackHTTP
import Testing

/// The live progress line of `get` in a real terminal (tmux) of 40, 80 and 200 columns: the name whole, the
/// fields that fit, nothing wider than the terminal.
@Suite(.enabled(if: TmuxTerminal.isAvailable)) struct ProgressTerminalTests {
    @Test(arguments: [40, 80, 200])
    func theLiveLineKeepsTheNameAndFitsTheWidth(columns: Int) async throws {
        let box = try DledgerSandbox()
        let server = try LoopbackServer()
        server.serve(
            "/media/song.flac",
            Resource(size: 4_000_000, seed: 2, faults: Faults(throttleBytesPerSecond: 400_000)))
        let term = try TmuxTerminal(
            "cd \(TmuxTerminal.quote(box.downloads)) && \(TmuxTerminal.quote(DledgerSandbox.binary)) get "
                + TmuxTerminal.quote(server.url("/media/song.flac")),
            columns: columns, rows: 12,
            environment: [
                "DLEDGER_LEDGER": box.ledger, "NO_COLOR": "1", "TMPDIR": box.root, "LC_ALL": "C.UTF-8",
            ])
        defer { term.close() }
        // The live line of #1, once its ETA is known.
        let screen = try await term.waitFor(15) { rows in
            rows.contains { $0.hasPrefix("   #1 song.flac") && $0.contains("ETA ") }
        }
        let line = try #require(screen?.first { $0.hasPrefix("   #1 song.flac") }, "\(term.shown)")
        #expect(!line.contains("…"), "\(line)")
        #expect(line.count < columns, "\(line.count) columns: \(line)")
        #expect(line.contains("%"))
        if columns >= 80 { #expect(line.contains("KB/s") || line.contains("MB/s"), "\(line)") }
        if columns >= 200 { #expect(line.contains("[") && line.contains(" / 4.0 MB"), "\(line)") }
        if columns <= 40 { #expect(!line.contains("["), "\(line)") }
    }
}
