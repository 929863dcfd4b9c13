import DownloadLedger
import Foundation

/// Sizes, rates, times and durations as the tool prints and reads them.
enum Format {
    /// Decimal units, as the downloader's activity shows them: `"512 B"`, `"10.2 MB"`, `"117 MB"`.
    static func bytes(_ n: Int64) -> String { TransferActivity.formatBytes(n) }

    /// `"1.2 MB/s"`.
    static func rate(_ bytesPerSecond: Double) -> String {
        bytes(Int64(bytesPerSecond.isFinite ? bytesPerSecond : 0)) + "/s"
    }

    /// `"45s"`, `"3m05s"`, `"2h10m"`.
    static func duration(_ seconds: Double) -> String {
        guard seconds.isFinite, seconds >= 0 else { return "--" }
        let s = Int(seconds.rounded())
        if s < 60 { return "\(s)s" }
        if s < 3600 { return "\(s / 60)m" + pad2(s % 60) + "s" }
        return "\(s / 3600)h" + pad2(s / 60 % 60) + "m"
    }

    /// ISO 8601 in UTC with milliseconds: `"2026-11-29T17:00:01.250Z"`.
    static func iso(_ ms: Int64) -> String {
        var t = time_t(floorDiv(ms, 1000))
        var parts = tm()
        gmtime_r(&t, &parts)
        let millis = ms - floorDiv(ms, 1000) * 1000
        return "\(date(parts))T\(clock(parts)).\(pad3(Int(millis)))Z"
    }

    /// Local time to the second: `"2026-11-29 18:00:01"`.
    static func local(_ ms: Int64) -> String {
        var t = time_t(floorDiv(ms, 1000))
        var parts = tm()
        localtime_r(&t, &parts)
        return "\(date(parts)) \(clock(parts))"
    }

    /// The local time zone's offset from UTC at `ms`, in seconds.
    static func utcOffset(at ms: Int64) -> Int {
        var t = time_t(floorDiv(ms, 1000))
        var parts = tm()
        localtime_r(&t, &parts)
        return parts.tm_gmtoff
    }

    /// Reads a time: ISO 8601 (`2026-11-29T17:00:00Z`, with `.123`, or an offset like `+01:00`), local
    /// `2026-11-29 18:00[:05]` or `2026-11-29`, or Unix seconds (`1795971600`, `1795971600.5`).
    /// - Returns: milliseconds since the Unix epoch, or nil.
    static func parseTime(_ raw: String) -> Int64? {
        let s = raw.trimmingCharacters(in: .whitespaces)
        if let seconds = Double(s), s.first?.isNumber == true, !s.contains("-") {
            return Int64((seconds * 1000).rounded())
        }
        let scalars = Array(s.unicodeScalars)
        func number(_ from: Int, _ count: Int) -> Int? {
            guard from + count <= scalars.count else { return nil }
            let digits = scalars[from..<from + count]
            guard digits.allSatisfy({ ("0"..."9").contains($0) }) else { return nil }
            return Int(String(String.UnicodeScalarView(digits)))
        }
        guard let year = number(0, 4), scalars.count >= 10, scalars[4] == "-", let month = number(5, 2),
            scalars[7] == "-", let day = number(8, 2)
        else { return nil }
        var parts = tm()
        parts.tm_year = Int32(year - 1900)
        parts.tm_mon = Int32(month - 1)
        parts.tm_mday = Int32(day)
        parts.tm_isdst = -1
        var at = 10
        var millis = 0
        if at < scalars.count {
            guard scalars[at] == "T" || scalars[at] == " ", let h = number(at + 1, 2), scalars.count > at + 3,
                scalars[at + 3] == ":", let m = number(at + 4, 2)
            else { return nil }
            parts.tm_hour = Int32(h)
            parts.tm_min = Int32(m)
            at += 6
            if at < scalars.count, scalars[at] == ":" {
                guard let sec = number(at + 1, 2) else { return nil }
                parts.tm_sec = Int32(sec)
                at += 3
            }
            if at < scalars.count, scalars[at] == "." {
                var digits = ""
                at += 1
                while at < scalars.count, ("0"..."9").contains(scalars[at]) {
                    digits.unicodeScalars.append(scalars[at])
                    at += 1
                }
                millis = Int((digits + "000").prefix(3)) ?? 0
            }
        }
        guard at < scalars.count else {
            let t = mktime(&parts)
            return t == -1 ? nil : Int64(t) * 1000 + Int64(millis)
        }
        var offset = 0
        if scalars[at] == "Z" {
            at += 1
        } else if scalars[at] == "+" || scalars[at] == "-", let h = number(at + 1, 2) {
            let m = number(at + 4, 2) ?? number(at + 3, 2) ?? 0
            offset = (h * 3600 + m * 60) * (scalars[at] == "-" ? -1 : 1)
            at = scalars.count
        } else {
            return nil
        }
        guard at == scalars.count else { return nil }
        return (Int64(timegm(&parts)) - Int64(offset)) * 1000 + Int64(millis)
    }

    /// Reads a rate: `500K`, `2M`, `1.5G` (decimal, bytes per second; `KB`, `MiB`, `/s` also read), `0` = none.
    static func parseRate(_ raw: String) -> Int64? {
        var s = raw.trimmingCharacters(in: .whitespaces).uppercased()
        if s.hasSuffix("/S") { s.removeLast(2) }
        var multiplier = 1.0
        var binary = false
        if s.hasSuffix("IB") {
            binary = true
            s.removeLast(2)
        } else if s.hasSuffix("B") {
            s.removeLast()
        }
        if let unit = s.last, let power = ["K": 1.0, "M": 2.0, "G": 3.0, "T": 4.0][String(unit)] {
            multiplier = pow(binary ? 1024 : 1000, power)
            s.removeLast()
        }
        guard let value = Double(s.trimmingCharacters(in: .whitespaces)), value >= 0, value.isFinite else {
            return nil
        }
        return Int64((value * multiplier).rounded())
    }

    private static func floorDiv(_ a: Int64, _ b: Int64) -> Int64 { a >= 0 ? a / b : -((-a + b - 1) / b) }

    private static func date(_ p: tm) -> String {
        "\(p.tm_year + 1900)-\(pad2(Int(p.tm_mon) + 1))-\(pad2(Int(p.tm_mday)))"
    }

    private static func clock(_ p: tm) -> String {
        "\(pad2(Int(p.tm_hour))):\(pad2(Int(p.tm_min))):\(pad2(Int(p.tm_sec)))"
    }

    static func pad2(_ n: Int) -> String { n < 10 ? "0\(n)" : "\(n)" }

    private static func pad3(_ n: Int) -> String { n < 10 ? "00\(n)" : n < 100 ? "0\(n)" : "\(n)" }

    /// `text` padded with spaces to `width` characters (left-aligned), or cut with `…`.
    static func fit(_ text: String, _ width: Int) -> String {
        if text.count <= width { return text + String(repeating: " ", count: width - text.count) }
        return width <= 1 ? String(text.prefix(width)) : String(text.prefix(width - 1)) + "…"
    }

    /// `text` right-aligned in `width` characters.
    static func right(_ text: String, _ width: Int) -> String {
        text.count >= width ? text : String(repeating: " ", count: width - text.count) + text
    }

    /// A failure as a user reads it: `"HTTP 404"`, `"timeout: ..."`.
    static func failure(_ f: TaskFailure?) -> String {
        guard let f else { return "unknown error" }
        if f.code == "http", f.detail.allSatisfy(\.isNumber) { return "HTTP \(f.detail)" }
        return f.detail
    }

    /// The first 12 hex digits of a digest, then `…`.
    static func shortHash(_ hex: String) -> String { hex.count > 12 ? String(hex.prefix(12)) + "…" : hex }
}
