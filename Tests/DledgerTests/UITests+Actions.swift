import Foundation
import LoopbackHTTP
import Testing

extension UITests {
    @Test func addsURLsIntoANewSectionAndWatchesThemFinish() async throws {
        let box = try DledgerSandbox()
        let server = try LoopbackServer()
        defer { server.stop() }
        server.serve("/one.bin", Resource(size: 200_000, seed: 1))
        server.serve("/two.bin", Resource(size: 300_000, seed: 2))
        let t = try ui(box)
        defer { t.close() }
        // A new ledger: nothing is on disk, not even the run lock, until something is added.
        try await t.waitFor("not downloading")
        #expect(!FileManager.default.fileExists(atPath: box.ledger))
        #expect(!FileManager.default.fileExists(atPath: box.ledger + ".lock"))
        try t.keys("N")
        try t.type("Fresh")
        try t.keys("Enter")
        try await t.waitFor("Add URLs to the new section 'Fresh'")
        try t.paste(server.url("/one.bin") + "\n" + server.url("/two.bin") + "\n")
        try t.keys("Enter")
        #expect(try await t.waitFor("downloading here (pid") != nil, "\(t.shown)")
        let done = try await t.waitFor(10) { $0.contains { $0.contains("2 finished") } }
        #expect(done != nil, "\(t.shown)")
        #expect(t.shown.contains("0 Fresh  (2 tasks)"), "\(t.shown)")
        #expect(t.lastScreen.contains { $0.contains("#1 one.bin") && $0.contains("finished") }, "\(t.shown)")
        try t.keys("q")
        try await expectRestored(t, exit: 0)
        #expect(box.contents("one.bin") == Body.generatedBytes(seed: 1, in: 0..<200_000))
        #expect(box.contents("two.bin") == Body.generatedBytes(seed: 2, in: 0..<300_000))
    }

    /// The keys of one session, each waited for by what the status line then says.
    static let session: [(keys: [String], text: String?, says: String)] = [
        (["j", "p"], nil, "paused #1"),
        (["Enter"], nil, "resumed #1"),
        (["d", "2"], nil, "moved #1 to the to-delete list (record only)"),
        (["t"], nil, "record only"),
        (["j", "r"], nil, "restored #1 to 0:0"),
        (["t", "g", "j", "d", "3"], nil, "deleted the files of #1"),
        (["d", "1"], nil, "moved #1 to the to-delete list (record and file)"),
        (["u"], nil, "undid #"),
        (["C-r"], nil, "redid #"),
        (["u"], nil, "undid #"),
        (["g", "j", "j", "m", "1"], nil, "moved #2 to 1:"),
        (["g", "j", "j", "e", "C-u"], "renamed.iso", "edit the name in its row"),
        (["Enter"], nil, "renamed #3 to 'renamed.iso'"),
        // A new ledger removes emptied sections: S keeps them from now on.
        (["S"], nil, "empty sections are now kept"),
    ]

    /// The same actions through the CLI.
    static let cli: [[String]] = [
        ["pause", "1"], ["resume", "1"], ["rm", "1", "--mode", "record"], ["restore", "1"],
        ["rm", "1", "--mode", "file"], ["rm", "1"], ["undo"], ["redo"], ["undo"], ["mv", "2", "--to", "1"],
        ["rename", "3", "renamed.iso"], ["set", "auto-remove-sections", "off"],
    ]

    func setUp(_ box: DledgerSandbox) async throws {
        try await box.run(
            "add", "http://127.0.0.1:9/a.iso", "http://127.0.0.1:9/b.iso", "http://127.0.0.1:9/c.iso")
        try await box.run("section", "add", "Other")
    }

    @Test func eachKeyAppendsWhatTheCLIWould() async throws {
        let viaUI = try DledgerSandbox()
        try await setUp(viaUI)
        let t = try ui(viaUI, "--watch")
        defer { t.close() }
        try await t.waitFor("#3 c.iso")
        try await drive(t, Self.session)
        #expect(t.lastScreen.contains { $0.contains("#3 renamed.iso") }, "\(t.shown)")
        #expect(t.lastScreen.contains { $0.contains("1 Other  (1 task)") }, "\(t.shown)")
        try t.keys("q")
        try await expectRestored(t, exit: 0)

        let viaCLI = try DledgerSandbox()
        try await setUp(viaCLI)
        try await runAll(viaCLI, Self.cli)
        let a = try await Self.facts(viaUI)
        let b = try await Self.facts(viaCLI)
        #expect(a.count == b.count)
        for (x, y) in zip(a, b) { #expect(x == y) }
    }

    /// Runs each command in `box`, each expected to succeed.
    func runAll(_ box: DledgerSandbox, _ commands: [[String]]) async throws {
        for args in commands {
            let r = try await box.run(args)
            #expect(r.status == 0, "\(args): \(r.err)")
        }
    }

    /// Each event of the log, without its times and without the directory (each sandbox has its own).
    static func facts(_ box: DledgerSandbox) async throws -> [String] {
        try await box.run("log", "--json").jsonLines.map { line in
            var l = line
            l["time"] = nil
            l["timeMs"] = nil
            let data = try JSONSerialization.data(withJSONObject: l, options: [.sortedKeys])
            return String(decoding: data, as: UTF8.self)
                .replacingOccurrences(of: box.root.replacingOccurrences(of: "/", with: "\\/"), with: "<root>")
        }
    }
}
