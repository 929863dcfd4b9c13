import LedgerCore

/// A line of text being typed: what it is for, the text and the caret.
public struct Prompt: Sendable, Equatable {
    /// What the text becomes on Enter.
    public enum Purpose: Sendable, Equatable {
        /// URLs (one or many lines, or separated by spaces) added at `placement`.
        case addURLs(AddPlacement, label: String)
        /// The title of a new section, then its URLs.
        case newSectionForURLs(at: Int?)
        case insertSection(at: Int?)
        case renameSection(Int)
        case renameTask(TaskID)
        case maxDownloads
        case speedLimit
        /// A seq or a time to show in the history scrubber.
        case historyJump
        /// Text to find in the names and URLs of the view (`/`).
        case search
    }

    public var purpose: Purpose
    public var label: String
    public var text: [Character]
    public var caret: Int

    public init(_ purpose: Purpose, label: String, text: String = "") {
        self.purpose = purpose
        self.label = label
        self.text = Array(text)
        self.caret = self.text.count
    }

    public var value: String { String(text) }

    /// Edits the text with one key. Returns false when the key is not an editing key.
    mutating func edit(_ key: Key) -> Bool {
        switch key {
        case .char(let c):
            text.insert(c, at: caret)
            caret += 1
        case .paste(let s):
            let clean = Array(s.replacingNewlines(with: isMultiLine ? "\n" : " "))
            text.insert(contentsOf: clean, at: caret)
            caret += clean.count
        case .backspace:
            if caret > 0 {
                text.remove(at: caret - 1)
                caret -= 1
            }
        case .delete:
            if caret < text.count { text.remove(at: caret) }
        case .left: caret = max(0, caret - 1)
        case .right: caret = min(text.count, caret + 1)
        case .home, .ctrl("a"): caret = 0
        case .end, .ctrl("e"): caret = text.count
        case .ctrl("u"):
            text.removeFirst(caret)
            caret = 0
        case .ctrl("k"): text.removeLast(text.count - caret)
        default: return false
        }
        return true
    }

    /// Whether pasted newlines are kept (a list of URLs).
    var isMultiLine: Bool {
        if case .addURLs = purpose { return true }
        return false
    }
}

extension String {
    /// Each line break (CR, LF, CRLF) replaced by `with`; tabs become spaces.
    fileprivate func replacingNewlines(with replacement: String) -> String {
        var out = ""
        var lastWasCR = false
        for c in self {
            if c == "\r\n" || c == "\r" || c == "\n" {
                if !(c == "\n" && lastWasCR) { out += replacement }
                lastWasCR = c == "\r"
                continue
            }
            lastWasCR = false
            out.append(c == "\t" ? " " : c)
        }
        return out
    }
}
