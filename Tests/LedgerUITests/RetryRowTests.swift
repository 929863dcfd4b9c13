import LedgerCore
import LedgerTransfer
import Testing

@testable import LedgerUI

/// A transfer waiting to retry says when, which attempt and why, in its row and its details, in place of a speed
/// of zero; a split one's details count its live connections.
@Suite struct RetryRowTests {
    func model(_ columns: Int) throws -> UIModel {
        var b = ListBuilder()
        try b.add(["busy.iso", "split.iso"])
        b.fact(.transferStarted(id: 1, attempt: 1, offset: 0))
        b.fact(.transferStarted(id: 2, attempt: 1, offset: 0))
        var m = UIModel.showing(b.list, columns: columns, rows: 24)
        // The clock of the screen is the ledger's (ms); the retry is due 2 s after it.
        m.now = 1_800_000_000_000
        var busy = TransferActivity(id: 1, bytes: 171_000, expected: nil, speed: 0, eta: nil)
        busy.retry = RetryWait(attempt: 3, of: 6, at: 1_800_000_001.6, code: "http", detail: "500")
        var split = TransferActivity(id: 2, bytes: 3_200_000, expected: 5_200_000, speed: 400_000, eta: 5)
        split.connections = 8
        m.setActivity([busy, split])
        return m
    }

    @Test(arguments: [80, 220])
    func aRetryingRowSaysWhenWhichAttemptAndWhy(width: Int) throws {
        let lines = try model(width).lines()
        let row = try #require(lines.first { $0.contains("#1 busy.iso") })
        #expect(row.contains("downloading"), "\(row)")
        let words = "retrying in 2 s (attempt 3 of 6): the server answered HTTP 500"
        // At 80 columns the row keeps what fits; the start of the sentence is always there.
        #expect(
            width < 120 ? row.contains("retrying in 2 s (attempt 3 of 6)") : row.contains(words), "\(row)")
        #expect(!row.contains("0 B/s"), "\(row)")
        for line in lines { #expect(TextWidth.width(line) == width) }
    }

    @Test func theDetailsCountConnectionsAndSayTheRetry() throws {
        let m = try model(120)
        let busy = m.detailLines(1, file: nil)
        #expect(busy.contains { $0.hasPrefix("retry") && $0.contains("(attempt 3 of 6)") }, "\(busy)")
        let split = m.detailLines(2, file: nil)
        #expect(split.contains { $0.hasPrefix("connections") && $0.hasSuffix("8") }, "\(split)")
    }
}
