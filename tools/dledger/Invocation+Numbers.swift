import DownloadLedger
import LedgerFrontEnd

extension Invocation {
    /// An integer option in `range` (default: a position or index, 0 or more).
    func int(_ option: String, in range: ClosedRange<Int64> = Numbers.index) throws -> Int? {
        try args.value(option).map { Int(try Numbers.whole($0, "option '\(option)'", in: range)) }
    }

    /// An `Int64` option in `range`.
    func int64(_ option: String, in range: ClosedRange<Int64>) throws -> Int64? {
        try args.value(option).map { try Numbers.whole($0, "option '\(option)'", in: range) }
    }

    /// A positional count or index, in `range`.
    func number(_ raw: String, _ what: String, in range: ClosedRange<Int64>) throws -> Int {
        Int(try Numbers.whole(raw, what, in: range))
    }

    /// Task ids given as positionals (`7` or `#7`).
    func ids(_ raw: [String]? = nil) throws -> [TaskID] {
        try (raw ?? positionals).map { try Numbers.parseTaskID($0) }
    }

    /// A section index given as a positional.
    func sectionIndex(_ raw: String) throws -> Int { try number(raw, "a section index", in: Numbers.index) }

    /// `SECTION[:INDEX]`, both from 0.
    func location(_ raw: String) throws -> Location {
        let parts = raw.split(separator: ":", omittingEmptySubsequences: false)
        guard (1...2).contains(parts.count) else {
            throw CLIError.usage("not a position: '\(raw)' (expected SECTION or SECTION:INDEX, e.g. 1:0)")
        }
        let section = try number(String(parts[0]), "the section of a position", in: Numbers.index)
        guard parts.count == 2 else { return Location(section: section) }
        return Location(
            section: section,
            index: try number(String(parts[1]), "the index of a position", in: Numbers.index))
    }
}
