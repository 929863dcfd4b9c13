/// Which bytes of a file of known size are in its partial file: the written ranges, sorted, disjoint and merged.
///
/// A segmented transfer writes several pieces of one file at once, so its partial file has holes. The map is what
/// tells the written bytes from the holes: it is kept on the partial file (``PartialFile/writePieces(_:)``, an
/// extended attribute) and updated after every write, never before, so it never claims a byte that is not in the
/// file. Read back at the next start, it is trusted no further than the file's size and its own consistency
/// (``decode(_:fileSize:)``); the missing ranges are then asked for, each with its own `Range`.
struct PieceMap: Equatable {
    /// Size of the whole file.
    let size: Int64
    /// The written ranges: sorted, disjoint, never touching (adjacent ranges are merged), within `0..<size`.
    private(set) var done: [Range<Int64>]

    /// A map of a file of `size` bytes whose first `prefix` bytes are written.
    init(size: Int64, prefix: Int64 = 0) {
        self.size = size
        done = prefix > 0 ? [0..<min(prefix, size)] : []
    }

    /// Records `range` as written (clipped to the file).
    mutating func add(_ range: Range<Int64>) {
        let lower = max(range.lowerBound, 0)
        let upper = min(range.upperBound, size)
        guard lower < upper else { return }
        let range = lower..<upper
        // The first range that ends at or after the new one's start: everything before it stays.
        var low = 0
        var high = done.count
        while low < high {
            let middle = (low + high) / 2
            if done[middle].upperBound < range.lowerBound { low = middle + 1 } else { high = middle }
        }
        var merged = range
        var last = low
        while last < done.count && done[last].lowerBound <= merged.upperBound {
            merged =
                min(merged.lowerBound, done[last].lowerBound)..<max(merged.upperBound, done[last].upperBound)
            last += 1
        }
        done.replaceSubrange(low..<last, with: [merged])
    }

    /// Bytes written.
    var doneBytes: Int64 { done.reduce(0) { $0 + Int64($1.count) } }

    /// Length of the written run from byte 0: what the hash can follow.
    var prefix: Int64 { done.first.map { $0.lowerBound == 0 ? $0.upperBound : 0 } ?? 0 }

    /// Whether every byte is written.
    var isComplete: Bool { prefix == size }

    /// The holes, in order.
    var missing: [Range<Int64>] {
        var holes: [Range<Int64>] = []
        var at: Int64 = 0
        for range in done {
            if range.lowerBound > at { holes.append(at..<range.lowerBound) }
            at = range.upperBound
        }
        if at < size { holes.append(at..<size) }
        return holes
    }

    /// The most ranges a map may hold: a transfer has at most one hole per piece in flight, and a map read back
    /// with more than this is not one we wrote.
    static let maxRanges = 512

    /// The map as kept on disk: `dledger-pieces 1`, the size, then one `first-end` line per written range.
    func encoded() -> [UInt8] {
        var text = "dledger-pieces 1\n\(size)\n"
        for range in done { text += "\(range.lowerBound)-\(range.upperBound)\n" }
        return Array(text.utf8)
    }

    /// Reads a map written by ``encoded()``, with distrust: nil unless the header, the size and every range are well
    /// formed, sorted, disjoint, within the size and at most ``maxRanges``. Ranges beyond the file's actual size
    /// (`fileSize`) are cut to it: those bytes never reached the file.
    static func decode(_ bytes: [UInt8], fileSize: Int64) -> PieceMap? {
        guard bytes.count <= 64 * 1024 else { return nil }
        let lines = String(decoding: bytes, as: UTF8.self).split(
            separator: "\n", omittingEmptySubsequences: false)
        guard lines.count >= 3, lines[0] == "dledger-pieces 1", lines.last == "",
            let size = number(lines[1]), size > 0, lines.count - 3 <= maxRanges
        else { return nil }
        var map = PieceMap(size: size)
        var previousEnd: Int64 = -1
        for line in lines[2..<(lines.count - 1)] {
            let bounds = line.split(separator: "-", omittingEmptySubsequences: false)
            guard bounds.count == 2, let first = number(bounds[0]), let end = number(bounds[1]),
                first < end, end <= size, first > previousEnd
            else { return nil }
            previousEnd = end
            if first < fileSize { map.add(first..<min(end, fileSize)) }
        }
        return map
    }

    /// A non-negative decimal without sign or spaces, below 2^62.
    private static func number(_ text: Substring) -> Int64? {
        guard !text.isEmpty, text.count <= 18, text.utf8.allSatisfy({ $0 >= 48 && $0 <= 57 }) else {
            return nil
        }
        return Int64(text)
    }
}
