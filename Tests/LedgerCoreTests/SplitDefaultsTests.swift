import Testing

@testable import LedgerCore

/// The ledger's defaults for splitting a download, aria2's `max-connection-per-server` and `min-split-size`: one
/// event each, undone and redone as every setting, read back from the log and the snapshot with the same bounds.
struct SplitDefaultsTests {
    private func roundTrip(_ entry: Entry) throws -> Entry {
        try Entry.decode(kind: entry.event.kind, payload: entry.encodedPayload())
    }

    @Test func connectionsPerServerIsASettingThatUndoTakesBack() throws {
        var log = TestLog()
        #expect(log.list.connectionsPerServer == 0)
        try log.must(.setConnectionsPerServer(4))
        #expect(log.list.connectionsPerServer == 4)
        #expect(log.entries.last?.entry.event == .connectionsPerServerChanged(4))
        log.refuses(.setConnectionsPerServer(4), with: .nothingToDo("max-connection-per-server is already 4"))
        try log.must(.setConnectionsPerServer(16))
        try log.must(.undo)
        #expect(log.list.connectionsPerServer == 4)
        try log.must(.undo)
        #expect(log.list.connectionsPerServer == 0)
        try log.must(.redo)
        #expect(log.list.connectionsPerServer == 4)
        try log.must(.setConnectionsPerServer(0))
        #expect(log.list.connectionsPerServer == 0)
        let head = log.list.head
        for bad in [-1, 17, 64, Int.max, Int.min] {
            #expect(log.error(of: .setConnectionsPerServer(bad)) != nil, "\(bad)")
        }
        #expect(log.list.head == head)
    }

    @Test func minSplitSizeIsASettingThatUndoTakesBack() throws {
        var log = TestLog()
        try log.must(.setMinSplitSize(4 << 20))
        #expect(log.list.minSplitSize == 4 << 20)
        log.refuses(.setMinSplitSize(4 << 20), with: .nothingToDo("min-split-size is already 4194304 bytes"))
        try log.must(.undo)
        #expect(log.list.minSplitSize == 0)
        log.refuses(.setMinSplitSize(0), with: .nothingToDo("min-split-size is already the default"))
        try log.must(.redo)
        #expect(log.list.minSplitSize == 4 << 20)
        for bad: Int64 in [-1, (1 << 20) - 1, (1 << 30) + 1, Int64.max] {
            #expect(log.error(of: .setMinSplitSize(bad)) != nil, "\(bad)")
        }
        try log.must(.setMinSplitSize(1 << 20))
        try log.must(.setMinSplitSize(1 << 30))
        #expect(log.list.minSplitSize == 1 << 30)
    }

    /// The events keep their values through the log's JSON, and a value out of bounds in an edited log is refused
    /// when it is read, as the command would have been.
    @Test func theEventsRoundTripAndAnEditedValueOutOfBoundsIsRefused() throws {
        for event in [
            Event.connectionsPerServerChanged(0), .connectionsPerServerChanged(1),
            .connectionsPerServerChanged(16),
            .minSplitSizeChanged(0), .minSplitSizeChanged(1 << 20), .minSplitSizeChanged(1 << 30),
        ] {
            #expect(try roundTrip(Entry(event)) == Entry(event))
        }
        for (kind, payload) in [
            ("connectionsPerServerChanged", #"{"connections":17}"#),
            ("connectionsPerServerChanged", #"{"connections":-1}"#),
            ("connectionsPerServerChanged", #"{}"#),
            ("minSplitSizeChanged", #"{"bytes":1048575}"#),
            ("minSplitSizeChanged", #"{"bytes":1073741825}"#),
            ("minSplitSizeChanged", #"{"connections":4}"#),
        ] {
            #expect(throws: PayloadError.self, "\(kind) \(payload)") {
                try Entry.decode(kind: kind, payload: Array(payload.utf8))
            }
        }
    }

    /// A snapshot holds both settings; one written by an older reducer (another magic) is not read.
    @Test func theSnapshotKeepsBothSettings() throws {
        var log = TestLog()
        try log.must(.setConnectionsPerServer(3))
        try log.must(.setMinSplitSize(8 << 20))
        let bytes = log.list.snapshotBytes()
        let read = try DownloadList(snapshot: bytes)
        #expect(read == log.list)
        #expect(read.connectionsPerServer == 3 && read.minSplitSize == 8 << 20)
        var older = bytes
        older.replaceSubrange(0..<5, with: Array("DLS10".utf8))
        #expect(throws: SnapshotError.self) { try DownloadList(snapshot: older) }
    }
}
