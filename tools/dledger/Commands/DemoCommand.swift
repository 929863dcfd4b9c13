import DownloadLedger
import Foundation
import LoopbackHTTP

/// `dledger demo`: the whole lifecycle against a local server, narrated, with a temporary ledger.
/// Every step runs the real command, in-process, and prints it as `$ dledger ...` before its output.
enum DemoCommand {
    static let spec = CommandSpec(
        name: "demo", abstract: "A narrated tour on a local test server (no network, about 5 seconds).",
        usage: "demo [--keep] [--ui]",
        options: [
            ("--keep", "Keep the temporary ledger and downloads (their place is printed)."),
            ("--ui", "Instead of the tour: the demo's files in 'dledger ui', downloading (q quits)."),
        ],
        discussion: "Sections, parallel downloads with progress, pause and resume with a Range request, the\n"
            + "to-delete list, undo, replay of an earlier moment, audit and verify.",
        run: { try await run($0) })

    /// The files the demo's server offers: path, size, seed, faults.
    static let files: [(String, Int64, Faults)] = [
        ("/linux/debian-mini.iso", 3_000_000, Faults(throttleBytesPerSecond: 1_000_000)),
        ("/media/talk.mp4", 2_400_000, Faults(throttleBytesPerSecond: 800_000)),
        (
            "/media/song.flac", 1_200_000,
            Faults(failFirst: 1, failStatus: 503, throttleBytesPerSecond: 600_000)
        ),
        ("/docs/manual.pdf", 400_000, Faults(throttleBytesPerSecond: 400_000)),
        ("/docs/notes.txt", 60_000, Faults()),
    ]

    static func run(_ inv: Invocation) async throws -> Int32 {
        try inv.require([])
        let root =
            FileManager.default.temporaryDirectory.path
            + "/dledger-demo-\(getpid())-\(UInt32.random(in: 0...UInt32.max))"
        let downloads = root + "/downloads"
        try FileManager.default.createDirectory(atPath: downloads, withIntermediateDirectories: true)
        let keep = inv.args.has("--keep")
        defer { if !keep { try? FileManager.default.removeItem(atPath: root) } }
        let server = try LoopbackServer()
        defer { server.stop() }
        for (i, file) in files.enumerated() {
            server.serve(
                file.0, Resource(size: file.1, seed: UInt64(i + 1), etag: "\"demo-\(i + 1)\"", faults: file.2)
            )
        }
        if inv.args.has("--ui") {
            return try await DemoCommand.ui(
                server: server, ledgerPath: root + "/ledger.sqlite", downloads: downloads, inv: inv)
        }
        let tour = Tour(
            console: inv.console, ledgerPath: root + "/ledger.sqlite", downloads: downloads,
            environment: inv.context.environment)
        let ok = try await tour.walk(server: server)
        if keep {
            inv.console.out("kept: ledger \(tour.ledgerPath), downloads in \(downloads)")
            inv.console.out("      try: DLEDGER_LEDGER=\(tour.ledgerPath) dledger log")
        }
        return ok ? CLIError.success : CLIError.interrupted
    }
}
