import LedgerFrontEnd
import LedgerTransfer
import Testing

@testable import dledger

/// `ls` writes its rows as bytes (``ConsoleLines``): sizes, ids, padding and hostile text come out as the strings
/// they stand for would.
struct ConsoleLinesTests {
    /// What `body` writes, handed on in one or more pieces.
    func written(_ body: (inout ConsoleLines) -> Void) -> String {
        var out: [UInt8] = []
        var lines = ConsoleLines(color: false) { out.append(contentsOf: $0) }
        body(&lines)
        lines.finish()
        return String(decoding: out, as: UTF8.self)
    }

    @Test func sizesAreTheFormattedStringsRightAligned() {
        var values: [Int64] = [
            0, 1, 999, 1000, 1049, 1050, 99_949, 99_950, 99_999, 100_000, 999_499, 999_500,
        ]
        values += [999_950_000, 4_700_000_000, 1_000_000_000_000_000, Int64.max, -1, Int64.min]
        var n: Int64 = 7
        while n < Int64.max / 13 {
            values.append(n)
            n = n * 13 + 5
        }
        for bytes in values {
            for size in [nil, 0, 99_950, Int64.max] as [Int64?] {
                let expected = Format.right(TransferActivity.detail(bytes: bytes, expected: size), 19)
                #expect(
                    written { $0.rightBytes(bytes, of: size, 19) } == expected, "\(bytes) of \(size as Any)")
            }
            #expect(written { $0.rightBytes(bytes, 3) } == Format.right(Format.bytes(bytes), 3))
        }
    }

    @Test func idsAndNumbersAreTheirDecimalDigits() {
        for n: Int64 in [0, 7, 10, 99_999, 100_000, -1, -42, Int64.max, Int64.min] {
            #expect(written { $0.right("#", n, 9) } == Format.right("#\(n)", 9))
            #expect(written { $0.right("", n, 2) } == Format.right("\(n)", 2))
        }
    }

    @Test func aLineLongerThanTheBufferAndHostileTextComeOutWhole() {
        let long = String(repeating: "é", count: 300_000)
        let text = written {
            $0.spaces(3)
            $0.text(long)
            $0.newline()
            $0.text("a\u{1B}]0;x\u{07}b")
            $0.word(" ok")
            $0.newline()
        }
        #expect(text == "   " + long + "\n" + "a\\x1B]0;x\\x07b ok\n")
    }
}
