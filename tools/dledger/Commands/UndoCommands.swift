import DownloadLedger
import LedgerFrontEnd

/// `dledger undo [N] [--past]` and `dledger redo [N]`: compensating events, printed in words.
enum UndoCommands {
    static let specs: [CommandSpec] = [
        spec(
            "undo", "Undo the newest N user actions (default 1), newest first; all N or none.",
            verb: "undone",
            options: [
                (
                    "--past",
                    "Pass over newer actions that cannot be undone (a purge, a redownload, a file deletion)"
                ),
                ("", "and undo the newest one that can."),
            ]),
        spec("redo", "Redo the newest N undone actions (default 1); all N or none.", verb: "redone"),
    ]

    private static func spec(
        _ name: String, _ abstract: String, verb: String, options: [(String, String)] = []
    ) -> CommandSpec {
        CommandSpec(
            name: name, abstract: abstract, usage: "\(name) [<n>]\(options.isEmpty ? "" : " [--past]")",
            arguments: [("<n>", "How many: all of them are \(verb), or none (nothing is appended then).")],
            options: options,
            discussion:
                "Undo acts on the newest user action. When that action cannot be undone (a purge, a redownload,\n"
                + "a file deletion, 'rm --now'), undo appends nothing and says which action stands in the way\n"
                + "and why; 'undo --past' reaches the actions before it. Downloader facts (transfers) are never\n"
                + "undone. A new action clears what can be redone.",
            json: true, writes: true,
            run: { inv in
                let count = try inv.positionals.first.map {
                    try inv.number($0, "the count", in: Numbers.steps)
                }
                if inv.positionals.count > 1 {
                    throw CLIError.usage("unexpected argument '\(inv.positionals[1])'")
                }
                let command: Command = name == "redo" ? .redo : inv.args.has("--past") ? .undoPast : .undo
                let n = count ?? 1
                let ledger = try inv.context.openForWriting()
                let before = ledger.list
                let outcomes: [Outcome]
                do {
                    outcomes = try ledger.execute(all: Array(repeating: command, count: n))
                } catch let refused as BatchRefused {
                    guard n > 1 else { throw refused.error }
                    let done = refused.done
                    throw CLIError.failed(
                        "\(done == 0 ? "none" : "only \(done)") of the \(n) actions can be \(verb), so none was: "
                            + "\(refused.error)")
                }
                var list = before
                for outcome in outcomes {
                    for passed in outcome.decision.passed where !inv.context.json {
                        inv.console.info("passed over #\(passed.seq) \(passed.kind): \(passed.reason)")
                    }
                    if inv.context.json {
                        inv.console.out(
                            EventWords.json(
                                LoggedEntry(seq: outcome.seq, time: outcome.time, entry: outcome.entry),
                                before: list
                            ).rendered())
                    } else {
                        inv.console.info(EventWords.describe(outcome.entry, before: list))
                    }
                    list.apply(LoggedEntry(seq: outcome.seq, time: outcome.time, entry: outcome.entry))
                }
                return CLIError.success
            })
    }
}
