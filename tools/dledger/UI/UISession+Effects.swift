import DownloadLedger
import Foundation
import LedgerFrontEnd
import LedgerUI

/// What the screen model's effects do: commands on the ledger, the history scrubber, the audit and details panes.
extension UISession {
    /// Performs `effects`. Returns true when the user quits.
    func perform(_ effects: [Effect]) -> Bool {
        for effect in effects {
            switch effect {
            case .quit: return true
            case .execute(let command): execute(command)
            case .historyAt(let seq): showHistory { _ in seq ?? max(1, self.ledger.list.head - 1) }
            case .historyStep(let n): showHistory { $0.map { $0.seq + Int64(n) } ?? self.ledger.list.head }
            case .historyMinutes(let m): showHistory { current in try self.minuteStep(current, minutes: m) }
            case .historyJump(let raw): showHistory { _ in try self.jumpTarget(raw) }
            case .audit(let id): showAudit(id)
            case .details(let id): showDetails(id)
            case .setMaxDownloads(let raw):
                parsed {
                    .setMaxDownloads(
                        Int(try Numbers.whole(raw, "the maximum download count", in: Numbers.downloads)))
                }
            case .setSpeedLimit(let raw): parsed { .setSpeedLimit(try Format.parseRate(raw)) }
            }
        }
        return false
    }

    /// Executes the command `make` reads from what the user typed, or says why it cannot.
    private func parsed(_ make: () throws -> Command) {
        do {
            execute(try make())
        } catch {
            reportFailure(error)
        }
    }

    /// Says in the message line why something the user asked for could not be done: the CLI's words, or while the
    /// ledger's database is out of reach, one line that says so (and, for a command, that nothing was changed).
    func reportFailure(_ error: any Error, reading: Bool = false) {
        guard StoreError.isConnectionLoss(error) else {
            model.report(CLIError(error).description, isError: true)
            return
        }
        let words = reading ? "the log cannot be read now" : "nothing was changed"
        model.report("database out of reach: \(words), try again once it is back", isError: true)
    }

    /// Executes one command as the CLI would, and says what it did (or why not) in the status line.
    func execute(_ command: Command) {
        let before = ledger.list
        do {
            let outcome = try ledger.execute(command)
            model.report(words(outcome, before: before))
        } catch {
            reportFailure(error)
        }
        showLatest()
    }

    /// What a command did, in the CLI's words; for undo and redo, what was undone or redone.
    func words(_ outcome: Outcome, before: DownloadList) -> String {
        let said = EventWords.describe(outcome.entry, before: before)
        if let target = outcome.decision.target,
            let original = try? ledger.log(after: target.seq - 1, limit: 1).first
        {
            let verb = outcome.entry.undoes != nil ? "undid" : "redid"
            return "\(verb) #\(target.seq): \(EventWords.describe(original.entry))"
        }
        let skipped = outcome.decision.skipped
        guard !skipped.isEmpty else { return said }
        return said + "; skipped \(skipped.count): "
            + skipped.map { "\($0.url) (\($0.reason))" }.joined(separator: ", ")
    }

    /// Shows the list after the seq `target` picks (given the point shown now), clamped to the log.
    private func showHistory(_ target: (HistoryPoint?) throws -> Int64) {
        do {
            let head = ledger.list.head
            guard head > 0 else {
                model.report("the log is empty: no history yet", isError: true)
                return
            }
            let wanted = try target(model.history)
            guard wanted >= 1 else {
                model.report("this is the first event: nothing before it", isError: true)
                return
            }
            let seq = min(wanted, head)
            let point = try historyPoint(seq, head: head)
            model.showHistory(point)
            if wanted > head { model.report("this is the last event: Esc goes back to now") }
        } catch {
            reportFailure(error, reading: true)
        }
    }

    func historyPoint(_ seq: Int64, head: Int64) throws -> HistoryPoint {
        let list = try ledger.replay(through: seq)
        let entry = try ledger.log(after: seq - 1, limit: 1).first
        let before = seq > 1 ? try ledger.replay(through: seq - 1) : DownloadList()
        return HistoryPoint(
            list: list, seq: seq, time: entry?.time ?? list.headTime,
            words: entry.map { EventWords.describe($0.entry, before: before) } ?? "", head: head)
    }

    /// One minute before or after the event shown: the last event at or before that time (at least one event
    /// further, so that a quiet minute still moves).
    private func minuteStep(_ current: HistoryPoint?, minutes: Int) throws -> Int64 {
        guard let current else { return ledger.list.head }
        let seq = try ledger.seq(atOrBefore: current.time + Int64(minutes) * 60_000)
        if minutes > 0 { return max(seq, current.seq + 1) }
        return min(seq, current.seq - 1)
    }

    /// A seq (`17`, `#17`) or a time as `replay --at` reads it.
    private func jumpTarget(_ raw: String) throws -> Int64 {
        let digits = raw.hasPrefix("#") ? String(raw.dropFirst()) : raw
        if let seq = Int64(digits), digits.count < 9 {
            guard seq >= 1, seq <= ledger.list.head else {
                throw CLIError.invalid("no event #\(seq) (the log has 1 to \(ledger.list.head))")
            }
            return seq
        }
        let time = try Format.parseTime(raw)
        let seq = try ledger.seq(atOrBefore: time)
        guard seq >= 1 else { throw CLIError.invalid("the log starts after \(Format.local(time))") }
        return seq
    }

    /// The details pane; whether the task's finished file is there is looked up without following a link.
    private func showDetails(_ id: TaskID) {
        var onDisk: Bool?
        if let path = ledger.list.tasks[id]?.filePath {
            var info = stat()
            onDisk = lstat(path, &info) == 0
        }
        model.showDetails(id, file: onDisk)
    }

    private func showAudit(_ id: TaskID) {
        do {
            let lines = try ledger.audit(id).map { e in
                "#\(e.seq)  \(Format.local(e.time))  \(EventWords.describe(e.entry))"
            }
            model.showAudit(id, lines: lines)
        } catch {
            reportFailure(error, reading: true)
        }
    }
}
