import Foundation

/// IMF-fixdate arithmetic (`Sun, 06 Nov 1994 08:49:37 GMT`), the HTTP-date form of `Last-Modified`.
enum HTTPDate {
    /// `value` moved by `seconds`; a value that is no IMF-fixdate becomes a fixed date so it still changes.
    static func adding(seconds: TimeInterval, to value: String) -> String {
        let formatter = formatter()
        guard let date = formatter.date(from: value) else { return "Thu, 01 Jan 2037 00:00:00 GMT" }
        return formatter.string(from: date.addingTimeInterval(seconds))
    }

    /// A new formatter each time: DateFormatter is not safe to share between threads.
    private static func formatter() -> DateFormatter {
        let formatter = DateFormatter()
        formatter.locale = Locale(identifier: "en_US_POSIX")
        formatter.timeZone = TimeZone(identifier: "GMT")
        formatter.dateFormat = "EEE, dd MMM yyyy HH:mm:ss 'GMT'"
        return formatter
    }
}
