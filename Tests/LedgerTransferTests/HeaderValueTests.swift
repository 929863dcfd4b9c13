import Testing

@testable import LedgerTransfer

/// The header values the loop reads byte by byte: what a response's `Content-Length` and `Accept-Ranges` say.
@Suite struct HeaderValueTests {
    /// Digits, or one number repeated in a list (RFC 9110 lets a proxy send `12, 12`), blanks around each.
    @Test(arguments: [
        ("12", true), ("0", true), (" 12\t", true), ("12, 12", true), ("12,12 ,\t12", true),
        ("18446744073709551616", true),
        ("", false), (" ", false), ("12,", false), (",12", false), ("12, 13", false), ("1 2", false),
        ("-1", false), ("+1", false), ("0x10", false), ("12a", false), ("١٢", false), ("12, 12a", false),
    ])
    func aContentLengthIsDigitsOrOneNumberRepeated(value: String, valid: Bool) {
        #expect(Attempt.isContentLength(value) == valid, "'\(value)'")
    }

    /// `bytes` anywhere in the value, in any case; nothing else counts.
    @Test(arguments: [
        ("bytes", true), ("Bytes", true), ("BYTES", true), ("none, bytes", true), (" bytes ", true),
        ("none", false), ("", false), ("byte", false), ("b y t e s", false), ("bytés", false),
    ])
    func acceptRangesNamesTheBytesUnit(value: String, named: Bool) {
        #expect(Attempt.containsBytesUnit(value) == named, "'\(value)'")
    }
}
