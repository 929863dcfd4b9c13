import DownloadLedger
import LedgerFrontEnd

extension EventWords {
    /// One human log line: `#12  2026-11-29 18:00:01  tasksMoved          moved #2 to 1:0`.
    /// `outline` as for ``describe(_:before:outline:)``.
    static func line(
        _ logged: LoggedEntry, before: DownloadList?, outline: AddOutline? = nil, console: Console
    )
        -> String
    {
        let seq = Format.right("#\(logged.seq)", 6)
        let kind = Format.fit(logged.entry.event.kind, kindWidth)
        let styledKind =
            logged.entry.event.isTransferFact ? console.style(kind, .dim) : console.style(kind, .cyan)
        let words = describe(logged.entry, before: before, outline: outline)
        return "\(seq)  \(Format.local(logged.time))  \(styledKind) \(words)"
    }
}
