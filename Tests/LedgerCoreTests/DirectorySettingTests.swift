import Testing

@testable import LedgerCore

/// The ledger's download folder (`set dir PATH`): one event, for tasks added later; undone and redone as every
/// setting; kept by the log's JSON and the snapshot; a folder the downloader would refuse is never taken.
struct DirectorySettingTests {
    @Test func aNewFolderIsForTasksAddedLaterAndUndoTakesItBack() throws {
        var log = TestLog()
        let before = log.add(u("a"))
        try log.must(.setDirectory("/home/me/Downloads"))
        #expect(log.entries.last?.entry.event == .directoryChanged("/home/me/Downloads"))
        #expect(log.list.directory == "/home/me/Downloads")
        let after = log.add(u("b"))
        #expect(log.list.tasks[before[0]]?.directory == TestLog.directory, "a task keeps its folder")
        #expect(log.list.tasks[after[0]]?.directory == "/home/me/Downloads")
        log.refuses(
            .setDirectory("/home/me/Downloads"),
            with: .nothingToDo("downloads already go to /home/me/Downloads"))
        try log.must(.undo)  // the add
        try log.must(.undo)  // the folder
        #expect(log.list.directory == TestLog.directory)
        try log.must(.redo)
        #expect(log.list.directory == "/home/me/Downloads")
        #expect(log.replayed() == log.list)
    }

    @Test func aFolderNotInNormalFormIsRefusedAndNothingChanges() {
        let log = TestLog()
        for bad in [
            "relative", "", "/a//b", "/a/b/", "/a/./b", "/a/../b", "/a/\u{1B}[31m",
            "/" + String(repeating: "x", count: 4096),
        ] {
            #expect(log.error(of: .setDirectory(bad)) != nil, "\(bad.debugDescription)")
        }
        #expect(log.error(of: .setDirectory("/")) == nil)
    }

    @Test func theEventRoundTripsAndTheSnapshotKeepsTheFolder() throws {
        let entry = Entry(.directoryChanged("/srv/files 2"))
        #expect(try Entry.decode(kind: "directoryChanged", payload: entry.encodedPayload()) == entry)
        for payload in [#"{}"#, #"{"dir":"x/y"}"#, #"{"dir":"/x//y"}"#] {
            #expect(throws: PayloadError.self, "\(payload)") {
                try Entry.decode(kind: "directoryChanged", payload: Array(payload.utf8))
            }
        }
        var log = TestLog()
        try log.must(.setDirectory("/srv/files"))
        let read = try DownloadList(snapshot: log.list.snapshotBytes())
        #expect(read == log.list && read.directory == "/srv/files")
        #expect(Event.allKinds.contains("directoryChanged"))
    }
}
