import Testing

@testable import LedgerCore

/// `set pause-hold SECONDS`: how long a paused transfer keeps its connections, one event undone and redone as
/// every setting, read back from the log and the snapshot with the same bounds.
struct PauseHoldSettingTests {
    @Test func pauseHoldIsASettingThatUndoTakesBack() throws {
        var log = TestLog()
        #expect(log.list.pauseHold == 0)
        try log.must(.setPauseHold(5))
        #expect(log.list.pauseHold == 5)
        #expect(log.entries.last?.entry.event == .pauseHoldChanged(5))
        log.refuses(.setPauseHold(5), with: .nothingToDo("pause-hold is already 5 s"))
        try log.must(.undo)
        #expect(log.list.pauseHold == 0)
        log.refuses(.setPauseHold(0), with: .nothingToDo("pause-hold is already the default"))
        try log.must(.redo)
        #expect(log.list.pauseHold == 5)
        let head = log.list.head
        for bad: Int64 in [-1, 3601, Int64.max, Int64.min] {
            #expect(log.error(of: .setPauseHold(bad)) != nil, "\(bad)")
        }
        #expect(log.list.head == head)
        try log.must(.setPauseHold(1))
        try log.must(.setPauseHold(3600))
        #expect(log.list.pauseHold == 3600)
    }

    @Test func theEventRoundTripsAndAnEditedValueOutOfBoundsIsRefused() throws {
        for event in [Event.pauseHoldChanged(0), .pauseHoldChanged(1), .pauseHoldChanged(3600)] {
            let entry = Entry(event)
            #expect(try Entry.decode(kind: event.kind, payload: entry.encodedPayload()) == entry)
        }
        for payload in [#"{"seconds":3601}"#, #"{"seconds":-1}"#, #"{}"#, #"{"bytes":5}"#] {
            #expect(throws: PayloadError.self, "\(payload)") {
                try Entry.decode(kind: "pauseHoldChanged", payload: Array(payload.utf8))
            }
        }
        #expect(Event.allKinds.contains("pauseHoldChanged"))
    }

    @Test func theSnapshotKeepsIt() throws {
        var log = TestLog()
        try log.must(.setPauseHold(42))
        let restored = try DownloadList(snapshot: log.list.snapshotBytes())
        #expect(restored.pauseHold == 42)
    }
}
