import DownloadLedger
import Foundation
import LoopbackHTTP

/// The demo's narrated steps. Commands run in-process through `CLI.run`, against a temporary ledger.
struct Tour {
    let console: Console
    let ledgerPath: String
    let downloads: String
    let environment: [String: String]

    /// Runs every step. Returns false when interrupted.
    func walk(server: LoopbackServer) async throws -> Bool {
        let url = { (path: String) in server.url(path) }
        heading(1, "A ledger and its sections")
        say("A ledger is one SQLite file holding an append-only log of events. Every command below")
        say("appends one event (or none, when it fails); the list is that log folded up.")
        say("Ledger: \(ledgerPath)")
        try await dledger(["add", url("/linux/debian-mini.iso"), "--section", "Linux"])
        try await dledger(["add", url("/media/talk.mp4"), url("/media/song.flac"), "--section", "Media"])
        try await dledger(["add", url("/docs/manual.pdf"), url("/docs/notes.txt"), "--section", "Documents"])
        say("A URL already in the list is not added twice; the command fails and appends nothing:")
        try await dledger(["add", url("/docs/notes.txt")], expect: CLIError.failure)
        let afterAdds = try Ledger(path: ledgerPath, readOnly: true).list.head
        try await dledger(["ls"])

        heading(2, "Parallel downloads with live progress")
        say("'dledger run' starts waiting tasks in list order, 3 at a time (see 'dledger limit').")
        say("The server throttles these files so you can watch; song.flac's first request gets a 503,")
        say("which the downloader retries with backoff. (A file that proves slow is split over several")
        say("connections by default; this tour keeps one per file, as 'run --connections 1' does.)")
        let background = try Background(console: console, ledgerPath: ledgerPath)
        defer { background.stopNow() }
        guard await background.wait(seconds: 1.2) else { return false }
        heading(3, "Pause and resume (from another command, while run is active)")
        say("This could be another terminal: the running downloader follows the ledger file.")
        say("A pause keeps the connection; a stop closes it.")
        try await dledger(["pause", "1"])
        try await dledger(["stop", "2"])
        guard await background.wait(seconds: 0.8) else { return false }
        try await dledger(["ls"])
        try await dledger(["resume", "1", "2"])
        say(
            "#1 goes on with the same response; #2's partial file stays and resumes with an HTTP Range request."
        )
        guard await background.waitUntilDone(timeout: 40) else { return false }
        await background.stop()
        let ranges = server.requests("/media/talk.mp4").compactMap(\.range)
        let iso = server.requests("/linux/debian-mini.iso").count
        say("The server saw debian-mini.iso requested \(iso == 1 ? "once" : "\(iso) times").")
        say(
            "The server saw talk.mp4 requested with: "
                + (ranges.isEmpty ? "no Range header" : "Range: \(ranges[0])"))

        heading(4, "The to-delete list, and restore")
        try await dledger(["rm", "5"])
        try await dledger(["ls", "--trash"])
        try await dledger(["restore", "5"])

        heading(5, "Undo")
        try await dledger(["mv", "4", "--to", "0:0"])
        try await dledger(["undo"])

        heading(6, "Replay: the list as it was after event #\(afterAdds)")
        say("Nothing is overwritten, so any earlier moment can be rebuilt from the log.")
        try await dledger(["replay", "--to", "\(afterAdds)"])

        heading(7, "Audit: one task's whole history")
        try await dledger(["audit", "2"])

        heading(8, "Verify")
        say("The hash chain, replay against the live list, and every finished file's size and SHA-256.")
        try await dledger(["verify", "--checksums"])
        try await dledger(["stats"])
        console.out()
        say("That was the whole tour. Try 'dledger help', or 'dledger demo --keep' to look around after.")
        return true
    }

    func heading(_ n: Int, _ title: String) {
        console.out()
        console.out(
            console.style(
                "── \(n). \(title) " + String(repeating: "─", count: max(4, 60 - title.count)), .bold))
    }

    func say(_ text: String) {
        console.out(console.style(text, .dim))
    }

    /// Prints `$ dledger ARGS` and runs it.
    func dledger(_ args: [String], expect: Int32 = CLIError.success) async throws {
        console.out(console.style("$ dledger " + args.map(Self.quoted).joined(separator: " "), .cyan))
        var env = environment
        env["DLEDGER_LEDGER"] = ledgerPath
        // The ledger the first add creates takes the demo's own folder, never the user's download folder.
        env["XDG_DOWNLOAD_DIR"] = downloads
        let parsed = try Arguments(args)
        let status = await CLI.run(parsed, console: console, environment: env, cwd: downloads)
        guard status == expect else {
            throw CLIError.failed("demo step failed: dledger \(args.joined(separator: " "))")
        }
    }

    static func quoted(_ s: String) -> String {
        s.contains(" ") ? "'\(s)'" : s
    }
}
