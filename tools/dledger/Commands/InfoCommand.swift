import DownloadLedger
import LedgerFrontEnd

/// `dledger info <id>`: one task's state, bytes, file (and whether it is on disk), folder, options (credentials
/// redacted), last failure, checksum and place in the list (``Ledger/info(ofTask:)``).
enum InfoCommand {
    static let spec = CommandSpec(
        name: "info", abstract: "Show one task: state, bytes, file on disk, folder, options, failure, place.",
        usage: "info <id> [--json]",
        arguments: [("<id>", "A task id as 'ls' shows it (also one in the to-delete list).")],
        discussion:
            "Credentials in the options are shown as [redacted], as 'option' shows them. 'file' is the finished\n"
            + "file, or the partial file while the task is not finished; 'on disk' says whether it is there.\n"
            + "With --json: the task object of 'ls --json', then fileExists, fileProblem, partialBytes, location\n"
            + "and sectionTitle (docs/cli.md).",
        json: true,
        run: { inv in
            try inv.require(["<id>"])
            let id = try inv.ids()[0]
            let info = try inv.context.openForReading().info(ofTask: id)
            if inv.context.json {
                inv.console.out(json(info))
            } else {
                for line in lines(info) { inv.console.out(line) }
            }
            return CLIError.success
        })

    /// The state as `ls` words it: a transfer no downloader runs is `interrupted`.
    static func state(_ info: TaskInfo) -> String {
        info.task.state == .downloading && !info.downloaderRunning ? "interrupted" : info.task.state.rawValue
    }

    /// `0:2 'Downloads'`, or where a deleted task was.
    static func place(_ info: TaskInfo) -> String {
        if let location = info.location { return "\(location) '\(info.sectionTitle)'" }
        guard let trash = info.trash else { return "-" }
        return "in the to-delete list (from \(trash.section):\(trash.index) '\(trash.sectionTitle)')"
    }

    /// What is on disk, in words.
    static func file(_ file: TaskInfo.File) -> String {
        switch file {
        case .onDisk(let path): return "\(path) (on disk)"
        case .missing(let path): return "\(path) (missing: not on disk)"
        case .replaced(let path, let reason): return "\(path) (not the downloaded file: \(reason))"
        case .partial(let path, let bytes?): return "\(path) (partial, \(Format.bytes(bytes)) on disk)"
        case .partial(_, nil): return "none yet (no partial data on disk)"
        }
    }

    static func lines(_ info: TaskInfo) -> [String] {
        let t = info.task
        var rows: [(String, String)] = [
            ("state", state(info)),
            ("bytes", TransferActivity.detail(bytes: t.bytes, expected: t.size) + percent(t)),
            ("file", file(info.file)),
            ("folder", t.directory),
            ("url", t.url),
            ("location", place(info)),
        ]
        // A shared ledger: the host whose disk has the file or partial (the folder is that host's).
        if let host = t.host { rows.insert(("host", host), at: 4) }
        let options = t.options.redactedLines
        if options.isEmpty { rows.append(("options", "none")) }
        for (i, line) in options.enumerated() {
            rows.append((i == 0 ? "options" : "", "\(line.key) \(line.value)"))
        }
        rows.append(("failure", t.failure.map(Format.failure) ?? "none"))
        rows.append(("sha256", t.sha256 ?? "none yet"))
        if let expected = t.expectedSHA256 { rows.append(("expected", expected)) }
        rows.append(("attempts", "\(t.attempts)"))
        rows.append(("added", Format.local(t.added)))
        if let finished = t.finished { rows.append(("finished", Format.local(finished))) }
        return ["#\(t.id) \(DownloadList.shownName(t))"] + rows.map { "  " + Format.fit($0.0, 10) + $0.1 }
    }

    private static func percent(_ t: DownloadTask) -> String {
        guard let size = t.size, size > 0 else { return "" }
        let (scaled, over) = t.bytes.multipliedReportingOverflow(by: 100)
        return " (\(over ? 100 : min(100, scaled / size))%)"
    }

    /// The task object of `ls --json` (state and bytes as `ls` shows them), then `fileExists` (the finished file, or
    /// partial data, is on disk), `fileProblem` (`missing`, or why the file at the finished name is not the
    /// downloaded one; else null), `partialBytes` (the partial file's size, null without one), `location` (`"0:2"`,
    /// null in the to-delete list) and `sectionTitle`.
    static func json(_ info: TaskInfo) -> JSONValue {
        let place = info.location.map { (section: $0.section, index: $0.index ?? 0) }
        guard
            case .object(var fields) = Output.task(
                info.task, place: place, list: DownloadList(), interrupted: !info.downloaderRunning,
                trash: info.trash.map { [info.task.id: $0] } ?? [:])
        else { return .null }
        var problem: JSONValue = .null
        var partial: JSONValue = .null
        if case .partial(_, let bytes?) = info.file { partial = .int(bytes) }
        if case .replaced(_, let reason) = info.file { problem = .string(reason) }
        if case .missing = info.file { problem = .string("missing") }
        fields += [
            ("fileExists", .bool(info.file.exists)),
            ("fileProblem", problem),
            ("partialBytes", partial),
            ("location", .opt(info.location?.description)),
            ("sectionTitle", .string(info.sectionTitle)),
        ]
        return .object(fields)
    }
}
