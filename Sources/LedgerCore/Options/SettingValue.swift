/// The value of a ``Setting``: a number (0: the default) or a text (empty: the default), by the setting's unit.
/// One shape for both, so the list keeps, compares and snapshots every setting alike.
public struct SettingValue: Sendable, Hashable {
    /// The number; 0 for a text setting.
    public var number: Int64
    /// The text; empty for a number setting.
    public var text: String
    /// Whether it is a text setting's value.
    public var isText: Bool

    /// A number setting's value.
    public static func number(_ n: Int64) -> SettingValue { SettingValue(number: n, text: "", isText: false) }

    /// A text setting's value.
    public static func text(_ s: String) -> SettingValue { SettingValue(number: 0, text: s, isText: true) }

    /// True for 0 and the empty text: the setting's default.
    public var isDefault: Bool { isText ? text.isEmpty : number == 0 }
}
