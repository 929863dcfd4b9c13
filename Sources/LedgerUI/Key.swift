/// One key press (or one paste) as the terminal sent it.
public enum Key: Sendable, Equatable, Hashable {
    /// A printable character.
    case char(Character)
    /// Ctrl with a letter: `.ctrl("r")` for Ctrl-R.
    case ctrl(Character)
    case enter, escape, backspace, delete, tab
    case up, down, left, right, pageUp, pageDown, home, end
    /// Text pasted while bracketed paste was on: newlines in it do not submit anything.
    case paste(String)
}

/// Turns the bytes read from a terminal in raw mode into keys.
///
/// Understands UTF-8, C0 control keys, CSI and SS3 sequences for arrows and editing keys, and bracketed paste
/// (`ESC [ 200 ~` … `ESC [ 201 ~`). A sequence cut between two reads is kept until the next one; an `ESC` that
/// nothing follows is the Escape key (`flush()`).
public struct KeyParser: Sendable {
    private var pending: [UInt8] = []
    private var pasting: [UInt8]?

    public init() {}

    /// Whether an unfinished sequence waits for more bytes (the caller then calls `flush()` after a short wait).
    public var hasPending: Bool { !pending.isEmpty && pasting == nil }

    /// The keys in `bytes`, given what earlier calls left unfinished.
    public mutating func feed(_ bytes: [UInt8]) -> [Key] {
        pending += bytes
        var keys: [Key] = []
        var i = 0
        while i < pending.count {
            if pasting != nil {
                if let end = find(Self.pasteEnd, from: i) {
                    pasting! += pending[i..<end]
                    keys.append(.paste(String(decoding: pasting!, as: UTF8.self)))
                    pasting = nil
                    i = end + Self.pasteEnd.count
                    continue
                }
                // Keep a tail that may be the start of the end marker.
                let keep = min(pending.count - i, Self.pasteEnd.count - 1)
                pasting! += pending[i..<(pending.count - keep)]
                i = pending.count - keep
                break
            }
            guard let (key, used) = parse(at: i) else { break }
            if let key { keys.append(key) }
            i += used
        }
        pending.removeFirst(i)
        return keys
    }

    /// Ends an unfinished sequence: a lone `ESC` is the Escape key; other partial bytes are dropped.
    public mutating func flush() -> [Key] {
        guard pasting == nil, !pending.isEmpty else { return [] }
        let first = pending.first
        pending = []
        return first == 0x1B ? [.escape] : []
    }

    private static let pasteEnd: [UInt8] = Array("\u{1B}[201~".utf8)

    private func find(_ needle: [UInt8], from: Int) -> Int? {
        guard pending.count - from >= needle.count else { return nil }
        for start in from...(pending.count - needle.count)
        where pending[start] == needle[0] && Array(pending[start..<start + needle.count]) == needle {
            return start
        }
        return nil
    }

    /// The key at `i` and the bytes it used; nil when more bytes are needed. A nil key is a sequence ignored.
    private mutating func parse(at i: Int) -> (Key?, Int)? {
        let b = pending[i]
        switch b {
        case 0x1B: return escape(at: i)
        case 0x0D, 0x0A: return (.enter, 1)
        case 0x09: return (.tab, 1)
        case 0x7F, 0x08: return (.backspace, 1)
        case 0x01...0x1A: return (.ctrl(Character(Unicode.Scalar(b + 0x60))), 1)
        case 0x00, 0x1C...0x1F: return (nil, 1)
        case 0x20...0x7E: return (.char(Character(Unicode.Scalar(b))), 1)
        default: return utf8(at: i)
        }
    }

    private func utf8(at i: Int) -> (Key?, Int)? {
        let b = pending[i]
        // 0x80…0xC1 and 0xF8…0xFF start no character (a continuation byte, an overlong form, no such length).
        let length = b >= 0xF8 ? 1 : b >= 0xF0 ? 4 : b >= 0xE0 ? 3 : b >= 0xC2 ? 2 : 1
        guard length > 1 else { return (nil, 1) }
        // A byte that cannot continue the sequence ends it now, rather than waiting for bytes that cannot mend it
        // (and a flush dropping the keys typed after it).
        for k in 1..<min(length, pending.count - i) where pending[i + k] & 0xC0 != 0x80 { return (nil, 1) }
        guard pending.count - i >= length else { return nil }
        let bytes = pending[i..<i + length]
        let text = String(decoding: bytes, as: UTF8.self)
        // Valid when it reads back as the same bytes (a typed U+FFFD is a character like any other; a broken
        // sequence, read as U+FFFD, is not).
        guard let c = text.first, text.utf8.elementsEqual(bytes) else { return (nil, 1) }
        return (.char(c), length)
    }

    private mutating func escape(at i: Int) -> (Key?, Int)? {
        guard i + 1 < pending.count else { return nil }
        let next = pending[i + 1]
        if next == UInt8(ascii: "O") {
            guard i + 2 < pending.count else { return nil }
            let keys: [UInt8: Key] = [
                0x41: .up, 0x42: .down, 0x43: .right, 0x44: .left, 0x48: .home, 0x46: .end,
            ]
            return (keys[pending[i + 2]], 3)
        }
        guard next == UInt8(ascii: "[") else {
            // ESC then a key: Alt-key, read as Escape followed by the key.
            return (.escape, 1)
        }
        var j = i + 2
        while j < pending.count, (0x30...0x3F).contains(pending[j]) { j += 1 }
        guard j < pending.count else { return nil }
        let params = String(decoding: pending[(i + 2)..<j], as: UTF8.self)
        let final = pending[j]
        let used = j - i + 1
        switch final {
        case UInt8(ascii: "A"): return (.up, used)
        case UInt8(ascii: "B"): return (.down, used)
        case UInt8(ascii: "C"): return (.right, used)
        case UInt8(ascii: "D"): return (.left, used)
        case UInt8(ascii: "H"): return (.home, used)
        case UInt8(ascii: "F"): return (.end, used)
        case UInt8(ascii: "~"):
            switch params {
            case "200":
                pasting = []
                return (nil, used)
            case "1", "7": return (.home, used)
            case "4", "8": return (.end, used)
            case "3": return (.delete, used)
            case "5": return (.pageUp, used)
            case "6": return (.pageDown, used)
            default: return (nil, used)
            }
        default:
            return (nil, used)
        }
    }
}
