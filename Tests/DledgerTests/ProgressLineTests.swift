import DownloadLedger
import Testing

@testable import dledger

/// The live progress line at the widths users have: the name keeps priority; the least useful fields go first.
@Suite struct ProgressLineTests {
    let activity = TransferActivity(id: 3, bytes: 600_000, expected: 1_200_000, speed: 300_000, eta: 2)

    func line(_ width: Int, _ name: String = "song.flac") -> String {
        ProgressLine(width: width, longestName: name.count).line(activity, name: name)
    }

    @Test func aTransferWaitingToRetrySaysWhenWhichAttemptAndWhy() {
        var waiting = activity
        waiting.retry = RetryWait(
            attempt: 3, of: 6, at: RetryWait.wallClock() + 1.5, code: "http", detail: "500")
        let wide = ProgressLine(width: 200, longestName: 9).line(waiting, name: "song.flac")
        #expect(
            wide.contains("song.flac  retrying in 2 s (attempt 3 of 6): the server answered HTTP 500"),
            "\(wide)")
        #expect(!wide.contains("KB/s") && wide.count <= 200)
        let narrow = ProgressLine(width: 60, longestName: 9).line(waiting, name: "song.flac")
        #expect(narrow.count <= 60 && narrow.contains("retrying in 2 s"), "\(narrow)")
    }

    @Test func twoHundredColumnsShowEverything() {
        let l = line(200)
        #expect(l.contains("song.flac") && l.contains("[█████████░░░░░░░░░]") && l.contains(" 50%"))
        #expect(l.contains("600 KB / 1.2 MB") && l.contains("300 KB/s") && l.contains("ETA 2s"))
        #expect(l.count <= 200)
    }

    @Test func eightyColumnsKeepTheWholeNameAndTheETA() {
        let l = line(80)
        #expect(l.count <= 80, "\(l.count): \(l)")
        #expect(l.contains("song.flac") && !l.contains("…"))
        #expect(l.contains("ETA 2s") && l.contains(" 50%") && l.contains("300 KB/s"))
        // A long name makes the bar go first, then the byte counts; the ETA stays.
        let long = line(80, "debian-12.5.0-amd64-netinst.iso")
        #expect(long.count <= 80, "\(long)")
        #expect(long.contains("debian-12.5.0-amd64-netinst.iso") && !long.contains("["))
        #expect(long.contains("ETA 2s"))
    }

    @Test func fortyColumnsDropFieldsBeforeTheName() {
        let l = line(40)
        #expect(l.count <= 40, "\(l.count): \(l)")
        #expect(l.contains("song.flac") && !l.contains("…"))
        #expect(l.contains(" 50%") && l.contains("ETA 2s"))
        #expect(!l.contains("[") && !l.contains("600 KB / 1.2 MB"))
        // A name longer than the line is cut last, with every field gone but none cut in half.
        let long = line(40, String(repeating: "n", count: 60) + ".iso")
        #expect(long.count == 40, "\(long)")
        #expect(long.hasSuffix("…"))
    }

    @Test func aSplitTransferShowsItsConnections() {
        var split = activity
        split.connections = 16
        let l = ProgressLine(width: 120, longestName: 9).line(split, name: "song.flac")
        #expect(l.contains("300 KB/s ×16"), "\(l)")
        #expect(!line(120).contains("×"))
    }

    @Test func linesOfOneLayoutAlign() {
        let layout = ProgressLine(width: 80, longestName: 12)
        let a = layout.line(activity, name: "a.iso")
        let b = layout.line(
            TransferActivity(id: 12, bytes: 1, expected: nil, speed: 0, eta: nil), name: "twelve-chars")
        #expect(a.count == b.count)
    }
}
