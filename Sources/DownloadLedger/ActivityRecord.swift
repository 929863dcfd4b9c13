import LedgerTransfer

/// The text of a published activity snapshot (``FileActivityBoard``), written and read with distrust.
///
/// ```
/// dledger-activity 1
/// <writer pid>\t<wall-clock ms>
/// <id>\t<bytes>\t<kept>\t<size or ->\t<bytes/s>\t<connections>\t<held 0|1>[\t<attempt>\t<of or ->\t<at ms>\t<code>\t<detail>]
/// ```
///
/// No URL, file name or credential is in it: ids, figures and a failure's code and cleaned detail
/// (``RetryWait/safeDetail(_:)``).
struct ActivityRecord: Equatable {
    /// The process that wrote it.
    var pid: Int32
    /// When it was written, in milliseconds since the Unix epoch.
    var writtenMs: Int64
    var activity: [TransferActivity]

    static let header = "dledger-activity 1"
    /// The most a record may weigh: more is not one we wrote.
    static let maxBytes = 1 << 20
    /// The most transfers a record may hold.
    static let maxTransfers = 8192
    /// The largest figure a field may hold (2^53: a speed or a time in ms is exact as a Double below it).
    static let maxFigure: Int64 = 1 << 53
    /// How old a snapshot of running transfers may be and still be believed. The publisher rewrites it at least
    /// every second while transfers run (``ActivityPublisher``); one older than this is a writer alive that stopped
    /// publishing (a full disk, a lost connection), whose figures would stay on show while its transfers go on, so
    /// readers show what the log and the partial files say instead. An empty snapshot (nothing running) is not
    /// rewritten while nothing changes and is believed at any age.
    static let maxAgeMs: Int64 = 5_000

    /// The wall clock in milliseconds since the Unix epoch, as records are written and aged on one machine.
    static func nowMs() -> Int64 { Int64((RetryWait.wallClock() * 1000).rounded()) }

    /// Whether a snapshot written at `writtenMs` holding `activity` is too old to be believed at `nowMs` (the same
    /// clock). A clock that went back (a snapshot from the future) is not a reason to distrust it.
    static func isStale(writtenMs: Int64, activity: [TransferActivity], nowMs: Int64) -> Bool {
        !activity.isEmpty && nowMs - writtenMs > maxAgeMs
    }

    /// The text of the record; never one ``decode(_:)`` refuses: a size below the bytes received is left out
    /// (unknown), figures are clamped to their ranges, and a retry counted past its last attempt loses its count.
    func encoded() -> [UInt8] {
        var text = Self.header + "\n\(pid)\t\(writtenMs)\n"
        for a in activity {
            let bytes = min(max(a.bytes, 0), Self.maxFigure)
            let size = a.expected.flatMap { $0 >= bytes && $0 <= Self.maxFigure ? String($0) : nil } ?? "-"
            let speed = a.speed.isFinite ? Int64(min(max(a.speed, 0), Double(Self.maxFigure))) : 0
            text += "\(a.id)\t\(bytes)\t\(min(max(a.kept, 0), bytes))\t\(size)"
            text += "\t\(speed)\t\(min(max(a.connections, 0), 1024))\t\(a.held ? 1 : 0)"
            if let r = a.retry {
                let attempt = min(max(r.attempt, 1), 1_000_000)
                let last = r.of.flatMap { $0 >= attempt && $0 <= 1_000_000 ? String($0) : nil } ?? "-"
                let at = r.at.isFinite ? Int64(min(max(r.at * 1000, 0), Double(Self.maxFigure)).rounded()) : 0
                let word =
                    !r.code.isEmpty && r.code.count <= 32
                    && r.code.unicodeScalars.allSatisfy(Self.isCodeScalar)
                let detail = String(RetryWait.safeDetail(r.detail).replacing("\t", with: " ").prefix(160))
                text += "\t\(attempt)\t\(last)\t\(at)\t\(word ? r.code : "unknown")\t\(detail)"
            }
            text += "\n"
        }
        return Array(text.utf8)
    }

    /// Reads a record written by ``encoded()``; nil unless every line is well formed and every figure in range
    /// (kept within received, a size not below it, no id twice). Never traps, whatever the bytes.
    static func decode(_ bytes: [UInt8]) -> ActivityRecord? {
        guard bytes.count <= maxBytes, let text = String(validating: bytes, as: UTF8.self) else { return nil }
        let lines = text.split(separator: "\n", omittingEmptySubsequences: false)
        guard lines.count >= 3, lines.count - 3 <= maxTransfers, lines[0] == header, lines.last == "" else {
            return nil
        }
        let writer = lines[1].split(separator: "\t", omittingEmptySubsequences: false)
        guard writer.count == 2, let pid = number(writer[0]), pid > 0, pid <= Int64(Int32.max),
            let written = number(writer[1])
        else { return nil }
        var seen: Set<Int64> = []
        var activity: [TransferActivity] = []
        for line in lines[2..<(lines.count - 1)] {
            guard let a = transfer(line), seen.insert(a.id).inserted else { return nil }
            activity.append(a)
        }
        return ActivityRecord(pid: Int32(pid), writtenMs: written, activity: activity)
    }

    private static func transfer(_ line: Substring) -> TransferActivity? {
        let f = line.split(separator: "\t", omittingEmptySubsequences: false)
        guard f.count == 7 || f.count == 12, let id = number(f[0]), id > 0, let bytes = number(f[1]),
            let kept = number(f[2]), kept <= bytes, let speed = number(f[4]), let connections = number(f[5]),
            connections <= 1024, f[6] == "0" || f[6] == "1"
        else { return nil }
        var expected: Int64?
        if f[3] != "-" {
            guard let size = number(f[3]), size >= bytes else { return nil }
            expected = size
        }
        let rate = Double(speed)
        let eta = expected.flatMap { rate > 1 ? Double($0 - bytes) / rate : nil }
        var a = TransferActivity(id: id, bytes: bytes, expected: expected, speed: rate, eta: eta)
        a.kept = kept
        a.connections = Int(connections)
        a.held = f[6] == "1"
        guard f.count == 12 else { return a }
        guard let attempt = number(f[7]), attempt >= 1, attempt <= 1_000_000, let at = number(f[9]),
            !f[10].isEmpty, f[10].count <= 32, f[10].unicodeScalars.allSatisfy(isCodeScalar),
            f[11].count <= 160
        else { return nil }
        var of: Int?
        if f[8] != "-" {
            guard let last = number(f[8]), last >= attempt, last <= 1_000_000 else { return nil }
            of = Int(last)
        }
        a.retry = RetryWait(
            attempt: Int(attempt), of: of, at: Double(at) / 1000, code: String(f[10]), detail: String(f[11]))
        return a
    }

    /// Letters and digits: what a failure's code is made of.
    private static func isCodeScalar(_ s: Unicode.Scalar) -> Bool {
        (s >= "a" && s <= "z") || (s >= "A" && s <= "Z") || (s >= "0" && s <= "9")
    }

    /// A non-negative decimal without sign or spaces, at most ``maxFigure``.
    private static func number(_ text: Substring) -> Int64? {
        guard !text.isEmpty, text.utf8.count <= 16, text.utf8.allSatisfy({ $0 >= 48 && $0 <= 57 }),
            let n = Int64(text), n <= maxFigure
        else { return nil }
        return n
    }
}
