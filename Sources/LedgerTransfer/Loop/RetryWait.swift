import Glibc

/// A transfer waiting out a backoff before its next attempt, as every view shows it: `retrying in 2 s (attempt 3
/// of 6): the server answered HTTP 500`. Part of ``TransferActivity``: never a ledger event.
public struct RetryWait: Sendable, Equatable {
    /// The number of the attempt that comes next (the first attempt is 1).
    public var attempt: Int
    /// The last attempt allowed, when the wait counts against the retries (a lack of descriptors does not).
    public var of: Int?
    /// When the next attempt starts: wall-clock seconds since the Unix epoch.
    public var at: Double
    /// The last attempt's failure, as ``FailureReason/code`` and ``FailureReason/detail`` give it.
    public var code: String
    public var detail: String

    /// A wait; `detail` is kept only when it cannot carry a URL or a login (``safeDetail(_:)``).
    public init(attempt: Int, of: Int?, at: Double, code: String, detail: String) {
        self.attempt = attempt
        self.of = of
        self.at = at
        self.code = code
        self.detail = Self.safeDetail(detail)
    }

    /// `retrying in 2 s (attempt 3 of 6): the server answered HTTP 500`, counted from `now` (wall-clock seconds);
    /// `retrying now` once the time has come.
    public func line(now: Double) -> String {
        let left = Int((at - now).rounded(.up))
        let when = left > 0 ? "in \(left) s" : "now"
        let count = of.map { "attempt \(attempt) of \($0)" } ?? "attempt \(attempt)"
        return "retrying \(when) (\(count)): \(FailureReason.sentence(code: code, detail: detail))"
    }

    /// The detail of a failure as the activity may carry it: a message that looks like it holds a URL or a login
    /// (`://`, `@`) is dropped, control characters become spaces, and at most 160 characters are kept.
    public static func safeDetail(_ text: String) -> String {
        guard !text.contains("://"), !text.contains("@") else { return "" }
        let cleaned = String(
            text.unicodeScalars.map { $0.value < 0x20 || $0.value == 0x7F ? " " : Character($0) })
        return String(cleaned.prefix(160))
    }

    /// Wall-clock seconds since the Unix epoch.
    public static func wallClock() -> Double {
        var time = timespec()
        clock_gettime(CLOCK_REALTIME, &time)
        return Double(time.tv_sec) + Double(time.tv_nsec) / 1e9
    }
}
