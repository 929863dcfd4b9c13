import DownloadLedger
import LedgerFrontEnd

/// `dledger ls`: the sectioned list, as a table or JSON.
enum ListCommand {
    static let viewOptions: [(String, String)] = [
        ("--unfinished", "Only tasks not finished."),
        ("--finished", "Only finished tasks."),
        ("--recent <days>", "Only tasks finished today or in the DAYS days before (0: today)."),
        ("--trash", "The to-delete list."),
        ("--section <n>", "Only section N of your sections (from 0), whatever the sort."),
        ("--sort <mode>", "manual, added, name, size, type or finished (default: the ledger's sort mode)."),
        ("--desc", "Descending, in the given or the current sort (manual: bottom first)."),
        ("--urls", "Show each task's URL in place of its name."),
    ]

    /// The sort modes, as help and errors list them.
    static let sortModes = SortMode.allCases.map(\.rawValue).joined(separator: ", ")

    static let spec = CommandSpec(
        name: "ls", abstract: "Show the sectioned list (titles, ids, names, state, size, progress).",
        usage:
            "ls [--unfinished | --finished | --recent <days> | --trash] [--section <n>] [--sort <mode>] [--desc] [--urls] [--json]",
        options: viewOptions,
        discussion:
            "Sections are numbered from 0; positions in other commands ('--to 1:0') use these numbers.\n"
            + "A filtered view lists only the sections it has tasks of. For a running transfer 'bytes' (text and\n"
            + "JSON) is what its downloader has received, as it publishes it (at most half a second old), else what\n"
            + "its partial file holds (a split file's written pieces); 'replay' shows the bytes the log recorded.\n"
            + "A running transfer shows its live connections (text: '×4'; JSON: 'connections'), its speed\n"
            + "(JSON: 'speed') and, waiting to retry, 'retrying in 2 s (attempt 3 of 6): …' (JSON: 'retry').\n"
            + "On a ledger shared by several hosts (PostgreSQL) a row names the host that has the task's file or\n"
            + "transfer ('on HOST'; JSON: 'host').",
        json: true,
        run: { inv in
            try inv.require([])
            // In words the undo history is not shown (JSON lists it): the tail is folded without it.
            let ledger = try inv.context.openForReading(keepingUndo: inv.context.json)
            if let problem = try? ledger.checkHead() {
                inv.console.err(
                    inv.console.style("warning:", .yellow)
                        + " the ledger's hash chain is broken (\(problem)): run 'dledger verify'")
            }
            let running = ledger.isDownloaderRunning
            let list = ledger.list
            // Only the running transfers' connections are asked for (by id: no copy of the list's tasks).
            let downloading =
                running
                ? list.sections.flatMap(\.tasks).filter { list.tasks.state(of: $0) == .downloading } : []
            try show(
                list, now: ledger.now(), inv: inv, onDisk: true, interrupted: !running,
                connections: try ledger.loggedConnections(of: downloading),
                live: running ? ledger.liveActivity() : [:], hosts: PostgresLocation.isPostgres(ledger.path))
            return CLIError.success
        })

    /// Prints `list` as `ls` does, with the view options of `inv`.
    /// `interrupted`: no downloader runs, so a task the log says is downloading shows as interrupted.
    /// `connections`: the running transfers' connection counts as the log recorded them.
    static func show(
        _ list: DownloadList, now: Int64, inv: Invocation, onDisk: Bool = false, interrupted: Bool = false,
        connections: [TaskID: Int] = [:], live: [TaskID: TransferActivity] = [:], hosts: Bool = false
    ) throws {
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
        if let days = try inv.int("--recent", in: Numbers.days) {
            (filter, filterName) = (.finishedWithin(days: days), "recent:\(days)")
        }
        var sort = list.sortMode
        if let raw = args.value("--sort") {
            guard let mode = SortMode(rawValue: raw) else {
                throw CLIError.usage("unknown sort mode '\(raw)' (\(sortModes))")
            }
            sort = mode
        }
        let only = try args.value("--section").map { raw in try inv.sectionIndex(raw) }
        if only != nil {
            guard filter != .trash else { throw CLIError.usage("--section does not combine with --trash") }
            guard args.value("--sort") == nil || sort == .manual else {
                throw CLIError.usage("--section shows one of your sections: it does not combine with --sort")
            }
            sort = .manual
        }
        let descending = args.has("--desc") || (args.value("--sort") == nil && list.sortDescending)
        // One section's group alone: the other sections' ids are not read.
        var groups = list.viewGroups(
            sort: sort, descending: descending, filter: filter, now: now,
            utcOffsetSeconds: Format.utcOffset(at: now), section: only)
        if sort == .manual && descending && (args.has("--desc") || list.sortMode == .manual) {
            // Descending applies to the manual order too: the list upside down, section numbers kept.
            groups.reverse()
            for i in groups.indices { groups[i].ids.reverse() }
        }
        if let only {
            guard list.sections.indices.contains(only) else {
                throw LedgerError.noSuchSection(only, count: list.sections.count)
            }
            groups = groups.filter { $0.index == only }
            if groups.isEmpty { groups = [ViewGroup(title: list.sections[only].title, index: only, ids: [])] }
        }
        if inv.context.json {
            inv.console.outJSON { s in
                Output.view(
                    groups, of: list, sort: sort, descending: descending, filter: filterName,
                    interrupted: interrupted, connections: connections, onDisk: onDisk, live: live, into: &s)
            }
            return
        }
        if list.sections.isEmpty && filter != .trash {
            inv.console.out("The list is empty. Add a URL with 'dledger add URL'.")
            return
        }
        // A filter that matches nothing says so, in its own words (the list itself is not empty).
        let nothing = emptyView(filter, section: only.map { (i: $0, title: list.sections[$0].title) })
        if only != nil || filter == .trash, filter != .all, groups.allSatisfy(\.ids.isEmpty) {
            inv.console.out(nothing)
            return
        }
        inv.console.outLines { w in
            Output.table(
                groups, of: list, into: &w, empty: nothing, urls: args.has("--urls"),
                interrupted: interrupted,
                connections: connections, onDisk: onDisk, live: live, hosts: hosts)
        }
        if filter == .all, !list.trash.isEmpty {
            inv.console.info(
                inv.console.style("(\(list.trash.count) in the to-delete list: dledger ls --trash)", .dim))
        }
    }

    /// What `ls` says when `filter` (in one section, when given) matches no task of a list that has some.
    static func emptyView(_ filter: TaskFilter, section: (i: Int, title: String)?) -> String {
        let place = section.map { " in section \($0.i) '\($0.title)'" } ?? ""
        switch filter {
        case .all: return "No tasks\(place)."
        case .unfinished: return "No unfinished tasks\(place)."
        case .finished: return "No finished tasks\(place) yet."
        case .trash: return "The to-delete list is empty."
        case .finishedWithin(let days):
            let when = days == 0 ? "today" : "today or in the \(days) day\(days == 1 ? "" : "s") before"
            return "No task finished \(when)\(place)."
        }
    }
}
