import DownloadLedger

/// `dledger undo [N]` and `dledger redo [N]`: compensating events, printed in words.
enum UndoCommands {
    static let specs: [CommandSpec] = [
        spec("undo", "Undo the last N user actions (default 1), newest first.", .undo, verb: "undid"),
        spec("redo", "Redo the last N undone actions (default 1).", .redo, verb: "redid"),
    ]

    private static func spec(_ name: String, _ abstract: String, _ command: Command, verb: String)
        -> CommandSpec
    {
        CommandSpec(
            name: name, abstract: abstract, usage: "\(name) [<n>]",
            arguments: [
                (
                    "<n>",
                    "How many (stops at the first that cannot be \(verb == "undid" ? "undone" : "redone"))."
                )
            ],
            discussion:
                "Downloader facts (transfers) are never undone. A new action clears what can be redone.",
            json: true, writes: true,
            run: { inv in
                let count = try inv.positionals.first.map { raw in
                    guard let n = Int(raw), n >= 1 else { throw CLIError.usage("not a count: '\(raw)'") }
                    return n
                }
                if inv.positionals.count > 1 {
                    throw CLIError.usage("unexpected argument '\(inv.positionals[1])'")
                }
                let ledger = try inv.context.openForWriting()
                for done in 0..<(count ?? 1) {
                    let before = ledger.list
                    let outcome: Outcome
                    do {
                        outcome = try ledger.execute(command)
                    } catch {
                        guard done > 0 else { throw error }
                        inv.console.err("stopped after \(done): \(error)")
                        return CLIError.failure
                    }
                    if inv.context.json {
                        inv.print(outcome, before: before, after: ledger.list)
                        continue
                    }
                    guard let target = outcome.decision.target else { continue }
                    let original = try ledger.log(after: target.seq - 1, limit: 1).first
                    let what = original.map { EventWords.describe($0.entry) } ?? target.kind
                    inv.console.info("\(verb) #\(target.seq) \(target.kind): \(what)")
                }
                return CLIError.success
            })
    }
}
