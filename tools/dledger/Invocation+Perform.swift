import DownloadLedger
import LedgerFrontEnd

extension Invocation {
    /// Executes one command on the ledger (created if needed) and prints what it did: a sentence, or with
    /// `--json` the logged event as `log --json` shows it.
    @discardableResult
    func perform(_ command: Command) throws -> Outcome {
        let ledger = try context.openForWriting()
        let before = ledger.list
        let outcome = try ledger.execute(command)
        print(outcome, before: before, after: ledger.list)
        return outcome
    }

    func print(_ outcome: Outcome, before: DownloadList, after: DownloadList) {
        if context.json {
            let time = after.head == outcome.seq ? after.headTime : Ledger.wallClock()
            console.out(
                EventWords.json(LoggedEntry(seq: outcome.seq, time: time, entry: outcome.entry)).rendered())
        } else {
            console.info(EventWords.describe(outcome.entry, before: before))
        }
    }
}
