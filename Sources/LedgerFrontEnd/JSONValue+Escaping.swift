import LedgerCore

/// The one escaping rule of every JSON a front end writes: the CLI's `--json`, `log --json` and the RPC's replies.
///
/// Besides `"` and `\`, a string's control characters (C0, DEL and C1: U+0000–U+001F, U+007F–U+009F), the line
/// and paragraph separators (U+2028, U+2029) and the bidirectional controls (``Validation/isBidiControl(_:)``:
/// U+061C, U+200E, U+200F, U+202A–U+202E, U+2066–U+2069) are written as `\uXXXX` (`\n`, `\r`, `\t` by their
/// short forms). A file name from a server then cannot reorder or recolour the terminal that shows the JSON, nor
/// break a client that embeds it in JavaScript. Every JSON reader takes `\uXXXX` for any character (RFC 8259 §7;
/// aria2's own parser, `JSON.parse` in AriaNg, Python's `json` in aria2p), so clients read the same strings.
extension JSONValue {
    /// Whether `scalar` is written as an escape inside a string.
    static func needsEscape(_ scalar: Unicode.Scalar) -> Bool {
        scalar == "\"" || scalar == "\\" || Validation.isControl(scalar) || Validation.isBidiControl(scalar)
            || scalar.value == 0x2028 || scalar.value == 0x2029
    }

    /// Appends `s` quoted, escaped by ``needsEscape(_:)``.
    static func quote(_ s: String, into out: inout String) {
        out += "\""
        // Most strings need no escape: append them whole. Every scalar escaped starts with one of these bytes
        // (0xC2 leads U+0080–U+00BF, 0xD8 U+061C, 0xE2 U+2000–U+2FFF).
        if !s.utf8.contains(where: {
            $0 < 0x20 || $0 == 0x7F || $0 == UInt8(ascii: "\"") || $0 == UInt8(ascii: "\\") || $0 == 0xC2
                || $0 == 0xD8 || $0 == 0xE2
        }) {
            out += s
            out += "\""
            return
        }
        for scalar in s.unicodeScalars {
            guard needsEscape(scalar) else {
                out.unicodeScalars.append(scalar)
                continue
            }
            switch scalar {
            case "\"": out += "\\\""
            case "\\": out += "\\\\"
            case "\n": out += "\\n"
            case "\r": out += "\\r"
            case "\t": out += "\\t"
            default:
                let hex = String(scalar.value, radix: 16)
                out += "\\u" + String(repeating: "0", count: 4 - hex.count) + hex
            }
        }
        out += "\""
    }
}
