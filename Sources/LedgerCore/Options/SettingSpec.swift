/// One row of the ``Setting`` table: how a value setting is logged, checked, named and described.
public struct SettingSpec: Sendable {
    /// What the value is, which says how a front end reads and shows it.
    public enum Unit: Sendable {
        /// A whole number.
        case count
        /// Bytes per second.
        case rate
        /// Bytes, a bare K, M, G counting 1000 (`500M`).
        case bytes
        /// Bytes, a bare K, M, G counting 1024 (aria2's `4M` is 4 MiB).
        case binaryBytes
        /// Seconds.
        case seconds
        /// A text, checked (and trimmed) by the function given; empty is the default.
        case text(@Sendable (String) throws -> String)
    }

    /// The event that records a change.
    public let kind: EventKind
    /// The payload's one field, holding the value.
    public let key: StaticString
    /// The user's word for it: its `set` name, or its own command's.
    public let name: String
    public let unit: Unit
    /// The numbers it may take besides 0 (the default); unused for a text.
    public let range: ClosedRange<Int64>
    /// What a refusal calls it, and the values it takes in words: "speed limit", "0 or more".
    let subject: String
    let rangeWords: String
    /// After the number a refusal quotes (" bytes").
    let rangeUnit: String
    /// A line or two for `--help`.
    public let help: String
    /// True when it has a command of its own (`limit`, `speed-limit`, `connections`), so `set` leaves it out.
    public let ownCommand: Bool
    /// Why the value given is the value it has.
    let already: @Sendable (SettingValue) -> String

    init(
        kind: EventKind, key: StaticString, name: String, unit: Unit, range: ClosedRange<Int64>,
        subject: String,
        rangeWords: String, rangeUnit: String = "", help: String, ownCommand: Bool = false,
        already: @escaping @Sendable (SettingValue) -> String
    ) {
        self.kind = kind
        self.key = key
        self.name = name
        self.unit = unit
        self.range = range
        self.subject = subject
        self.rangeWords = rangeWords
        self.rangeUnit = rangeUnit
        self.help = help
        self.ownCommand = ownCommand
        self.already = already
    }

    /// True for a text setting.
    public var isText: Bool {
        if case .text = unit { return true }
        return false
    }

    /// The value it has until set: 0 or the empty text.
    public var defaultValue: SettingValue { isText ? .text("") : .number(0) }

    /// The value as the setting keeps it (a text trimmed).
    /// - Throws: `LedgerError.invalidValue` when it is out of range, of the other type, or a text its check refuses.
    public func checked(_ value: SettingValue) throws -> SettingValue {
        if case .text(let check) = unit {
            guard value.isText else { throw LedgerError.invalidValue("\(subject) takes a text") }
            return value.text.isEmpty ? value : .text(try check(value.text))
        }
        guard !value.isText else { throw LedgerError.invalidValue("\(subject) takes a number") }
        let n = value.number
        guard n == 0 || range.contains(n) else {
            throw LedgerError.invalidValue("\(subject) must be \(rangeWords), not \(n)\(rangeUnit)")
        }
        return value
    }

    /// Whether a logged value is one ``checked(_:)`` lets through unchanged.
    func isValid(_ value: SettingValue) -> Bool {
        guard let kept = try? checked(value) else { return false }
        return kept == value
    }
}
