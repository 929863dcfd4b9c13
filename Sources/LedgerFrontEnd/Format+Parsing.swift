import Foundation
import LedgerCore

/// Times, sizes and rates as every front end reads them. Every field is range-checked: an impossible date, a time
/// outside 1970…9999, a rate that rounds to 0 B/s or exceeds 1000TB is an ``InputError``, never normalised or
/// clamped.
extension Format {
    /// Reads a time: ISO 8601 (`2026-11-29T17:00:00Z`, with `.123`, or an offset like `+01:00`), local
    /// `2026-11-29 18:00[:05]` or `2026-11-29`, or Unix seconds (`1795971600`, `1795971600.5`).
    /// - Returns: milliseconds since the Unix epoch, in `Numbers.time`.
    /// - Throws: ``InputError`` saying what is wrong.
    public static func parseTime(_ raw: String) throws(InputError) -> Int64 {
        let text = raw.trimmingCharacters(in: .whitespaces)
        var scanner = TimeScanner(text)
        guard text.first?.isNumber == true, text.allSatisfy({ $0 == "." || ($0.isASCII && $0.isNumber) })
        else {
            return try checked(try parseDate(&scanner, raw), raw)
        }
        // Unix seconds: more than 12 digits is past the year 9999.
        let seconds = scanner.digits(max: 12)
        let millis = seconds != nil && scanner.take(".") ? try scanner.fraction(raw) : 0
        guard scanner.atEnd || seconds == nil else { throw timeError(raw) }
        return try checked(seconds.map { $0 * 1000 + millis }, raw)
    }

    private static func checked(_ ms: Int64?, _ raw: String) throws(InputError) -> Int64 {
        guard let ms, Numbers.time.contains(ms) else {
            throw InputError("time out of range: '\(raw)' (from 1970-01-01 to 9999-12-31)")
        }
        return ms
    }

    private static func parseDate(_ s: inout TimeScanner, _ raw: String) throws(InputError) -> Int64? {
        guard let year = s.digits(exactly: 4), s.take("-"), let month = s.digits(exactly: 2), s.take("-"),
            let day = s.digits(exactly: 2)
        else { throw timeError(raw) }
        guard (1...12).contains(month), (1...daysIn(month: month, year: year)).contains(day) else {
            throw InputError("no such date: '\(raw)'")
        }
        var parts = tm()
        parts.tm_year = Int32(year - 1900)
        parts.tm_mon = Int32(month - 1)
        parts.tm_mday = Int32(day)
        parts.tm_isdst = -1
        var millis: Int64 = 0
        if s.take("T") || s.take(" ") {
            guard let h = s.digits(exactly: 2), s.take(":"), let m = s.digits(exactly: 2) else {
                throw timeError(raw)
            }
            let sec = s.take(":") ? s.digits(exactly: 2) : 0
            guard let sec, h < 24, m < 60, sec < 60 else { throw InputError("no such time of day: '\(raw)'") }
            (parts.tm_hour, parts.tm_min, parts.tm_sec) = (Int32(h), Int32(m), Int32(sec))
            if s.take(".") { millis = try s.fraction(raw) }
        }
        if s.atEnd {
            let t = mktime(&parts)
            return t == -1 ? nil : Int64(t) * 1000 + millis
        }
        var offset: Int64 = 0
        if !s.take("Z") {
            let sign: Int64 = s.take("+") ? 1 : s.take("-") ? -1 : 0
            guard sign != 0, let h = s.digits(exactly: 2) else { throw timeError(raw) }
            var m: Int64? = 0
            if !s.atEnd {
                _ = s.take(":")
                m = s.digits(exactly: 2)
            }
            guard let m, h < 24, m < 60 else { throw InputError("not a UTC offset in '\(raw)'") }
            offset = sign * (h * 3600 + m * 60)
        }
        guard s.atEnd else { throw timeError(raw) }
        return (Int64(timegm(&parts)) - offset) * 1000 + millis
    }

    private static func daysIn(month: Int64, year: Int64) -> Int64 {
        switch month {
        case 2: return year % 4 == 0 && (year % 100 != 0 || year % 400 == 0) ? 29 : 28
        case 4, 6, 9, 11: return 30
        default: return 31
        }
    }

    private static func timeError(_ raw: String) -> InputError {
        InputError("not a time: '\(raw)' (e.g. 2026-11-29T17:00:00Z, '2026-11-29 18:00', 1795971600)")
    }

    /// A file size, by the rule every size and rate of the tool follows: digits with an optional fraction and an
    /// optional unit `K`, `M`, `G`, `T`, `P`, `E`. A bare unit is 1024-based, as curl, wget and aria2c read it
    /// (`4M` is 4 MiB); with `B` it is 1000-based, as the tool prints sizes (`4MB`, `4 MB`: 4,000,000); with `iB`
    /// 1024-based (`4MiB`). Without a unit, bytes (`2000`, `2000B`). Case does not matter.
    /// - Returns: bytes, in `DownloadList.maxSizeRange` (1 KB to 1 EB).
    /// - Throws: ``InputError`` for anything else or a size out of that range.
    public static func parseSize(_ raw: String) throws(InputError) -> Int64 {
        guard let scaled = scaled(raw.uppercased(), units: ["K", "M", "G", "T", "P", "E"]) else {
            throw InputError("not a size: '\(raw)' (e.g. 500M, 16GiB, 1.5G, 2MB)")
        }
        let bytes = scaled.rounded()
        let range = DownloadList.maxSizeRange
        guard bytes >= Double(range.lowerBound), bytes <= Double(range.upperBound) else {
            throw InputError("size out of range: '\(raw)' (1KB to 1EB: 1000 to 10^18 bytes)")
        }
        return Int64(bytes)
    }

    /// A `min-split-size`: a size as ``parseSize(_:)`` reads it, 1 MiB to 1 GiB (aria2's bounds: `1M` to `1G`).
    public static func parseSplitSize(_ raw: String) throws(InputError) -> Int64 {
        let bytes = try parseSize(raw)
        guard TaskOptions.minSplitSizeRange.contains(bytes) else {
            throw InputError("min-split-size out of range: '\(raw)' (1M to 1G; 1M is 1 MiB)")
        }
        return bytes
    }

    /// A number with an optional fraction, times its unit: one of `units` (the first is 1024, or 1000 with `B`,
    /// the next the square, …; 1024-based with `iB`), an optional `B` alone for bytes. Nil when it is not that.
    private static func scaled(_ text: String, units: [Character]) -> Double? {
        var s = text.trimmingCharacters(in: .whitespaces)
        var decimal = false
        if s.hasSuffix("IB") {
            s.removeLast(2)
            guard let unit = s.last, units.contains(unit) else { return nil }
        } else if s.hasSuffix("B") {
            s.removeLast()
            decimal = true
        }
        var multiplier = 1.0
        if let unit = s.last, let power = units.firstIndex(of: unit) {
            multiplier = pow(decimal ? 1000 : 1024, Double(power + 1))
            s.removeLast()
        }
        let number = s.trimmingCharacters(in: .whitespaces)
        let parts = number.split(separator: ".", maxSplits: 1, omittingEmptySubsequences: false)
        guard !number.isEmpty, number != ".",
            parts.allSatisfy({ $0.utf8.allSatisfy { (0x30...0x39).contains($0) } }),
            let value = Double(number.hasPrefix(".") ? "0" + number : number)
        else { return nil }
        return value * multiplier
    }

    /// Reads a rate in bytes per second, units as ``parseSize(_:)`` reads them: `500K` (512,000), `2M`, `1.5G`,
    /// `500KB` (500,000), `1.5MiB/s`; `0` = none.
    /// - Returns: bytes per second, 0 or in `Numbers.rate`.
    /// - Throws: ``InputError`` for anything else, a rate that rounds to 0 B/s or one above 1000TB (10^15 B/s).
    public static func parseRate(_ raw: String) throws(InputError) -> Int64 {
        var s = raw.trimmingCharacters(in: .whitespaces).uppercased()
        if s.hasSuffix("/S") { s.removeLast(2) }
        guard let scaled = scaled(s, units: ["K", "M", "G", "T"]) else {
            throw InputError("not a rate: '\(raw)' (e.g. 500K, 2M, 1.5G; 0 for none)")
        }
        let bytes = scaled.rounded()
        if scaled == 0 { return 0 }
        guard bytes <= Double(Numbers.rate.upperBound) else {
            throw InputError("rate out of range: '\(raw)' (at most 1000TB, 10^15 B/s)")
        }
        guard bytes >= 1 else {
            throw InputError("rate '\(raw)' rounds to 0 B/s (the smallest limit is 1 B/s; 0 for none)")
        }
        return Int64(bytes)
    }
}
