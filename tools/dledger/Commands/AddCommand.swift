import DownloadLedger
import Foundation
import LedgerFrontEnd

/// `dledger add`: URLs into the list, reporting the ids assigned and the URLs skipped.
enum AddCommand {
    static let placementOptions: [(String, String)] = [
        (
            "--section <title>",
            "Append to the section with this title (created at the end when there is none)."
        ),
        ("--section-index <n>", "Insert into section N (from 0) ..."),
        ("--at <index>", "... at this index (default: its end)."),
        ("--new-section <title>", "Insert into a new section with this title ..."),
        ("--at-section <n>", "... inserted at section index N (default: after the last section)."),
        ("--name <name>", "File name for the download (one URL only)."),
        ("--sha256 <hex>", "Expected SHA-256; a mismatch fails the task (one URL only)."),
        (
            "--from-file <file>",
            "Read URLs from FILE ('-': stdin), one per line; '# Title' sends the next ones to that section."
        ),
    ]

    /// How the added tasks ask for their files: kept with each task (see 'dledger option').
    static let requestOptions: [(String, String)] = [
        (
            "--header <header>",
            "Send this request header, 'Name: value' (repeatable). Authorization, Proxy-Authorization,\n"
                + "Cookie and any name with auth, token, key, secret, passw, session or csrf in it carry\n"
                + "credentials: sealed in the log, shown as [redacted]."
        ),
        ("--user-agent <text>", "The User-Agent to send."),
        (
            "--referer <url>",
            "The Referer to send ('*': the download's own URL); a user:password in it is sealed."
        ),
        (
            "--proxy <url>",
            "Go through this proxy: http, https, socks4, socks4a, socks5 or socks5h://host:port."
        ),
        (
            "--max-speed <rate>",
            "This download's own speed limit (500K, 2M; 0 for none), within the global one."
        ),
        (
            "--max-size <size>",
            "The largest file this download may become (500M, 16GiB; 1KB to 1EB; 'default': the ledger's),\n"
                + "over 'dledger set max-size'; a larger one fails as too large."
        ),
        (
            "--max-connection-per-server <n>",
            "Connections to one server (one URL) at most, 1 to 16 (default 16), as aria2c -x."
        ),
        (
            "--min-split-size <size>",
            "The smallest piece, 1M to 1G (default 1M; as aria2c -k: 1M is 1 MiB); a file smaller than twice\n"
                + "it stays on one connection."
        ),
        (
            "--mirror <url>",
            "Another URL of the same file; pieces are spread over all of them (repeatable; one URL only)."
        ),
    ]

    static let connectionsOption = (
        "--connections <n>",
        "Connections for these downloads, 1 to 64 (default: the ledger's, 'dledger connections')."
    )

    static let spec = CommandSpec(
        name: "add", abstract: "Add URLs to the list (prints the ids assigned and what was skipped).",
        usage:
            "add <url>... [--section <title> | --section-index <n> [--at <index>] | --new-section <title> [--at-section <n>]] [--name <name>] [--sha256 <hex>] [--from-file <file>|-] [request options]",
        arguments: [("<url>", "An http or https URL.")],
        options: placementOptions + requestOptions + [connectionsOption],
        discussion:
            "Without a section option, URLs go to the end of the first section (created with the title\n"
            + "'Downloads' when the list has none). A URL already in the list or the to-delete list is skipped.",
        json: true, writes: true,
        run: { try run($0) })

    /// The add command a command line asks for (validated before anything is opened). Its tasks go to
    /// `directory` (default: `--dir`; none: the ledger's folder).
    static func command(_ inv: Invocation, directory: String? = nil) throws -> Command {
        let directory = directory ?? inv.context.dir
        var urls: [String] = []
        for raw in inv.positionals { urls.append(try Validation.url(raw)) }
        var titled: [(title: String, urls: [String])] = []
        if let file = inv.args.value("--from-file") {
            let read = try readGroups(file, cwd: inv.context.cwd)
            urls += read.untitled
            titled = read.titled
        }
        guard !urls.isEmpty || titled.contains(where: { !$0.urls.isEmpty }) else {
            throw CLIError.usage("give at least one URL (or --from-file)")
        }
        let placement: AddPlacement
        let chosen = ["--section", "--section-index", "--new-section"].filter { inv.args.value($0) != nil }
        if chosen.count > 1 { throw CLIError.usage("give only one of \(chosen.joined(separator: ", "))") }
        if inv.args.value("--at-section") != nil, inv.args.value("--new-section") == nil {
            throw CLIError.usage("--at-section goes with --new-section TITLE")
        }
        if let title = inv.args.value("--new-section") {
            guard inv.args.value("--at") == nil else {
                throw CLIError.usage("--at does not combine with --new-section")
            }
            placement = .newSection(title: try Validation.title(title), at: try inv.int("--at-section"))
        } else if let title = inv.args.value("--section") {
            guard inv.args.value("--section-index") == nil, inv.args.value("--at") == nil else {
                throw CLIError.usage("--section TITLE does not combine with --section-index or --at")
            }
            placement = .titled(try Validation.title(title))
        } else if let s = try inv.int("--section-index") {
            placement = .section(s, index: try inv.int("--at"))
        } else if let at = try inv.int("--at") {
            placement = .section(0, index: at)
        } else {
            placement = .end
        }
        let name = try inv.args.value("--name").map(Validation.name)
        let sha256 = try inv.args.value("--sha256").map(Validation.sha256)
        let options = try requestOptions(inv)
        try checkDirectory(inv.context.dir)
        guard titled.isEmpty else {
            guard name == nil, sha256 == nil else {
                throw CLIError.usage("--name and --sha256 apply to a single URL, not to '# Title' groups")
            }
            guard options.mirrors.isEmpty else { throw CLIError.usage("--mirror applies to a single URL") }
            let groups =
                (urls.isEmpty ? [] : [AddGroup(urls: urls, placement: placement)])
                + titled.map { AddGroup(urls: $0.urls, placement: .titled($0.title)) }
            return .addGroups(groups, directory: directory, options: options)
        }
        if urls.count > 1, !options.mirrors.isEmpty {
            throw CLIError.usage("--mirror applies to a single URL")
        }
        return .add(
            urls: urls, placement: placement, name: name, sha256: sha256, directory: directory,
            options: options)
    }

    /// A `--dir` that exists must be a folder (or a link to one): a file there would fail every task later, at
    /// download time. A folder that does not exist yet is made by the downloader, as aria2c does.
    static func checkDirectory(_ dir: String?) throws {
        guard let dir else { return }
        var st = stat()
        let found = stat(dir, &st) == 0
        guard found || errno == ENOTDIR else { return }
        guard found, st.st_mode & S_IFMT == S_IFDIR else {
            throw CLIError.usage("--dir \(dir): not a folder")
        }
    }

    /// The request options of a command line, checked as the ledger will check them (before anything is opened).
    static func requestOptions(_ inv: Invocation) throws -> TaskOptions {
        var o = TaskOptions()
        o.headers = try inv.args.all("--header").map(Validation.header)
        o.userAgent = inv.args.value("--user-agent")
        o.referer = inv.args.value("--referer")
        o.proxy = inv.args.value("--proxy")
        o.maxSpeed = try inv.args.value("--max-speed").map { try Format.parseRate($0) }
        o.connections = try inv.int("--connections", in: 1...64)
        o.connectionsPerServer = try inv.int("--max-connection-per-server", in: 1...16)
        o.minSplitSize = try inv.args.value("--min-split-size").map { try Format.parseSplitSize($0) }
        o.mirrors = inv.args.all("--mirror")
        o.maxSize = try inv.args.value("--max-size").map { $0 == "default" ? 0 : try Format.parseSize($0) }
        return try o.validated()
    }

    /// The URLs of a `--from-file` list: one per line; blank lines and `## comments` skipped; a `# Title` line
    /// starts a group whose URLs go to the section with that title (created at the end when there is none).
    /// URLs before the first title follow the command's placement options.
    static func readGroups(_ file: String, cwd: String) throws -> (
        untitled: [String], titled: [(title: String, urls: [String])]
    ) {
        var untitled: [String] = []
        var titled: [(title: String, urls: [String])] = []
        for line in try readLines(file, cwd: cwd) {
            if line.hasPrefix("##") { continue }
            if line.hasPrefix("#") {
                let title = try Validation.title(String(line.dropFirst()))
                titled.append((title, []))
            } else if titled.isEmpty {
                untitled.append(line)
            } else {
                titled[titled.count - 1].urls.append(line)
            }
        }
        return (untitled, titled)
    }

    /// The file's (or stdin's, for `-`) lines, trimmed, blank ones left out. Read a megabyte at a time: the list
    /// is never held whole (a list of a million URLs is 50 MB).
    static func readLines(_ file: String, cwd: String) throws -> [String] {
        let fd = file == "-" ? 0 : open(Context.absolute(file, cwd: cwd), O_RDONLY | O_CLOEXEC)
        guard fd >= 0 else { throw CLIError.failed("cannot read \(file)") }
        defer { if fd != 0 { close(fd) } }
        var lines: [String] = []
        var line: [UInt8] = []
        var buffer = [UInt8](repeating: 0, count: 1 << 20)
        while true {
            let n = buffer.withUnsafeMutableBytes { read(fd, $0.baseAddress, $0.count) }
            if n < 0 && errno == EINTR { continue }
            guard n >= 0 else { throw CLIError.failed("cannot read \(file)") }
            guard n > 0 else { break }
            for b in buffer[..<n] {
                // \n, \v, \f, \r end a line.
                if b >= 0x0A && b <= 0x0D {
                    addLine(line, to: &lines)
                    line.removeAll(keepingCapacity: true)
                } else {
                    line.append(b)
                }
            }
        }
        addLine(line, to: &lines)
        return lines
    }

    /// One line of a list, trimmed of spaces and tabs; a line with other characters than ASCII also splits at
    /// Unicode line breaks and is trimmed of Unicode spaces.
    private static func addLine(_ bytes: [UInt8], to lines: inout [String]) {
        guard bytes.allSatisfy({ $0 < 0x80 }) else {
            lines += String(decoding: bytes, as: UTF8.self).split(whereSeparator: \.isNewline)
                .map { $0.trimmingCharacters(in: .whitespaces) }.filter { !$0.isEmpty }
            return
        }
        let blank = { (b: UInt8) in b == 0x20 || b == 0x09 }
        guard let first = bytes.firstIndex(where: { !blank($0) }),
            let last = bytes.lastIndex(where: { !blank($0) })
        else { return }
        lines.append(String(decoding: bytes[first...last], as: UTF8.self))
    }

    static func run(_ inv: Invocation) throws -> Int32 {
        let command = try command(inv)
        let ledger = try inv.context.openForWriting()
        let isNew = !ledger.isOnDisk
        do {
            let outcome = try ledger.execute(command)
            report(outcome, list: ledger.list, inv: inv)
            if isNew { announceFolder(ledger.list.directory, inv: inv) }
            return CLIError.success
        } catch let e as NothingAdded {
            if inv.context.json {
                inv.console.out(
                    result(seq: nil, section: nil, added: [], skipped: e.skipped).rendered(pretty: true))
            } else if e.skipped.count > 1 {
                for s in e.skipped { inv.console.out("skipped \(s.url): \(s.reason)") }
            }
            throw e
        }
    }

    /// The first add into a new ledger says where downloads go (on stderr with `--json`, whose stdout is the
    /// document), and how to change it.
    static func announceFolder(_ folder: String, inv: Invocation) {
        let line =
            (inv.context.dir == nil ? "downloads will go to " : "downloads without --dir will go to ")
            + folder + " (dledger set dir PATH to change)"
        if inv.context.json { inv.console.err(line) } else { inv.console.info(line) }
    }

    /// Prints what an add did.
    static func report(_ outcome: Outcome, list: DownloadList, inv: Invocation) {
        let groups: [(tasks: [NewTask], section: Int)]
        switch outcome.entry.event {
        case .tasksAdded(let tasks, let section, _, _): groups = [(tasks, section)]
        case .groupsAdded(let added): groups = Self.finalSections(added)
        default: return
        }
        if inv.context.json {
            let added = groups.flatMap { $0.tasks.map { ($0.id, $0.url) } }
            let section = groups.count == 1 ? groups[0].section : nil
            inv.console.out(
                result(seq: outcome.seq, section: section, added: added, skipped: outcome.decision.skipped)
                    .rendered(pretty: true))
            return
        }
        for (tasks, section) in groups { report(tasks, section: section, list: list, inv: inv) }
        for s in outcome.decision.skipped { inv.console.info("skipped \(s.url): \(s.reason)") }
    }

    /// Each group's tasks with the index their section has once the whole add is done (a section a later group
    /// inserted before it moves it down).
    static func finalSections(_ groups: [TaskGroup]) -> [(tasks: [NewTask], section: Int)] {
        let sections = AddOutline.finalSections(groups.map { ($0.section, $0.newSectionTitle != nil) })
        return zip(groups, sections).map { ($0.tasks, $1) }
    }

    private static func report(_ tasks: [NewTask], section: Int, list: DownloadList, inv: Invocation) {
        let title = list.sections.indices.contains(section) ? " '\(list.sections[section].title)'" : ""
        // Through one buffer: a million lines are a few hundred writes, not a million.
        inv.console.outLines { lines in
            for t in tasks {
                if inv.console.quiet {
                    lines.right("", t.id, 0)
                } else {
                    lines.text("added #\(t.id) to section \(section)\(title): \(t.url)")
                }
                lines.newline()
            }
        }
    }

    static func result(
        seq: Int64?, section: Int?, added: [(TaskID, String)], skipped: [(url: String, reason: String)]
    )
        -> JSONValue
    {
        .obj([
            "seq": .opt(seq),
            "section": section.map { .int($0) } ?? .null,
            "added": .array(added.map { .obj(["id": .int($0.0), "url": .string($0.1)]) }),
            "skipped": .array(skipped.map { .obj(["url": .string($0.url), "reason": .string($0.reason)]) }),
        ])
    }
}
