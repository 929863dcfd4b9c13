import DownloadLedger
import Foundation
import LedgerFrontEnd

extension InspectCommands {
    static let checkSpecs: [CommandSpec] = [
        CommandSpec(
            name: "verify",
            abstract:
                "Check the hash chain, replay against snapshot and live list, and finished files on disk.",
            usage: "verify [--skip-files] [--checksums] [--json]",
            options: [
                ("--skip-files", "Do not look at the download directories (a copied ledger)."),
                ("--checksums", "Also compare each finished file's SHA-256 with the log's."),
            ],
            discussion: "Exit status 0 only when everything holds; otherwise every problem is named.",
            json: true, run: { try verify($0) }),
        CommandSpec(
            name: "export",
            abstract: "Print the whole projection as JSON: settings, sections with tasks, trash.",
            usage: "export [--json]", json: true,
            run: { inv in
                try inv.require([])
                let list = try inv.context.openForReading().list
                inv.console.outJSON { Output.export(list, into: &$0) }
                return CLIError.success
            }),
        CommandSpec(
            name: "stats", abstract: "Counts by state, bytes, log length and snapshot.",
            usage: "stats [--json]",
            json: true, run: { try stats($0) }),
        BackupCommand.spec,
    ]

    static func verify(_ inv: Invocation) throws -> Int32 {
        try inv.require([])
        // Without opening the projection: the replay and the live list are each held alone.
        // On a shared ledger, other hosts' files are on their disks: this host checks its own.
        let path = inv.context.ledgerPath
        let host: String? =
            PostgresLocation.isPostgres(path)
            ? inv.context.environment[HostOptions.variable].flatMap { Validation.isHostName($0) ? $0 : nil }
                ?? Scheduler.defaultHostName() : nil
        let report = try Ledger.verify(
            path: path, checkFiles: !inv.args.has("--skip-files"), checksums: inv.args.has("--checksums"),
            host: host)
        if inv.context.json {
            var fields: [(String, JSONValue)] = [
                ("valid", .bool(report.isValid)), ("events", .int(report.events)),
                ("head", .int(report.head)),
                ("snapshotSeq", .opt(report.snapshotSeq)), ("filesChecked", .int(report.filesChecked)),
            ]
            // Only a shared ledger has files on other hosts.
            if host != nil { fields.append(("filesOnOtherHosts", .int(report.filesElsewhere))) }
            fields.append(("problems", .array(report.problems.map(JSONValue.string))))
            inv.console.out(JSONValue.object(fields).rendered(pretty: true))
        } else {
            let snapshot = report.snapshotSeq.map { "snapshot at #\($0)" } ?? "no snapshot"
            let elsewhere =
                report.filesElsewhere > 0
                ? " (\(report.filesElsewhere) on other hosts, not checked here)" : ""
            let files =
                inv.args.has("--skip-files")
                ? "files not checked" : "\(report.filesChecked) files checked\(elsewhere)"
            inv.console.info("\(report.events) events, head #\(report.head), \(snapshot), \(files)")
            for p in report.problems { inv.console.out(inv.console.style("problem:", .red) + " \(p)") }
            if report.isValid {
                let sums = inv.args.has("--checksums") ? ", checksums match" : ""
                inv.console.info(
                    inv.console.style("ok:", .green)
                        + " hash chain intact, replay equals snapshot and live list" + sums)
            }
        }
        guard report.isValid else {
            let n = report.problems.count
            throw CLIError.failed("verification failed: \(n) problem\(n == 1 ? "" : "s")")
        }
        return CLIError.success
    }

    static func stats(_ inv: Invocation) throws -> Int32 {
        try inv.require([])
        // The snapshot's sealed summary and the events after it, when they suffice: no task is decoded.
        let stats = try Ledger.stats(path: inv.context.ledgerPath)
        let list = stats.summary
        let live = list.tasks
        var counts: [TaskState: Int] = [:]
        for state in TaskState.allCases where list.count(state) > 0 { counts[state] = list.count(state) }
        let bytes = list.bytes
        let known = list.sizeKnown
        let snapshot = stats.snapshotSeq
        let path = inv.context.ledgerPath
        // A PostgreSQL URI is shown with its password masked.
        let shown = EventStoreLocation.shown(path)
        // stat(2) alone: Foundation's attributes would also look up the owner's names in /etc/passwd and /etc/group.
        var info = stat()
        let fileBytes = stat(path, &info) == 0 ? Int64(info.st_size) : nil
        // The running transfers as their downloader publishes them (the log's bytes are those last recorded).
        let running = Ledger.activityBoard(path: path).read()
        let liveBytes: Int64 = running?.reduce(0) { $0 + $1.bytes } ?? 0
        let liveSpeed: Double = running?.reduce(0.0) { $0 + $1.speed } ?? 0
        let liveJSON: JSONValue =
            running.map {
                .obj([
                    "transfers": .int(Int64($0.count)), "bytes": .int(liveBytes),
                    "speed": .int(Int64(liveSpeed)),
                ])
            } ?? .null
        if inv.context.json {
            var byState: [(String, JSONValue)] = [("total", .int(live))]
            byState += TaskState.allCases.map { ($0.rawValue, .int(counts[$0] ?? 0)) }
            inv.console.out(
                JSONValue.obj([
                    "tasks": .object(byState),
                    "trash": .int(list.trash),
                    "sections": .int(list.sections),
                    "bytes": .int(bytes),
                    "sizeKnown": .int(known),
                    "events": .int(list.head),
                    "snapshotSeq": .opt(snapshot),
                    "ledger": .string(shown),
                    "ledgerBytes": .opt(fileBytes),
                    "live": liveJSON,
                ]).rendered(pretty: true))
            return CLIError.success
        }
        let states = TaskState.allCases.compactMap { s in counts[s].map { "\($0) \(s.rawValue)" } }
        var rows: [(String, String)] = [
            ("tasks", "\(live)" + (states.isEmpty ? "" : " (" + states.joined(separator: ", ") + ")")),
            ("to-delete list", "\(list.trash)"),
            ("sections", "\(list.sections)"),
            ("downloaded", Format.bytes(bytes) + (known > 0 ? " of \(Format.bytes(known)) known" : "")),
            ("events", "\(list.head)" + (list.head > 0 ? " (last \(Format.local(list.headTime)))" : "")),
            ("snapshot", snapshot.map { "at #\($0)" } ?? "none"),
            ("ledger", shown + (fileBytes.map { " (\(Format.bytes($0)))" } ?? "")),
        ]
        if let running, !running.isEmpty {
            let n = running.count
            rows.insert(
                (
                    "downloading now",
                    "\(n) transfer\(n == 1 ? "" : "s"), \(Format.bytes(liveBytes)) received, "
                        + "\(Format.bytes(Int64(liveSpeed)))/s"
                ), at: 4)
        }
        for (k, v) in rows { inv.console.out(Format.fit(k, 16) + v) }
        return CLIError.success
    }
}
