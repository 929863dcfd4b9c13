import Foundation
import LoopbackHTTP
import Testing

/// What the terminal receives: only the lines that changed, the terminal given back after a crash, and the
/// progress of another process's transfers read from disk.
extension UITests {
    /// The rows (1-based) that the bytes position the cursor at to rewrite them (`ESC [ row ; 1 H`).
    static func rewrittenRows(_ bytes: ArraySlice<UInt8>) -> Set<Int> {
        var rows: Set<Int> = []
        var i = bytes.startIndex
        while i < bytes.endIndex {
            defer { i += 1 }
            guard bytes[i] == 0x1B, i + 1 < bytes.endIndex, bytes[i + 1] == UInt8(ascii: "[") else {
                continue
            }
            var j = i + 2
            var n = 0
            while j < bytes.endIndex, bytes[j] >= 0x30, bytes[j] <= 0x39 {
                n = n * 10 + Int(bytes[j] - 0x30)
                j += 1
            }
            if j + 2 < bytes.endIndex, bytes[j] == UInt8(ascii: ";"), bytes[j + 1] == UInt8(ascii: "1"),
                bytes[j + 2] == UInt8(ascii: "H")
            {
                rows.insert(n)
            }
        }
        return rows
    }

    @Test func aOneRowChangeRewritesThatRowAndTheStatusLinesOnly() async throws {
        let box = try DledgerSandbox()
        try await setUp(box)
        // `script` records every byte the program writes to its terminal.
        let record = box.root + "/terminal.bytes"
        let t = try ui(box, "--watch") {
            "script -qfec \(TmuxTerminal.quote($0)) \(TmuxTerminal.quote(record))"
        }
        defer { t.close() }
        func written() -> [UInt8] { FileManager.default.contents(atPath: record).map { Array($0) } ?? [] }
        func contains(_ bytes: [UInt8], _ text: String) -> Bool {
            let needle = Array(text.utf8)
            return bytes.count >= needle.count
                && (0...(bytes.count - needle.count)).contains {
                    bytes[$0..<($0 + needle.count)].elementsEqual(needle)
                }
        }
        // Until the whole first frame is recorded (its last row is the key bar): a frame reaches the terminal in
        // pieces when the machine is loaded, and what comes after `start` would count as rewritten.
        func settled() async {
            var seen = (count: -1, at: Date())
            _ = await eventually(10) {
                let now = written().count
                if now != seen.count { seen = (now, Date()) }
                return Date().timeIntervalSince(seen.at) > 0.3 && contains(written(), "q quit")
            }
        }
        try await t.waitFor("#3 c.iso")
        #expect(await eventually(5) { contains(written(), "#3 c.iso") })
        await settled()
        // Screen rows: 1 header, 2 totals, 3 column titles, 4 `0 Downloads` (the cursor), 5 #1, 6 #2, 7 #3,
        // 8 `1 Other`.
        var start = written().count
        try t.keys("j")
        #expect(await eventually(5) { Self.rewrittenRows(written()[start...]).contains(5) })
        #expect(try await t.waitFor { $0.count > 4 && $0[4].hasPrefix(">") } != nil, "\(t.shown)")
        await settled()
        #expect(Self.rewrittenRows(written()[start...]) == [4, 5], "the cursor's old and new rows only")

        // Another process pauses #2: its row, the header (the head seq) and the totals change, nothing else.
        await settled()
        start = written().count
        try await box.run("pause", "2")
        #expect(await eventually(5) { Self.rewrittenRows(written()[start...]).contains(6) })
        #expect(
            try await t.waitFor { $0.count > 5 && $0[5].contains("#2 b.iso") && $0[5].contains("paused") }
                != nil)
        await settled()
        let after = written()[start...]
        #expect(Self.rewrittenRows(after) == [1, 2, 6], "\(String(decoding: after, as: UTF8.self))")
        #expect(!contains(Array(after), "\u{1B}[2J"), "no clearing of the screen")
        try t.keys("q")
        try await expectRestored(t, exit: 0)
    }

    /// A crash of `dledger ui` is a fatal signal: a Swift trap raises SIGILL (x86-64) or SIGTRAP (arm64), a bad
    /// pointer SIGSEGV, an abort SIGABRT. The test sends the signal from outside, to the ui's own pid, so production
    /// code holds no crash switch; the ui's handler must give the terminal back before the process dies of it.
    @Test(arguments: [SIGILL, SIGSEGV, SIGABRT])
    func aCrashInItsOwnCodeGivesTheTerminalBack(signal: Int32) async throws {
        let box = try DledgerSandbox()
        try await setUp(box)
        // The shell writes its pid and becomes the ui (exec), so that pid is the ui's.
        let pidFile = box.root + "/ui.pid"
        let t = try ui(box, "--watch") {
            "sh -c " + TmuxTerminal.quote("echo $$ > \(TmuxTerminal.quote(pidFile)); exec \($0)")
        }
        defer { t.close() }
        try await t.waitFor("#3 c.iso")
        let text = try String(contentsOfFile: pidFile, encoding: .utf8)
        let pid = try #require(pid_t(text.trimmingCharacters(in: .whitespacesAndNewlines)))
        #expect(kill(pid, signal) == 0)
        // The shell says 128 + the signal the ui died of.
        try await expectRestored(t, exit: 128 + signal)
        let ls = try await box.run("ls")
        #expect(ls.status == 0 && ls.out.contains("c.iso"), "the ledger is intact: \(ls.err)")
    }

    /// `1.2 MB/s`, `830 KB/s` as bytes per second.
    static func rate(_ text: Substring) -> Double? {
        let parts = text.split(separator: " ")
        guard parts.count == 2, let n = Double(parts[0]) else { return nil }
        let scale: [Substring: Double] = ["B/s": 1, "KB/s": 1e3, "MB/s": 1e6, "GB/s": 1e9]
        return scale[parts[1]].map { n * $0 }
    }

    /// The bytes and speed a row shows: `… 1.2 MB / 20.0 MB   830 KB/s …`.
    static func progress(_ row: String) -> (bytes: Double, speed: Double)? {
        guard
            let r = row.range(
                of: #"[0-9.]+ [KMG]?B / 20\.0 MB +[0-9.]+ [KMG]?B/s"#, options: .regularExpression)
        else { return nil }
        let cells = row[r].components(separatedBy: " / ")
        let done = rate(Substring(cells[0] + "/s")) ?? -1
        let speed = rate(Substring(cells[1].dropFirst("20.0 MB".count).trimmingCharacters(in: .whitespaces)))
        return speed.map { (done, $0) }
    }

    @Test(arguments: [1, 8])
    func watchingShowsTheOtherProcesssTransfersFromDisk(connections: Int) async throws {
        let box = try DledgerSandbox()
        let server = try LoopbackServer()
        defer { server.stop() }
        let perConnection = 300_000
        server.serve(
            "/big.bin",
            Resource(size: 20_000_000, seed: 5, faults: Faults(throttleBytesPerSecond: perConnection)))
        try await box.run("add", server.url("/big.bin"))
        let run = try box.start("run", "--connections", "\(connections)")
        defer { run.interrupt() }
        #expect(try await eventually(5) { try await box.task(1)?["state"] as? String == "downloading" })
        let t = try ui(box, "", columns: 120, rows: 24)
        defer { t.close() }
        try await t.waitFor("watching: pid \(run.process.processIdentifier) downloads")
        // A row with the bytes from the partial file, of the size the server announced, a speed and an ETA (in
        // its column, under the title).
        let first = try await t.waitFor(15) { s in
            s.contains {
                // Past the first second, when the meter has a whole window of the transfer.
                Self.progress($0).map { $0.bytes > Double(perConnection * connections) && $0.speed > 0 }
                    == true
                    && $0.range(of: #"B/s +[0-9]+(s|m[0-9]{2}s|h[0-9]{2}m) *$"#, options: .regularExpression)
                        != nil
            }
        }
        #expect(first != nil, "\(t.shown)")
        let row = first?.first { $0.contains("#1 big.bin") } ?? ""
        let seen = try #require(Self.progress(row), "\(row)")
        #expect(row.contains("downloading") && row.contains("%"), "\(row)")
        // About what the server sends on all connections together. The other process writes in 256 KiB steps;
        // on one connection the speed is taken between two steps, so it is close; with several, the connections'
        // steps fall at different moments, so it is off by up to one step each over the two seconds it spans.
        let rate = Double(perConnection * connections)
        let steps = Double(connections - 1) * 262_144 / 2
        #expect(seen.speed >= rate * 0.5 - steps && seen.speed <= rate * 1.2 + steps, "\(row)")
        // It moves on, without any event logged meanwhile.
        let later = try await t.waitFor(15) { s in
            s.contains { Self.progress($0).map { $0.bytes > seen.bytes } == true }
        }
        #expect(later != nil, "\(t.shown)")
        try t.keys("q")
        try await expectRestored(t, exit: 0)
    }
}
