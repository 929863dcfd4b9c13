import DownloadLedger

/// Every number the command line takes, read with a range check: a value out of range is a usage error
/// (exit 64) with one line saying what is accepted, never a trap or a silent clamp.
enum Numbers {
    /// Task ids.
    static let taskID: ClosedRange<Int64> = 1...Int64.max
    /// Sections and positions inside them (the list says later whether one is there).
    static let index: ClosedRange<Int64> = 0...Int64(Int.max)
    /// `limit N` (0 = no limit), and `-j N`.
    static let downloads: ClosedRange<Int64> = 0...10_000
    static let jobs: ClosedRange<Int64> = 1...10_000
    /// TCP ports (0: the system picks one).
    static let port: ClosedRange<Int64> = 0...65_535
    /// `ls --recent DAYS`: up to 100 years.
    static let days: ClosedRange<Int64> = 0...36_500
    /// `undo N`, `redo N`.
    static let steps: ClosedRange<Int64> = 1...10_000
    /// Seqs (`--to`, `--since`) and counts of rows (`--limit`).
    static let seq: ClosedRange<Int64> = 0...Int64.max
    /// Bytes per second: 1 B/s to 1000T (0 alone means no limit).
    static let rate: ClosedRange<Int64> = 1...1_000_000_000_000_000
    /// Times, in ms since the Unix epoch: 1970-01-01T00:00:00Z up to 9999-12-31T23:59:59.999Z.
    static let time: ClosedRange<Int64> = 0...253_402_300_799_999

    /// Reads a whole number (ASCII digits, an optional `-`) in `range`.
    /// - Throws: `CLIError.usage` naming `what` and the range.
    static func whole(_ raw: String, _ what: String, in range: ClosedRange<Int64>) throws(CLIError) -> Int64 {
        let digits = raw.hasPrefix("-") ? raw.utf8.dropFirst() : raw.utf8[...]
        guard !digits.isEmpty, digits.allSatisfy({ (0x30...0x39).contains($0) }), let n = Int64(raw),
            range.contains(n)
        else { throw .usage("\(what) must be a whole number \(describe(range)), not '\(raw)'") }
        return n
    }

    /// `from 0 to 10000`, `of at least 1`.
    static func describe(_ range: ClosedRange<Int64>) -> String {
        range.upperBound >= Int64(Int32.max)
            ? "of at least \(range.lowerBound)" : "from \(range.lowerBound) to \(range.upperBound)"
    }
}

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
        try (raw ?? positionals).map { s in
            try Numbers.whole(s.hasPrefix("#") ? String(s.dropFirst()) : s, "a task id", in: Numbers.taskID)
        }
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
