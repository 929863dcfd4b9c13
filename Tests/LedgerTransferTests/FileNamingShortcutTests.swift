import Testing

@testable import LedgerTransfer

struct FileNamingShortcutTests {
    /// The shortcut for plain names returns exactly what the general sanitizing would, on names made of plain
    /// characters mixed with every kind of character it must leave to the general path.
    @Test func plainNameShortcutAgreesWithTheGeneralPath() {
        let alphabet = Array("aZ09-_.+~,=@ /\\\t\u{1}\u{202E}é%")
        var state: UInt64 = 0x1234_5678_9ABC_DEF1
        func next(_ bound: Int) -> Int {
            state ^= state << 13
            state ^= state >> 7
            state ^= state << 17
            return Int(state % UInt64(bound))
        }
        var plain = 0
        for _ in 0..<20_000 {
            let length = next(12) + 1
            let name = String((0..<length).map { _ in alphabet[next(alphabet.count)] })
            if FileNaming.isPlainName(name) { plain += 1 }
            #expect(
                FileNaming.sanitize(name) == FileNaming.sanitizeInGeneral(name), "\(name.debugDescription)")
        }
        #expect(plain > 100)
        let long = String(repeating: "a", count: 300) + ".bin"
        #expect(!FileNaming.isPlainName(long))
        #expect(FileNaming.sanitize(long) == FileNaming.sanitizeInGeneral(long))
        #expect(FileNaming.isPlainName("f001.bin"))
        #expect(!FileNaming.isPlainName(".hidden") && !FileNaming.isPlainName("trailing."))
    }
}
