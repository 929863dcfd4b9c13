import DownloadLedger

/// `dledger section add|rename|mv|rm`.
enum SectionCommands {
    static let specs: [CommandSpec] = [
        CommandSpec(
            name: "section add", abstract: "Insert an empty section.",
            usage: "section add <title> [--at <n>]",
            arguments: [("<title>", "The section's title.")],
            options: [("--at <n>", "Insert at index N (default: after the last section).")], json: true,
            writes: true,
            run: { inv in
                try inv.require(["<title>"])
                try inv.perform(.insertSection(title: inv.positionals[0], at: try inv.int("--at")))
                return CLIError.success
            }),
        CommandSpec(
            name: "section rename", abstract: "Rename a section.", usage: "section rename <n> <title>",
            arguments: [("<n>", "The section index (from 0)."), ("<title>", "The new title.")], json: true,
            writes: true,
            run: { inv in
                try inv.require(["<n>", "<title>"])
                try inv.perform(
                    .renameSection(try inv.sectionIndex(inv.positionals[0]), title: inv.positionals[1]))
                return CLIError.success
            }),
        CommandSpec(
            name: "section mv", abstract: "Move a section to another index.",
            usage: "section mv <n> --to <m>",
            arguments: [("<n>", "The section index (from 0).")],
            options: [("--to <m>", "Its new index.")], json: true, writes: true,
            run: { inv in
                try inv.require(["<n>"])
                guard let raw = inv.args.value("--to") else { throw CLIError.usage("missing --to M") }
                try inv.perform(
                    .moveSection(try inv.sectionIndex(inv.positionals[0]), to: try inv.sectionIndex(raw)))
                return CLIError.success
            }),
        CommandSpec(
            name: "section rm", abstract: "Remove an empty section.", usage: "section rm <n>",
            arguments: [("<n>", "The section index (from 0); move or delete its tasks first.")], json: true,
            writes: true,
            run: { inv in
                try inv.require(["<n>"])
                try inv.perform(.removeSection(try inv.sectionIndex(inv.positionals[0])))
                return CLIError.success
            }),
        CommandSpec(
            name: "section sort", abstract: "Sort the tasks of one section in place (one event, undoable).",
            usage: "section sort <n> --by name|size|added|finished [--desc]",
            arguments: [("<n>", "The section index (from 0).")],
            options: [
                (
                    "--by <key>",
                    "name, size (unknown last), added or finished (completion time, unfinished last)."
                ),
                ("--desc", "Descending."),
            ],
            json: true, writes: true,
            run: { inv in
                try inv.require(["<n>"])
                guard let raw = inv.args.value("--by") else {
                    throw CLIError.usage("missing --by name|size|added|finished")
                }
                guard let key = SectionSortKey(rawValue: raw) else {
                    throw CLIError.usage("unknown sort key '\(raw)' (name, size, added, finished)")
                }
                try inv.perform(
                    .sortSection(
                        try inv.sectionIndex(inv.positionals[0]), by: key, descending: inv.args.has("--desc"))
                )
                return CLIError.success
            }),
    ]
}
