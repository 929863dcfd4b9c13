import LedgerCore

/// Every number a front end takes, read with a range check: a value out of range is an ``InputError`` (the CLI's
/// usage error, exit 64) with one line saying what is accepted, never a trap or a silent clamp.
public enum Numbers {
    /// Task ids.
    public static let taskID: ClosedRange<Int64> = 1...Int64.max
    /// Sections and positions inside them (the list says later whether one is there).
    public static let index: ClosedRange<Int64> = 0...Int64(Int.max)
    /// `limit N` (0 = no limit), and `-j N`.
    public static let downloads: ClosedRange<Int64> = 0...10_000
    /// `-j N`: simultaneous downloads of one run.
    public static let jobs: ClosedRange<Int64> = 1...10_000
    /// TCP ports (0: the system picks one).
    public static let port: ClosedRange<Int64> = 0...65_535
    /// `ls --recent DAYS`: up to 100 years.
    public static let days: ClosedRange<Int64> = 0...36_500
    /// `undo N`, `redo N`.
    public static let steps: ClosedRange<Int64> = 1...10_000
    /// Seqs (`--to`, `--since`) and counts of rows (`--limit`).
    public static let seq: ClosedRange<Int64> = 0...Int64.max
    /// Bytes per second: 1 B/s to 1000T (0 alone means no limit).
    public static let rate: ClosedRange<Int64> = 1...1_000_000_000_000_000
    /// Times, in ms since the Unix epoch: 1970-01-01T00:00:00Z up to 9999-12-31T23:59:59.999Z.
    public static let time: ClosedRange<Int64> = 0...253_402_300_799_999

    /// Reads a whole number (ASCII digits, an optional `-`) in `range`: `whole("12", "a count", in: 0...100)`.
    /// - Throws: ``InputError`` naming `what` and the range (`a count must be a whole number from 0 to 100, not
    ///   'x'`).
    public static func whole(_ raw: String, _ what: String, in range: ClosedRange<Int64>) throws(InputError)
        -> Int64
    {
        let digits = raw.hasPrefix("-") ? raw.utf8.dropFirst() : raw.utf8[...]
        guard !digits.isEmpty, digits.allSatisfy({ (0x30...0x39).contains($0) }), let n = Int64(raw),
            range.contains(n)
        else { throw InputError("\(what) must be a whole number \(describe(range)), not '\(raw)'") }
        return n
    }

    /// A task id as a user types it, `7` or `#7`.
    /// - Throws: ``InputError`` for anything else, or an id below 1.
    public static func parseTaskID(_ raw: String) throws(InputError) -> TaskID {
        try whole(raw.hasPrefix("#") ? String(raw.dropFirst()) : raw, "a task id", in: taskID)
    }

    /// `from 0 to 10000`, `of at least 1`.
    public static func describe(_ range: ClosedRange<Int64>) -> String {
        range.upperBound >= Int64(Int32.max)
            ? "of at least \(range.lowerBound)" : "from \(range.lowerBound) to \(range.upperBound)"
    }
}
