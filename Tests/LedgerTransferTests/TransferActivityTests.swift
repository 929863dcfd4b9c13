import LedgerTransfer
import Testing

struct TransferActivityTests {
    @Test func formatsDecimalUnits() {
        #expect(TransferActivity.formatBytes(0) == "0 B")
        #expect(TransferActivity.formatBytes(999) == "999 B")
        #expect(TransferActivity.formatBytes(10_000) == "10.0 KB")
        #expect(TransferActivity.formatBytes(10_240_000) == "10.2 MB")
        #expect(TransferActivity.formatBytes(117_000_000) == "117 MB")
        #expect(TransferActivity.formatBytes(99_960_000) == "100 MB")
        #expect(TransferActivity.formatBytes(4_700_000_000) == "4.7 GB")
    }

    @Test func detailShowsTheSizeWhenKnown() {
        let known = TransferActivity(id: 1, bytes: 10_240_000, expected: 117_000_000, speed: 0, eta: nil)
        #expect(known.detail == "10.2 MB / 117 MB")
        let unknown = TransferActivity(id: 1, bytes: 10_240_000, expected: nil, speed: 0, eta: nil)
        #expect(unknown.detail == "10.2 MB")
    }
}
