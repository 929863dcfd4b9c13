import Foundation
import Glibc
import Testing

@testable import LedgerTransfer

/// The order of a placement: the new name first, then the file's fsync (which on a journaling file system commits
/// the name with the bytes), then the directory's; the partial keeps the file until both are done, and a failed
/// sync takes the name back.
@Suite struct FilePlacementTests {
    /// A download folder with the partial file of task 7 holding `bytes`.
    private static func folder(holding bytes: [UInt8]) throws -> String {
        let directory = NSTemporaryDirectory() + "placement-" + UUID().uuidString
        _ = try DownloadFolder(directory: directory, creating: true)
        let path = directory + "/.dledger/partial/7.part"
        try Data(bytes).write(to: URL(fileURLWithPath: path))
        return directory
    }

    private static func exists(_ path: String) -> Bool {
        var info = stat()
        return lstat(path, &info) == 0
    }

    @Test func theFileIsSyncedAfterItsNameIsLinkedAndBeforeThePartialGoes() throws {
        let bytes: [UInt8] = Array("the body".utf8)
        let directory = try Self.folder(holding: bytes)
        defer { try? FileManager.default.removeItem(atPath: directory) }
        var seenAtSync: (placed: Bool, partial: Bool)?
        let name = try FilePlacement.place(id: 7, directory: directory, base: "file.bin") {
            () throws(TransferError) in
            seenAtSync = (
                Self.exists(directory + "/file.bin"), Self.exists(directory + "/.dledger/partial/7.part")
            )
        }
        #expect(name == "file.bin")
        // At the sync the name was there and the partial still held the file (a crash then loses neither).
        #expect(seenAtSync?.placed == true)
        #expect(seenAtSync?.partial == true)
        #expect(try Data(contentsOf: URL(fileURLWithPath: directory + "/file.bin")) == Data(bytes))
        #expect(!Self.exists(directory + "/.dledger/partial/7.part"))
    }

    @Test func aFailedSyncTakesTheNameBackAndKeepsThePartial() throws {
        let bytes: [UInt8] = Array("kept for a resume".utf8)
        let directory = try Self.folder(holding: bytes)
        defer { try? FileManager.default.removeItem(atPath: directory) }
        #expect(throws: TransferError.self) {
            try FilePlacement.place(id: 7, directory: directory, base: "file.bin") {
                () throws(TransferError) in
                throw .fileSystem("cannot fsync: Input/output error")
            }
        }
        #expect(!Self.exists(directory + "/file.bin"))
        #expect(
            try Data(contentsOf: URL(fileURLWithPath: directory + "/.dledger/partial/7.part")) == Data(bytes))
    }

    @Test func aNameLinkedByARunKilledBeforeItsSyncIsThisFileAndIsSynced() throws {
        let bytes: [UInt8] = Array("linked, then killed".utf8)
        let directory = try Self.folder(holding: bytes)
        defer { try? FileManager.default.removeItem(atPath: directory) }
        // The run before linked the name and died before its syncs and its fact.
        #expect(link(directory + "/.dledger/partial/7.part", directory + "/file.bin") == 0)
        var syncs = 0
        let name = try FilePlacement.place(id: 7, directory: directory, base: "file.bin", keepPartial: true) {
            () throws(TransferError) in
            syncs += 1
        }
        #expect(name == "file.bin")
        #expect(syncs == 1)
        #expect(!Self.exists(directory + "/file (1).bin"))
        // Kept (the scheduler removes it once the completion is recorded).
        #expect(Self.exists(directory + "/.dledger/partial/7.part"))
    }
}
