import LedgerCore
import LedgerTransfer

/// Rates, durations and failures in words, as the CLI prints them (`dledger` uses these too).
public enum Units {
    /// Decimal units: `"512 B"`, `"10.2 MB"`.
    public static func bytes(_ n: Int64) -> String { TransferActivity.formatBytes(n) }

    /// `"1.2 MB/s"`.
    public static func rate(_ bytesPerSecond: Double) -> String {
        bytes(Int64(bytesPerSecond.isFinite ? bytesPerSecond : 0)) + "/s"
    }

    /// `"45s"`, `"3m05s"`, `"2h10m"`; `"--"` when unknown.
    public static func duration(_ seconds: Double) -> String {
        guard seconds.isFinite, seconds >= 0, seconds < 1e9 else { return "--" }
        let s = Int(seconds.rounded())
        if s < 60 { return "\(s)s" }
        if s < 3600 { return "\(s / 60)m" + pad2(s % 60) + "s" }
        return "\(s / 3600)h" + pad2(s / 60 % 60) + "m"
    }

    static func pad2(_ n: Int) -> String { n < 10 ? "0\(n)" : "\(n)" }

    /// A failure as a user reads it, in the one wording of ``FailureReason/sentence(code:detail:)``:
    /// `"the server answered HTTP 404 (Not Found)"`, `"connection closed after 960 KB of 2.4 MB"`.
    public static func failure(_ f: TaskFailure?) -> String {
        guard let f else { return "failed without a recorded reason" }
        return FailureReason.sentence(code: f.code, detail: f.detail)
    }
}

extension Units {
    /// A rate in few columns, for a narrow status line: `"500K/s"`, `"1.2M/s"`, `"0B/s"`.
    public static func shortRate(_ bytesPerSecond: Double) -> String {
        let (whole, tenth, unit) = TransferActivity.byteFigure(
            Int64(bytesPerSecond.isFinite ? max(0, bytesPerSecond) : 0))
        let letter = unit == 0 ? "B" : String(TransferActivity.byteUnits[unit].prefix(1))
        return "\(whole)" + (tenth.map { ".\($0)" } ?? "") + letter + "/s"
    }
}
