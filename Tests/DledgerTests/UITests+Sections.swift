import Foundation
import LoopbackHTTP
import Testing

/// The section keys, redownload, the filters, select-all and the sort keys, each checked against the CLI.
extension UITests {
    /// One key (or a few) of a session, what to type after them, and what the screen then says.
    typealias Step = (keys: [String], text: String?, says: String)

    /// The cursor starts on `0 Downloads`; the rows are `0 Downloads`, #1 a.iso, #2 b.iso, #3 c.iso, #4 d.bin
    /// (downloaded), `1 Other`.
    static let sectionSession: [Step] = [
        (["G", "n"], "Middle", "New section:"),
        (["Enter"], nil, "inserted section 2 'Middle'"),
        (["E", "C-u"], "Elsewhere", "Rename section 1:"),
        (["Enter"], nil, "renamed section 1 from 'Other' to 'Elsewhere'"),
        (["}"], nil, "moved section 1 'Elsewhere' to 2"),
        (["{"], nil, "moved section 1 'Middle' to 0"),
        (["g", "D"], nil, "removed section 0 'Middle'"),
        // A section that has tasks is not removed: one line, no event.
        (["g", "D"], nil, "error: "),
        // SDE's `.subsection`: the cursor's section alone, then the whole list again.
        (["s"], nil, "manual order, 'Downloads' only"),
        (["s"], nil, "1 Elsewhere"),
        (["G", "k", "w"], nil, "Download #4 again from zero"),
        (["y"], nil, "reset #4 to download again from zero"),
        (["f"], nil, "manual order, unfinished only"),
        (["f"], nil, "manual order, finished only"),
        (["f"], nil, "manual order, finished in 7 days"),
        (["f"], nil, "manual order  "),
        (["*"], nil, "4 selected"),
        (["p"], nil, "paused #1–#4"),
    ]

    /// After `*` again (nothing selected), the sort keys.
    static let sortSession: [Step] = [
        (["o"], nil, "sorted by added"),
        (["O"], nil, "sorted by added, descending"),
    ]

    /// The same actions through the CLI (the refused `D` and the views append nothing).
    static let sectionCLI: [[String]] = [
        ["section", "add", "Middle", "--at", "2"], ["section", "rename", "1", "Elsewhere"],
        ["section", "mv", "1", "--to", "2"], ["section", "mv", "1", "--to", "0"], ["section", "rm", "0"],
        ["redownload", "4"], ["pause", "1", "2", "3", "4"], ["sort", "added"], ["sort", "added", "--desc"],
    ]

    @Test func sectionKeysRedownloadFiltersSelectAllAndSortAppendWhatTheCLIWould() async throws {
        let server = try LoopbackServer()
        defer { server.stop() }
        server.serve("/d.bin", Resource(size: 50_000, seed: 9))
        /// Three tasks nobody downloads, one downloaded (so that it can be downloaded again), a second section.
        func setUp(_ box: DledgerSandbox) async throws {
            try await box.run(
                "add", "http://127.0.0.1:9/a.iso", "http://127.0.0.1:9/b.iso", "http://127.0.0.1:9/c.iso")
            let get = try await box.run("get", server.url("/d.bin"))
            #expect(get.status == 0, "\(get.err)")
            try await box.run("section", "add", "Other")
        }
        let viaUI = try DledgerSandbox()
        try await setUp(viaUI)
        let t = try ui(viaUI, "--watch")
        defer { t.close() }
        try await t.waitFor("#4 d.bin")
        try await drive(t, Self.sectionSession)
        try t.keys("*")
        let none = try await t.waitFor { s in s.count > 1 && !s[1].contains("selected") }
        #expect(none != nil, "a second * selects none: \(t.shown)")
        try await drive(t, Self.sortSession)
        #expect(t.lastScreen[0].contains("by added ↓"), "\(t.shown)")
        #expect(t.lastScreen.contains { $0.contains("#1 a.iso") && $0.contains("paused") }, "\(t.shown)")
        try t.keys("q")
        try await expectRestored(t, exit: 0)

        let viaCLI = try DledgerSandbox()
        try await setUp(viaCLI)
        try await runAll(viaCLI, Self.sectionCLI)
        // The keys' events; the download's facts differ by file identity and time, and no key appends them.
        let a = try await Self.facts(viaUI).filter { !$0.contains("\"kind\":\"transfer") }
        let b = try await Self.facts(viaCLI).filter { !$0.contains("\"kind\":\"transfer") }
        #expect(a.count == 13, "\(a)")
        #expect(a.count == b.count)
        for (x, y) in zip(a, b) { #expect(x == y) }
    }

    /// Sends each step's keys (and text), and waits until the screen says what the step says.
    func drive(_ t: TmuxTerminal, _ steps: [Step]) async throws {
        for step in steps {
            for k in step.keys { try t.keys(k) }
            if let text = step.text { try t.type(text) }
            let seen = try await t.waitFor(step.says)
            #expect(seen != nil, "after \(step.keys): \(t.shown)")
        }
    }
}
