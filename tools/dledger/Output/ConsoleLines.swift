import LedgerTransfer

/// Lines of text gathered as bytes in one buffer and handed on in pieces of about 256 KB: a table of 100,000 rows
/// makes no string per row and one write(2) per piece rather than per line.
///
/// Text from a ledger, an input file or a server goes through ``text(_:)``, which shows every character that could
/// steer the terminal as an escape, exactly as ``Console/visible(_:)`` does for a whole line. The table's own
/// words and figures are written as bytes in place (``word(_:)``, ``right(_:_:_:)``, ``rightBytes(_:_:)``).
struct ConsoleLines {
    let color: Bool
    /// The buffer, of a fixed size (grown only for a line longer than what is left of it): bytes are written in
    /// place through a pointer, without a check of the array per byte.
    private var bytes: [UInt8]
    private var used = 0
    private let flush: (UnsafeRawBufferPointer) -> Void
    private static let chunk = 1 << 18

    init(color: Bool, flush: @escaping (UnsafeRawBufferPointer) -> Void) {
        self.color = color
        self.flush = flush
        bytes = [UInt8](repeating: 0, count: Self.chunk + 4096)
    }

    /// Room for `n` more bytes, then `body` writes them at the pointer it is given.
    @inline(__always)
    private mutating func put(_ n: Int, _ body: (UnsafeMutablePointer<UInt8>) -> Void) {
        if used + n > bytes.count { bytes.append(contentsOf: repeatElement(0, count: max(n, Self.chunk))) }
        let at = used
        bytes.withUnsafeMutableBufferPointer { body($0.baseAddress! + at) }
        used += n
    }

    @inline(__always)
    private mutating func put(_ b: UnsafeBufferPointer<UInt8>) {
        guard let base = b.baseAddress, b.count > 0 else { return }
        put(b.count) { $0.update(from: base, count: b.count) }
    }

    /// `s`, with steering characters escaped (this console's own style sequences kept when colors are on).
    mutating func text(_ s: String) {
        // Most text has no byte that can start a steering character (C0 controls but tab and newline, DEL, and
        // the lead bytes of the C1 controls and of the bidi controls): then its bytes are the text shown.
        // A native string's bytes are scanned and copied where they lie (no iterator per byte).
        let done = s.utf8.withContiguousStorageIfAvailable { b in
            guard b.allSatisfy(Self.isQuiet) else { return false }
            put(b)
            return true
        }
        if done == true { return }
        var shown =
            done == nil && s.utf8.allSatisfy(Self.isQuiet) ? s : Console.visible(s, keepingStyles: color)
        shown.withUTF8 { put($0) }
    }

    /// A word of the table's own (never text from outside), as it is.
    mutating func word(_ s: StaticString) {
        put(UnsafeBufferPointer(start: s.utf8Start, count: s.utf8CodeUnitCount))
    }

    @inline(__always)
    private static func isQuiet(_ b: UInt8) -> Bool {
        b >= 0x20 ? b != 0x7F && b != 0xC2 && b != 0xE2 : b == 0x09 || b == 0x0A
    }

    /// `s` in a style when colors are on.
    mutating func styled(_ s: String, _ style: Console.Style) {
        guard color else { return text(s) }
        escape(style.rawValue)
        text(s)
        escape("0")
    }

    /// A word of the table's own in a style when colors are on.
    mutating func styled(_ s: StaticString, _ style: Console.Style) {
        guard color else { return word(s) }
        escape(style.rawValue)
        word(s)
        escape("0")
    }

    /// `s` right-aligned in `width` characters.
    mutating func right(_ s: String, _ width: Int) {
        let length = s.utf8.allSatisfy { $0 < 0x80 } ? s.utf8.count : s.count
        spaces(width - length)
        text(s)
    }

    /// `prefix` then the decimal digits of `n`, right-aligned in `width` characters.
    mutating func right(_ prefix: StaticString = "", _ n: Int64, _ width: Int) {
        spaces(width - prefix.utf8CodeUnitCount - Self.digits(n))
        word(prefix)
        decimal(n)
    }

    /// A byte count as ``TransferActivity/formatBytes(_:)`` writes it (`"10.2 MB"`), then, with `of`, `" / "` and
    /// that size the same way; right-aligned in `width` characters.
    mutating func rightBytes(_ n: Int64, of size: Int64? = nil, _ width: Int) {
        let figure = TransferActivity.byteFigure(n)
        let total = size.map(TransferActivity.byteFigure)
        spaces(width - Self.length(figure) - (total.map { 3 + Self.length($0) } ?? 0))
        put(figure)
        if let total {
            word(" / ")
            put(total)
        }
    }

    private static func length(_ f: (whole: Int, tenth: Int?, unit: Int)) -> Int {
        digits(Int64(f.whole)) + (f.tenth == nil ? 0 : 2) + 1 + TransferActivity.byteUnits[f.unit].utf8.count
    }

    private mutating func put(_ f: (whole: Int, tenth: Int?, unit: Int)) {
        decimal(Int64(f.whole))
        if let tenth = f.tenth {
            word(".")
            decimal(Int64(tenth))
        }
        word(" ")
        var unit = TransferActivity.byteUnits[f.unit]
        unit.withUTF8 { put($0) }
    }

    mutating func spaces(_ n: Int) {
        guard n > 0 else { return }
        put(n) { $0.update(repeating: UInt8(ascii: " "), count: n) }
    }

    /// Ends the line; a full buffer is handed on.
    mutating func newline() {
        put(1) { $0.pointee = UInt8(ascii: "\n") }
        if used >= Self.chunk { finish() }
    }

    /// Hands on what is left.
    mutating func finish() {
        if used > 0 {
            let n = used
            bytes.withUnsafeBytes { flush(UnsafeRawBufferPointer(rebasing: $0[..<n])) }
        }
        used = 0
    }

    /// The characters `n` takes in decimal, with its sign.
    static func digits(_ n: Int64) -> Int {
        var count = n < 0 ? 2 : 1
        var rest = n.magnitude / 10
        while rest > 0 {
            count += 1
            rest /= 10
        }
        return count
    }

    private mutating func decimal(_ n: Int64) {
        let count = Self.digits(n)
        put(count) { out in
            if n < 0 { out.pointee = UInt8(ascii: "-") }
            var rest = n.magnitude
            var at = count
            repeat {
                at -= 1
                out[at] = UInt8(ascii: "0") + UInt8(rest % 10)
                rest /= 10
            } while rest > 0
        }
    }

    private mutating func escape(_ code: String) {
        word("\u{1B}[")
        var code = code
        code.withUTF8 { put($0) }
        word("m")
    }
}
