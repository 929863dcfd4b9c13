import Testing

@testable import LedgerCore

/// Integers read back exactly to both ends of Int64, and one past either end is refused, never wrapped.
@Suite struct JSONReaderNumberTests {
    static func read(_ text: String) throws -> Int64 {
        var bytes = Array(text.utf8)
        return try bytes.withUnsafeMutableBytes { buffer in
            var reader = JSONReader(UnsafeRawBufferPointer(buffer))
            return try reader.int()
        }
    }

    @Test(arguments: [Int64.min, Int64.min + 1, -1, 0, 1, Int64.max - 1, Int64.max])
    func anInt64ReadsBackAsWritten(_ value: Int64) throws {
        #expect(try Self.read(String(value)) == value)
    }

    @Test(arguments: ["-9223372036854775809", "9223372036854775808", "-99999999999999999999", "-", ""])
    func aNumberOutsideInt64OrNoNumberIsRefused(_ text: String) {
        #expect(throws: PayloadError.self) { try Self.read(text) }
    }
}
