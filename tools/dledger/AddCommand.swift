import DownloadLedger
import Foundation

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
            "Read URLs from FILE ('-': stdin), one per line; blanks and # comments skipped."
        ),
    ]

    static let spec = CommandSpec(
        name: "add", abstract: "Add URLs to the list (prints the ids assigned and what was skipped).",
        usage:
            "add <url>... [--section <title> | --section-index <n> [--at <index>] | --new-section <title> [--at-section <n>]] [--name <name>] [--sha256 <hex>] [--from-file <file>|-]",
        arguments: [("<url>", "An http or https URL.")],
        options: placementOptions,
        discussion:
            "Without a section option, URLs go to the end of the first section (created with the title\n"
            + "'Downloads' when the list has none). A URL already in the list or the to-delete list is skipped.",
        json: true, writes: true,
        run: { try run($0) })

    /// The add command a command line asks for (validated before anything is opened).
    static func command(_ inv: Invocation) throws -> Command {
        var urls: [String] = []
        for raw in inv.positionals { urls.append(try Validation.url(raw)) }
        if let file = inv.args.value("--from-file") { urls += try readURLs(file, cwd: inv.context.cwd) }
        guard !urls.isEmpty else { throw CLIError.usage("give at least one URL (or --from-file)") }
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
        return .add(
            urls: urls, placement: placement, name: try inv.args.value("--name").map(Validation.name),
            sha256: try inv.args.value("--sha256").map(Validation.sha256), directory: inv.context.dir)
    }

    static func readURLs(_ file: String, cwd: String) throws -> [String] {
        let data: Data
        if file == "-" {
            data = FileHandle.standardInput.readDataToEndOfFile()
        } else {
            let path = Context.absolute(file, cwd: cwd)
            guard let read = FileManager.default.contents(atPath: path) else {
                throw CLIError.failed("cannot read \(file)")
            }
            data = read
        }
        return String(decoding: data, as: UTF8.self).split(whereSeparator: \.isNewline)
            .map { $0.trimmingCharacters(in: .whitespaces) }
            .filter { !$0.isEmpty && !$0.hasPrefix("#") }
    }

    static func run(_ inv: Invocation) throws -> Int32 {
        let command = try command(inv)
        let ledger = try inv.context.openForWriting()
        do {
            let outcome = try ledger.execute(command)
            report(outcome, list: ledger.list, inv: inv)
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

    /// Prints what an add did.
    static func report(_ outcome: Outcome, list: DownloadList, inv: Invocation) {
        guard case .tasksAdded(let tasks, let section, _, _) = outcome.entry.event else { return }
        if inv.context.json {
            let added = tasks.map { ($0.id, $0.url) }
            inv.console.out(
                result(seq: outcome.seq, section: section, added: added, skipped: outcome.decision.skipped)
                    .rendered(pretty: true))
            return
        }
        let title = list.sections.indices.contains(section) ? " '\(list.sections[section].title)'" : ""
        for t in tasks {
            if inv.console.quiet {
                inv.console.out("\(t.id)")
            } else {
                inv.console.out("added #\(t.id) to section \(section)\(title): \(t.url)")
            }
        }
        for s in outcome.decision.skipped { inv.console.info("skipped \(s.url): \(s.reason)") }
    }

    static func result(
        seq: Int64?, section: Int?, added: [(TaskID, String)], skipped: [(url: String, reason: String)]
    )
        -> JSON
    {
        .obj([
            "seq": .opt(seq),
            "section": section.map { .int($0) } ?? .null,
            "added": .array(added.map { .obj(["id": .int($0.0), "url": .string($0.1)]) }),
            "skipped": .array(skipped.map { .obj(["url": .string($0.url), "reason": .string($0.reason)]) }),
        ])
    }
}
