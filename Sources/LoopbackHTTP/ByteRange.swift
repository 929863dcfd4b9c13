/// How a `Range` header applies to a representation of a given size.
enum ByteRange: Equatable {
    /// No usable single byte range (absent, malformed, other unit, several ranges): answer 200 with everything.
    case ignored
    /// Answer 206 with these bytes.
    case satisfiable(Range<Int64>)
    /// Answer 416 with `Content-Range: bytes */size`.
    case unsatisfiable

    /// Resolves `header` (e.g. `bytes=0-99`, `bytes=100-`, `bytes=-50`) against a body of `size` bytes.
    static func resolve(_ header: String, size: Int64) -> ByteRange {
        let trimmed = header.trimmingSpaces()
        guard let equals = trimmed.firstIndex(of: "="),
            trimmed[..<equals].trimmingSpaces().lowercased() == "bytes"
        else { return .ignored }
        let spec = trimmed[trimmed.index(after: equals)...].trimmingSpaces()
        guard !spec.contains(","), let dash = spec.firstIndex(of: "-") else { return .ignored }
        let first = spec[..<dash].trimmingSpaces()
        let last = spec[spec.index(after: dash)...].trimmingSpaces()

        if first.isEmpty {
            guard let suffix = number(last) else { return .ignored }
            guard suffix > 0, size > 0 else { return .unsatisfiable }
            return .satisfiable(max(0, size - suffix)..<size)
        }
        guard let start = number(first) else { return .ignored }
        var end = Int64.max
        if !last.isEmpty {
            guard let parsed = number(last), parsed >= start else { return .ignored }
            end = parsed
        }
        guard start < size else { return .unsatisfiable }
        return .satisfiable(start..<min(end, size - 1) + 1)
    }

    /// A non-negative decimal; digits beyond Int64 saturate, which the clamping above absorbs.
    private static func number(_ text: String) -> Int64? {
        guard !text.isEmpty, text.utf8.allSatisfy({ $0 >= UInt8(ascii: "0") && $0 <= UInt8(ascii: "9") })
        else { return nil }
        return Int64(text) ?? .max
    }
}

extension StringProtocol {
    /// The text without leading and trailing spaces and tabs.
    func trimmingSpaces() -> String {
        let isSpace: (Character) -> Bool = { $0 == " " || $0 == "\t" }
        guard let first = firstIndex(where: { !isSpace($0) }), let last = lastIndex(where: { !isSpace($0) })
        else { return "" }
        return String(self[first...last])
    }
}
