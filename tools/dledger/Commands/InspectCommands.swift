import DownloadLedger
import LedgerFrontEnd

/// Offline inspection: `log`, `audit`, `replay`, `verify`, `export`, `stats`. All open the ledger read-only,
/// never create it, and need neither the network nor the download directory (except `verify`'s file checks).
enum InspectCommands {
    static let specs: [CommandSpec] =
        [
            CommandSpec(
                name: "log", abstract: "Print every event in words: seq, local time, kind, what it did.",
                usage: "log [--task <id>] [--since <seq|time>] [--limit <n> | --first <n>] [--json]",
                options: [
                    ("--task <id>", "Only events that touched this task."),
                    (
                        "--since <seq|time>",
                        "From this seq on, or events after this time (see 'replay --help')."
                    ),
                    ("--limit <n>", "Only the newest N events (as 'git log -n' and 'tail'), oldest first."),
                    ("--first <n>", "Only the oldest N events."),
                ],
                discussion:
                    "Events are printed oldest first; --since, --task and --limit or --first combine.\n"
                    + "With --json: one JSON object per line (seq, time, timeMs, kind, tasks, undoes, redoes, origin, text, payload).",
                json: true, run: { try log($0) }),
            CommandSpec(
                name: "audit", abstract: "One task's whole history, from its add to now.",
                usage: "audit <id> [--json]",
                arguments: [("<id>", "A task id (also a purged one).")], json: true, run: { try audit($0) }),
            CommandSpec(
                name: "replay", abstract: "Show the list exactly as it was after an event or at a time.",
                usage: "replay (--to <seq> | --at <time>) [ls options] [--json]",
                options: [
                    ("--to <seq>", "After event SEQ ('log' shows the numbers)."),
                    (
                        "--at <time>",
                        "At TIME: 2026-11-29T17:00:00Z, '2026-11-29 18:00' (local) or Unix seconds."
                    ),
                ] + ListCommand.viewOptions,
                discussion: "The output (also --json) is what 'ls' printed at that moment.",
                json: true, run: { try replay($0) }),
        ] + InspectCommands.checkSpecs

    static func log(_ inv: Invocation) throws -> Int32 {
        try inv.require([])
        // Read without projecting the list: what is printed is what is read (`log --limit 1` of a long log).
        let log = try LedgerLog(path: inv.context.ledgerPath)
        let newest = try inv.int("--limit", in: Numbers.seq)
        let oldest = try inv.int("--first", in: Numbers.seq)
        guard newest == nil || oldest == nil else {
            throw CLIError.usage("give --limit N (the newest) or --first N (the oldest), not both")
        }
        var after: Int64 = 0
        if let raw = inv.args.value("--since") {
            if raw.count < 9, raw.allSatisfy({ $0.isASCII && $0.isNumber }) {
                after = max(0, try Numbers.whole(raw, "option '--since'", in: Numbers.seq) - 1)
            } else {
                after = try log.seq(atOrBefore: try Format.parseTime(raw))
            }
        }
        if let raw = inv.args.value("--task") {
            let id = try inv.ids([raw])[0]
            // A task's trail is checked against the projection's count of its events (see `audit`).
            let audit = try log.audit(id, outliningAdds: !inv.context.json)
            var entries = audit.trail.entries.filter { $0.seq > after }
            if let newest { entries = Array(entries.suffix(newest)) }
            if let oldest { entries = Array(entries.prefix(oldest)) }
            if entries.isEmpty && audit.task == nil { throw LedgerError.noSuchTask(id) }
            for e in entries { printEntry(e, before: nil, outline: audit.trail.outlines[e.seq], inv: inv) }
            return CLIError.success
        }
        if let newest {
            // Seqs have no gaps (1, 2, 3…): the newest N after `after` start past head - N.
            after = max(after, try log.head() - Int64(newest))
        }
        var left = newest ?? oldest ?? Int.max
        var page = try log.events(after: after, limit: min(left, 2000))
        // The list before the first event printed, for its words: when one page holds every event printed, only
        // the tasks they name are read whole (`log --limit 1` of a big list reads no other task).
        var before =
            after == 0
            ? DownloadList()
            : left <= 2000
                ? try log.list(
                    through: after, keepingWhole: Set(page.flatMap { $0.entry.event.taskIDs }),
                    // Only an undo's words read the undo history (the action it undid).
                    keepingUndo: page.contains { $0.entry.undoes != nil })
                : try log.list(through: after)
        while left > 0 {
            if page.isEmpty { page = try log.events(after: after, limit: min(left, 2000)) }
            guard let last = page.last else { break }
            for e in page {
                printEntry(e, before: before, inv: inv)
                before.apply(e)
            }
            after = last.seq
            left -= page.count
            page = []
        }
        return CLIError.success
    }

    /// `outline`: the add's, when `e` was read for one task's sake (in words only: JSON needs the whole event).
    static func printEntry(
        _ e: LoggedEntry, before: DownloadList?, outline: AddOutline? = nil, inv: Invocation
    ) {
        if inv.context.json {
            inv.console.out(EventWords.json(e, before: before).rendered())
        } else {
            inv.console.out(EventWords.line(e, before: before, outline: outline, console: inv.console))
        }
    }

    static func audit(_ inv: Invocation) throws -> Int32 {
        try inv.require(["<id>"])
        let id = try inv.ids()[0]
        // Only this task is read whole: the others' place in the list is all its header needs of them, and in
        // words an add of many tasks needs only their ids (JSON prints each event whole).
        let audit = try LedgerLog(path: inv.context.ledgerPath).audit(id, outliningAdds: !inv.context.json)
        let trail = audit.trail
        let entries = trail.entries
        guard !entries.isEmpty else { throw LedgerError.noSuchTask(id) }
        if !trail.fromIndex {
            inv.console.err(
                "warning: the audit index of this ledger disagrees with its log: #\(id)'s history was read from the log itself ('dledger verify' names the damage)"
            )
        }
        if !inv.context.json {
            if var t = audit.task {
                // A running transfer's bytes as `ls` shows them: received (published), else in its partial file.
                let live = Ledger.activityBoard(path: inv.context.ledgerPath).read()?.first { $0.id == id }
                t = Output.shown(t, onDisk: true, live: live)
                let place =
                    audit.location.map { "at \($0.section):\($0.index)" }
                    ?? (audit.isTrashed ? "in the to-delete list" : "")
                inv.console.info(
                    inv.console.style("#\(id) \(DownloadList.shownName(t))", .bold)
                        + " — \(t.state.rawValue), \(TransferActivity.detail(bytes: t.bytes, expected: t.size)), \(place)"
                )
                inv.console.info("  \(t.url)")
                for line in t.options.redactedLines { inv.console.info("  \(line.key) \(line.value)") }
            } else {
                // Gone from the list: its own events, folded alone, say what it was up to its removal.
                var alone = DownloadList()
                var gone: LoggedEntry?
                for e in entries {
                    switch e.entry.event {
                    case .trashPurged, .tasksErased: gone = e
                    default: alone.apply(e)
                    }
                    if gone != nil { break }
                }
                let how =
                    gone.map { e -> String in
                        if case .tasksErased = e.entry.event { return "deleted at once by #\(e.seq)" }
                        return "purged by #\(e.seq)"
                    } ?? "gone"
                if let t = alone.tasks[id] {
                    inv.console.info(
                        inv.console.style("#\(id) \(DownloadList.shownName(t))", .bold)
                            + " — \(how) (it was \(t.state.rawValue), \(TransferActivity.detail(bytes: t.bytes, expected: t.size)))"
                    )
                    inv.console.info("  \(t.url)")
                } else {
                    inv.console.info(inv.console.style("#\(id)", .bold) + " — \(how)")
                }
            }
        }
        for e in entries { printEntry(e, before: nil, outline: trail.outlines[e.seq], inv: inv) }
        return CLIError.success
    }

    static func replay(_ inv: Invocation) throws -> Int32 {
        try inv.require([])
        let to = inv.args.value("--to")
        let at = inv.args.value("--at")
        guard (to == nil) != (at == nil) else {
            throw CLIError.usage("give --to SEQ or --at TIME (one of them)")
        }
        let ledger = try inv.context.openForReading()
        let head = ledger.list.head
        let seq: Int64
        if let to {
            let n = try Numbers.whole(to, "option '--to'", in: Numbers.seq)
            guard n <= head else {
                throw CLIError.invalid("seq \(n) is beyond the end of the log (#\(head))")
            }
            seq = n
        } else {
            seq = try ledger.seq(atOrBefore: try Format.parseTime(at!))
        }
        let list = try ledger.replay(through: seq)
        if !inv.context.json {
            let when = seq > 0 ? " (\(Format.local(list.headTime)))" : ""
            inv.console.info(inv.console.style("The list after event #\(seq)\(when), of \(head):", .dim))
        }
        try ListCommand.show(list, now: seq > 0 ? list.headTime : ledger.now(), inv: inv)
        return CLIError.success
    }
}
