import DownloadLedger
import Foundation
import Testing

@testable import LedgerFrontEnd

/// The one JSON value type: its escaping rule (what the CLI's `--json` and the RPC's replies both write), and
/// payloads read with the ledger's own reader (`log --json`).
@Suite struct JSONValueTests {
    /// Every scalar the rule escapes, and neighbours it does not.
    @Test func controlsSeparatorsAndBidiControlsAreWrittenAsEscapes() throws {
        let escaped: [(String, String)] = [
            ("\u{0}", #""\u0000""#), ("\u{1B}", #""\u001b""#), ("\n", #""\n""#), ("\t", #""\t""#),
            ("\u{7F}", #""\u007f""#), ("\u{85}", #""\u0085""#), ("\u{9B}", #""\u009b""#),
            ("\u{9F}", #""\u009f""#), ("\u{2028}", #""\u2028""#), ("\u{2029}", #""\u2029""#),
            ("\u{061C}", #""\u061c""#), ("\u{200E}", #""\u200e""#), ("\u{200F}", #""\u200f""#),
            ("\u{202A}", #""\u202a""#), ("\u{202E}", #""\u202e""#), ("\u{2066}", #""\u2066""#),
            ("\u{2069}", #""\u2069""#), ("\"", #""\"""#), ("\\", #""\\""#),
        ]
        for (text, json) in escaped {
            #expect(JSONValue.string(text).rendered() == json, "\(json)")
        }
        // Printable text around them is kept as it is, non-ASCII included (0xC2, 0xD8 and 0xE2 lead these).
        let kept = [
            "a/b", "é", "\u{A0}", "©", "\u{061B}", "\u{2013}", "…", "€", "\u{202F}", "\u{2065}", "☃", "🎬",
        ]
        for text in kept {
            #expect(JSONValue.string(text).rendered() == "\"\(text)\"", "\(text)")
        }
        #expect(
            JSONValue.string("report\u{202E}txt.exe \u{85}").rendered() == #""report\u202etxt.exe \u0085""#)
    }

    /// What the rule writes, Foundation's reader (as clients' readers) reads back as the same string.
    @Test func escapedTextReadsBackAsTheSameString() throws {
        let text = (0x00...0x3000).compactMap(Unicode.Scalar.init).map(String.init).joined()
        let json = JSONValue.array([.string(text)]).rendered()
        let read = try JSONSerialization.jsonObject(with: Data(json.utf8)) as? [String]
        #expect(read == [text])
        #expect(JSONValue(payload: Array(json.utf8)) == .array([.string(text)]))
        #expect(!json.unicodeScalars.contains { JSONValue.needsEscape($0) && $0 != "\"" && $0 != "\\" })
    }

    /// Keys are escaped by the same rule, in both layouts.
    @Test func keysFollowTheSameRuleCompactAndPretty() {
        let value = JSONValue.obj(["a\u{202E}": .array([.int(1), .null, .bool(true), .double(1.5)])])
        #expect(value.rendered() == #"{"a\u202e":[1,null,true,1.5]}"#)
        #expect(
            value.rendered(pretty: true)
                == "{\n  \"a\\u202e\": [\n    1,\n    null,\n    true,\n    1.5\n  ]\n}")
    }

    /// `log --json` shows a payload as the log stores it, read by the replay's reader: key order, escapes,
    /// integers at the edges of 64 bits (that reader stops at -(2^63 - 1)).
    @Test func aPayloadIsReadInItsOrderByTheLedgersReader() throws {
        let bytes = Array(
            #"{"z":1,"a":[-9223372036854775807,9223372036854775807],"s":"\u00e9\"\ud83c\udfac","k\"ey":null,"b":false}"#
                .utf8)
        let value = try #require(JSONValue(payload: bytes))
        #expect(value.keys == ["z", "a", "s", "k\"ey", "b"])
        #expect(value["a"] == .array([.int(-Int64.max), .int(Int64.max)]))
        #expect(value["s"] == .string("é\"🎬"))
        #expect(value["k\"ey"] == .null && value["b"] == .bool(false))
        // What the ledger's reader refuses is nil: fractions, text after the value, a bad surrogate pair.
        for bad in [#"{"a":1.5}"#, #"{"a":1} x"#, #""\ud83c\u0041""#, #"{"a":1"#, "", "[1,]"] {
            #expect(JSONValue(payload: Array(bad.utf8)) == nil, "\(bad)")
        }
    }

    /// A real event's payload, as `log --json` shows it: the stored fields in order, the entry's own fields apart.
    @Test func logJSONShowsTheStoredPayload() throws {
        let entry = Entry(.sectionInserted(index: 1, title: "Vidéos \u{202E}"), undoes: 4)
        let logged = LoggedEntry(seq: 9, time: 1_795_971_600_000, entry: entry)
        let json = EventWords.json(logged)
        #expect(json["kind"] == .string("sectionInserted") && json["undoes"] == .int(4))
        let payload = try #require(json["payload"])
        #expect(
            payload
                == JSONValue(payload: entry.encodedPayload()).map { value in
                    guard case .object(let fields) = value else { return value }
                    return .object(fields.filter { $0.0 != "undoes" })
                })
        #expect(payload.rendered().contains(#""Vidéos \u202e""#))
    }
}
