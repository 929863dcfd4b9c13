import DownloadLedger
import LedgerFrontEnd

/// The live line of one running transfer, laid out for a terminal width: id and name first, then the fields by
/// how much they tell: percent, ETA, speed, bytes (`10.2 MB / 117 MB`), the connections of a transfer split into
/// pieces (`×16`, blank for one), bar. When the width is short the least useful go first (bar, then connections,
/// bytes, speed, ETA, percent), so the name keeps its length as long as anything else can give way.
struct ProgressLine {
    /// One field after the name, in display order; `rank` says which goes first when space runs out (lowest).
    enum Field: CaseIterable {
        case bar, percent, bytes, speed, connections, eta

        var rank: Int {
            switch self {
            case .bar: return 0
            case .connections: return 1
            case .bytes: return 2
            case .speed: return 3
            case .eta: return 4
            case .percent: return 5
            }
        }

        /// Width on the line, with the separator before it.
        var width: Int {
            switch self {
            case .bar: return 1 + ProgressLine.barWidth
            case .percent: return 1 + 4
            case .bytes: return 2 + 19
            case .speed: return 2 + 10
            case .connections: return 1 + 3
            case .eta: return 2 + 9
            }
        }
    }

    static let barWidth = 20
    static let idWidth = 5
    /// The name is never cut below this while a field can still go.
    static let minimumName = 8

    /// The fields shown and the name column's width, for lines whose longest name has `longestName` characters.
    let fields: [Field]
    let nameWidth: Int

    init(width: Int, longestName: Int) {
        var shown = Field.allCases
        let fixed = Self.idWidth + 1
        func room() -> Int { width - fixed - shown.reduce(0) { $0 + $1.width } }
        // Fields go, least useful first, until the whole name fits.
        while room() < longestName, let least = shown.min(by: { $0.rank < $1.rank }) {
            shown.removeAll { $0 == least }
        }
        fields = shown
        nameWidth = max(Self.minimumName, min(room(), max(longestName, Self.minimumName)))
    }

    /// The line for `activity`, named `name`, at most `nameWidth` plus the fields wide.
    func line(_ a: TransferActivity, name: String) -> String {
        if let retry = a.retry {
            // Waiting out a backoff: when, which attempt and why, in place of a speed of zero.
            let room = nameWidth + fields.reduce(0) { $0 + $1.width }
            let words = Format.fit(name, nameWidth) + "  " + retry.line(now: RetryWait.wallClock())
            return Format.right("#\(a.id)", Self.idWidth) + " " + Format.fit(words, room)
        }
        let fraction = a.expected.map { $0 > 0 ? min(1, Double(a.bytes) / Double($0)) : 1 }
        var line = Format.right("#\(a.id)", Self.idWidth) + " " + Format.fit(name, nameWidth)
        for field in fields {
            switch field {
            case .bar: line += " " + Self.bar(fraction, width: Self.barWidth)
            case .percent: line += " " + Format.right(fraction.map { "\(Int($0 * 100))%" } ?? "", 4)
            case .bytes: line += "  " + Format.right(a.detail, 19)
            case .speed: line += "  " + Format.right(Format.rate(a.speed), 10)
            case .connections: line += " " + Format.right(a.connections > 1 ? "×\(a.connections)" : "", 3)
            case .eta: line += "  " + Format.fit(a.eta.map { "ETA " + Format.duration($0) } ?? "", 9)
            }
        }
        return line
    }

    static func bar(_ fraction: Double?, width: Int) -> String {
        guard let fraction else { return "[" + String(repeating: "·", count: width - 2) + "]" }
        let filled = Int((fraction * Double(width - 2)).rounded(.down))
        return "[" + String(repeating: "█", count: filled) + String(repeating: "░", count: width - 2 - filled)
            + "]"
    }
}
