import DownloadLedger

/// `dledger ls`: the sectioned list, as a table or JSON.
enum ListCommand {
    static let viewOptions: [(String, String)] = [
        ("--unfinished", "Only tasks not finished."),
        ("--finished", "Only finished tasks."),
        ("--recent <days>", "Only tasks finished in the last DAYS days."),
        ("--trash", "The to-delete list."),
        ("--sort <mode>", "manual, added, name, size or type (default: the ledger's sort mode)."),
        ("--desc", "Descending (with --sort)."),
    ]

    static let spec = CommandSpec(
        name: "ls", abstract: "Show the sectioned list (titles, ids, names, state, size, progress).",
        usage: "ls [--unfinished | --finished | --recent <days> | --trash] [--sort <mode>] [--desc] [--json]",
        options: viewOptions,
        discussion:
            "Sections are numbered from 0; positions in other commands ('--to 1:0') use these numbers.",
        json: true,
        run: { inv in
            try inv.require([])
            let ledger = try inv.context.openForReading()
            try show(ledger.list, now: ledger.now(), inv: inv, onDisk: true)
            return CLIError.success
        })

    /// Prints `list` as `ls` does, with the view options of `inv`.
    static func show(_ list: DownloadList, now: Int64, inv: Invocation, onDisk: Bool = false) throws {
        let args = inv.args
        let filters =
            ["--unfinished", "--finished", "--trash"].filter(args.has)
            + (args.value("--recent") == nil ? [] : ["--recent"])
        guard filters.count <= 1 else {
            throw CLIError.usage("give only one of \(filters.joined(separator: ", "))")
        }
        var filter = TaskFilter.all
        var filterName = "all"
        if args.has("--unfinished") { (filter, filterName) = (.unfinished, "unfinished") }
        if args.has("--finished") { (filter, filterName) = (.finished, "finished") }
        if args.has("--trash") { (filter, filterName) = (.trash, "trash") }
        if let days = try inv.int("--recent") {
            (filter, filterName) = (.finishedWithin(days: days), "recent:\(days)")
        }
        var sort = list.sortMode
        if let raw = args.value("--sort") {
            guard let mode = SortMode(rawValue: raw) else {
                throw CLIError.usage("unknown sort mode '\(raw)' (manual, added, name, size, type)")
            }
            sort = mode
        }
        let descending = args.has("--desc") || (args.value("--sort") == nil && list.sortDescending)
        let sections = list.view(
            sort: sort, descending: descending, filter: filter, now: now,
            utcOffsetSeconds: Format.utcOffset(at: now))
        if inv.context.json {
            inv.console.out(
                Output.view(sections, of: list, sort: sort, descending: descending, filter: filterName))
            return
        }
        if list.sections.isEmpty && filter != .trash {
            inv.console.out("The list is empty. Add a URL with 'dledger add URL'.")
            return
        }
        for line in Output.table(sections, of: list, console: inv.console, onDisk: onDisk) {
            inv.console.out(line)
        }
        if filter == .all, !list.trash.isEmpty {
            inv.console.info(
                inv.console.style("(\(list.trash.count) in the to-delete list: dledger ls --trash)", .dim))
        }
    }
}
