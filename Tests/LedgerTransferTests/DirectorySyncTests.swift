import Foundation
import Testing

@testable import LedgerTransfer

@Suite struct DirectorySyncTests {
    @Test func concurrentCallersAllReturnAndShareSyncs() async throws {
        let directory = NSTemporaryDirectory() + "dirsync-" + UUID().uuidString
        try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let fd = open(directory, O_RDONLY | O_DIRECTORY | O_CLOEXEC)
        try #require(fd >= 0)
        defer { close(fd) }
        let syncer = DirectorySync()
        let callers = 32
        await withTaskGroup(of: Void.self) { group in
            for _ in 0..<callers {
                group.addTask { await Task.detached { syncer.sync(descriptor: fd) }.value }
            }
        }
        // Every caller got a sync that began after it arrived, and none ran more than one of its own.
        #expect(syncer.performed >= 1)
        #expect(syncer.performed <= callers)
    }

    @Test func aLaterCallerGetsANewSync() throws {
        let fd = open(NSTemporaryDirectory(), O_RDONLY | O_DIRECTORY | O_CLOEXEC)
        try #require(fd >= 0)
        defer { close(fd) }
        let syncer = DirectorySync()
        syncer.sync(descriptor: fd)
        syncer.sync(descriptor: fd)
        // Sequential callers cannot share: the second change came after the first sync began.
        #expect(syncer.performed == 2)
    }
}
