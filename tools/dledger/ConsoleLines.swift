/// Lines of text gathered as bytes in one buffer and handed on in pieces of about 256 KB: a table of 100,000 rows
/// makes no string per row and one write(2) per piece rather than per line.
///
/// Text from a ledger, an input file or a server goes through ``text(_:)``, which shows every character that could
/// steer the terminal as an escape, exactly as ``Console/visible(_:)`` does for a whole line.
struct ConsoleLines {
    let color: Bool
    private var bytes: [UInt8] = []
    private let flush: ([UInt8]) -> Void
    private static let chunk = 1 << 18
    /// Padding copied from, in place of a byte at a time.
    private static let blanks = [UInt8](repeating: UInt8(ascii: " "), count: 32)

    init(color: Bool, flush: @escaping ([UInt8]) -> Void) {
        self.color = color
        self.flush = flush
        bytes.reserveCapacity(Self.chunk + 4096)
    }

    /// `s`, with steering characters escaped (this console's own style sequences kept when colors are on).
    mutating func text(_ s: String) {
        // Most text has no byte that can start a steering character (C0 controls but tab and newline, DEL, and
        // the lead bytes of the C1 controls and of the bidi controls): then its bytes are the text shown.
        // A native string's bytes are scanned and copied where they lie (no iterator per byte).
        let done = s.utf8.withContiguousStorageIfAvailable { b in
            guard b.allSatisfy(Self.isQuiet) else { return false }
            bytes.append(contentsOf: b)
            return true
        }
        if done == true { return }
        let quiet = done == nil && s.utf8.allSatisfy(Self.isQuiet)
        bytes.append(contentsOf: quiet ? s.utf8 : Console.visible(s, keepingStyles: color).utf8)
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

    /// `s` right-aligned in `width` characters.
    mutating func right(_ s: String, _ width: Int) {
        let length = s.utf8.allSatisfy { $0 < 0x80 } ? s.utf8.count : s.count
        spaces(width - length)
        text(s)
    }

    /// `prefix` then the decimal digits of `n`, right-aligned in `width` characters.
    mutating func right(_ prefix: String = "", _ n: Int64, _ width: Int) {
        spaces(width - prefix.utf8.count - Self.digits(n))
        bytes.append(contentsOf: prefix.utf8)
        decimal(n)
    }

    mutating func spaces(_ n: Int) {
        if n > 0 && n <= Self.blanks.count {
            bytes.append(contentsOf: Self.blanks[..<n])
        } else if n > 0 {
            bytes.append(contentsOf: repeatElement(UInt8(ascii: " "), count: n))
        }
    }

    /// Ends the line; a full buffer is handed on.
    mutating func newline() {
        bytes.append(UInt8(ascii: "\n"))
        if bytes.count >= Self.chunk {
            flush(bytes)
            bytes.removeAll(keepingCapacity: true)
        }
    }

    /// Hands on what is left.
    mutating func finish() {
        if !bytes.isEmpty { flush(bytes) }
        bytes.removeAll(keepingCapacity: true)
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
        if n < 0 { bytes.append(UInt8(ascii: "-")) }
        let start = bytes.count
        var rest = n.magnitude
        repeat {
            bytes.append(UInt8(ascii: "0") + UInt8(rest % 10))
            rest /= 10
        } while rest > 0
        bytes[start...].reverse()
    }

    private mutating func escape(_ code: String) {
        bytes.append(0x1B)
        bytes.append(UInt8(ascii: "["))
        bytes.append(contentsOf: code.utf8)
        bytes.append(UInt8(ascii: "m"))
    }
}
