import DownloadLedger
import Foundation

/// Sizes, rates and times as the front ends print them (`Format+Parsing.swift` reads them).
///
/// ```swift
/// Format.bytes(10_200_000)   // "10.2 MB"
/// Format.iso(1_795_971_601_250)  // "2026-11-29T17:00:01.250Z"
/// ```
public enum Format {
    /// Decimal units, as the downloader's activity shows them: `"512 B"`, `"10.2 MB"`, `"117 MB"`.
    public static func bytes(_ n: Int64) -> String { TransferActivity.formatBytes(n) }

    /// A size as it would be typed, 1024-based when it is whole in a unit: `"4 MiB"`, `"1 GiB"`, `"1536 KiB"`;
    /// else `"1000001 bytes"`. For piece sizes, which aria2 users give as `4M`.
    public static func binaryBytes(_ n: Int64) -> String {
        for (unit, shift) in [("GiB", 30), ("MiB", 20), ("KiB", 10)] where n > 0 && n % (1 << shift) == 0 {
            return "\(n >> shift) \(unit)"
        }
        return "\(n) bytes"
    }

    /// `"1.2 MB/s"` (a rate that is not finite reads as 0).
    public static func rate(_ bytesPerSecond: Double) -> String {
        bytes(Int64(bytesPerSecond.isFinite ? bytesPerSecond : 0)) + "/s"
    }

    /// ISO 8601 in UTC with milliseconds: `"2026-11-29T17:00:01.250Z"`.
    public static func iso(_ ms: Int64) -> String {
        var t = time_t(floorDiv(ms, 1000))
        var parts = tm()
        gmtime_r(&t, &parts)
        let millis = ms - floorDiv(ms, 1000) * 1000
        return "\(date(parts))T\(clock(parts)).\(pad3(Int(millis)))Z"
    }

    /// Local time to the second: `"2026-11-29 18:00:01"`.
    public static func local(_ ms: Int64) -> String {
        var t = time_t(floorDiv(ms, 1000))
        var parts = tm()
        localtime_r(&t, &parts)
        return "\(date(parts)) \(clock(parts))"
    }

    /// The local time zone's offset from UTC at `ms`, in seconds.
    public static func utcOffset(at ms: Int64) -> Int {
        var t = time_t(floorDiv(ms, 1000))
        var parts = tm()
        localtime_r(&t, &parts)
        return parts.tm_gmtoff
    }

    private static func floorDiv(_ a: Int64, _ b: Int64) -> Int64 { a >= 0 ? a / b : -((-a + b - 1) / b) }

    private static func date(_ p: tm) -> String {
        "\(p.tm_year + 1900)-\(pad2(Int(p.tm_mon) + 1))-\(pad2(Int(p.tm_mday)))"
    }

    private static func clock(_ p: tm) -> String {
        "\(pad2(Int(p.tm_hour))):\(pad2(Int(p.tm_min))):\(pad2(Int(p.tm_sec)))"
    }

    /// At least two digits: `"07"`, `"12"`.
    public static func pad2(_ n: Int) -> String { n < 10 ? "0\(n)" : "\(n)" }

    private static func pad3(_ n: Int) -> String { n < 10 ? "00\(n)" : n < 100 ? "0\(n)" : "\(n)" }

    /// `text` padded with spaces to `width` characters (left-aligned), or cut with `…`.
    public static func fit(_ text: String, _ width: Int) -> String {
        if text.count <= width { return text + String(repeating: " ", count: width - text.count) }
        return width <= 1 ? String(text.prefix(width)) : String(text.prefix(width - 1)) + "…"
    }

    /// `text` right-aligned in `width` characters.
    public static func right(_ text: String, _ width: Int) -> String {
        text.count >= width ? text : String(repeating: " ", count: width - text.count) + text
    }

    /// A failure as a user reads it, in the one wording of `FailureReason.sentence(code:detail:)`:
    /// `"the server answered HTTP 404 (Not Found)"`.
    public static func failure(_ f: TaskFailure?) -> String {
        guard let f else { return "failed without a recorded reason" }
        return FailureReason.sentence(code: f.code, detail: f.detail)
    }

    /// The first 12 hex digits of a digest, then `…`.
    public static func shortHash(_ hex: String) -> String {
        hex.count > 12 ? String(hex.prefix(12)) + "…" : hex
    }
}
