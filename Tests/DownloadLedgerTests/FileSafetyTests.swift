import DownloadLedger
import Foundation
import LoopbackHTTP
import Testing

/// Nothing that is not the ledger's own is deleted: links planted at the hidden folders are never followed, a
/// finished file the user replaced is kept, and names read back from an edited ledger are refused.
@Suite(.serialized) struct FileSafetyTests {
    let server: LoopbackServer

    init() throws {
        server = try LoopbackServer()
    }

    /// A ledger whose tasks `names` (served with seeds 1, 2, ...) were downloaded by a first run.
    func downloaded(_ names: [String], size: Int64 = 20_000) async throws -> (Sandbox, Ledger) {
        let box = try Sandbox()
        let ledger = try box.ledger()
        for (i, name) in names.enumerated() {
            server.serve("/" + name, Resource(size: size, seed: UInt64(i + 1)))
        }
        try ledger.add(names.map { server.url("/" + $0) })
        try await Scheduler(ledger: ledger).run(untilIdle: true)
        for id in 1...names.count { try #require(ledger.list.tasks[TaskID(id)]?.state == .finished) }
        return (box, ledger)
    }

    /// `.dledger` or `.dledger/partial` replaced by a link between runs, with `<id>.part` files where it points:
    /// neither the next run's start-up clean-up, nor a redownload, nor a purge touches them.
    @Test(arguments: [".dledger", ".dledger/partial"])
    func aLinkedHiddenFolderIsNeverFollowed(planted: String) async throws {
        let (box, ledger) = try await downloaded(["a.bin", "b.bin", "c.bin"])
        let elsewhere = box.root + "/elsewhere"
        let victims = planted == ".dledger" ? elsewhere + "/partial" : elsewhere
        try FileManager.default.createDirectory(atPath: victims, withIntermediateDirectories: true)
        for id in 1...3 {
            #expect(
                FileManager.default.createFile(atPath: victims + "/\(id).part", contents: Data("mine".utf8)))
        }
        try FileManager.default.removeItem(atPath: box.downloads + "/" + planted)
        try FileManager.default.createSymbolicLink(
            atPath: box.downloads + "/" + planted, withDestinationPath: elsewhere)

        try await Scheduler(ledger: ledger).run(untilIdle: true)
        try ledger.execute(.redownload(.tasks([2])))
        try ledger.execute(.delete(.tasks([3]), mode: .all))
        try ledger.execute(.purge(nil))

        for id in 1...3 {
            #expect(
                FileManager.default.contents(atPath: victims + "/\(id).part") == Data("mine".utf8), "#\(id)")
        }
        #expect(box.holds("a.bin", seed: 1, size: 20_000))
        #expect(box.contents("b.bin") == nil)
        #expect(box.contents("c.bin") == nil)
        // The next run refuses the link rather than writing through it.
        try await Scheduler(ledger: ledger).run(untilIdle: true)
        #expect(ledger.list.tasks[2]?.state == .failed)
        #expect(ledger.list.tasks[2]?.failure?.detail.contains("refusing to use it") == true)
        #expect(
            try FileManager.default.contentsOfDirectory(atPath: victims).sorted() == [
                "1.part", "2.part", "3.part",
            ])
    }

    /// A finished file the user replaced (other content, other size, or changed in place) survives a redownload,
    /// a file delete and a purge, and the event records it as kept; our own file, or a copy with the very content
    /// downloaded, goes.
    @Test func aFileThatIsNoLongerOursIsKept() async throws {
        let (box, ledger) = try await downloaded(["1.bin", "2.bin", "3.bin", "4.bin", "5.bin"])
        let path = { (name: String) in box.downloads + "/" + name }
        // 1: replaced by another file of another size. 2: same size, other bytes (a new inode).
        try FileManager.default.removeItem(atPath: path("1.bin"))
        #expect(FileManager.default.createFile(atPath: path("1.bin"), contents: Data("the user's".utf8)))
        let other = [UInt8](repeating: 9, count: 20_000)
        try FileManager.default.removeItem(atPath: path("2.bin"))
        #expect(FileManager.default.createFile(atPath: path("2.bin"), contents: Data(other)))
        // 3: the very bytes downloaded, but copied back (a new inode). 5: changed in place (same inode).
        let copy = try #require(box.contents("3.bin"))
        try FileManager.default.removeItem(atPath: path("3.bin"))
        #expect(FileManager.default.createFile(atPath: path("3.bin"), contents: Data(copy)))
        let handle = try #require(FileHandle(forWritingAtPath: path("5.bin")))
        try handle.seekToEnd()
        try handle.write(contentsOf: Data("more".utf8))
        try handle.close()

        let redownloaded = try ledger.execute(.redownload(.tasks([1])))
        #expect(redownloaded.entry.event == .tasksRedownloaded(ids: [1], kept: [1]))
        let deleted = try ledger.execute(.delete(.tasks([2]), mode: .file))
        #expect(deleted.entry.event == .filesDeleted(ids: [2], kept: [2]))
        try ledger.execute(.delete(.tasks([3, 4, 5]), mode: .all))
        let purged = try ledger.execute(.purge(nil))
        #expect(purged.entry.event == .trashPurged(ids: [3, 4, 5], kept: [5]))

        #expect(box.contents("1.bin") == Array("the user's".utf8))
        let sameSizeKept = box.contents("2.bin") == other
        #expect(sameSizeKept, "the user's file of the same size is gone")
        #expect(box.contents("3.bin") == nil)
        #expect(box.contents("4.bin") == nil)
        #expect(box.contents("5.bin")?.count == 20_004)
        // The log says so too.
        let kinds = try ledger.log().map(\.entry.event)
        #expect(kinds.contains(.trashPurged(ids: [3, 4, 5], kept: [5])))
    }

    /// A ledger edited with a valid chain (events appended through the store's own hasher) naming a file outside
    /// the download folder, or a directory with `..`: redownload and purge delete nothing there.
    @Test func namesFromAnEditedLedgerAreRefused() throws {
        let box = try Sandbox()
        let ledger = try box.ledger()
        let outside = box.root + "/outside"
        try FileManager.default.createDirectory(atPath: outside, withIntermediateDirectories: true)
        let victim = Data("precious".utf8)
        #expect(FileManager.default.createFile(atPath: outside + "/victim.txt", contents: victim))
        #expect(FileManager.default.createFile(atPath: outside + "/9.part", contents: victim))
        let identity = try #require(box.identity(path: outside + "/victim.txt"))
        let sha = "3c4a5e7f4f3d7d2d3f8e3a0b1e8c5a9f6d2b7c4e1a0f9e8d7c6b5a4f3e2d1c0b"
        try ledger.add(["https://example.com/v.txt"])
        let forged: [Event] = [
            .transferCompleted(
                id: 1, bytes: Int64(victim.count), sha256: sha, fileName: "../outside/victim.txt",
                placed: identity),
            .tasksAdded(
                tasks: [
                    NewTask(id: 9, url: "https://example.com/w.txt", directory: box.downloads + "/../outside")
                ],
                section: 0, index: 1, newSectionTitle: nil),
            .transferCompleted(
                id: 9, bytes: Int64(victim.count), sha256: sha, fileName: "victim.txt", placed: identity),
        ]
        let store = try SQLiteEventStore(path: box.ledgerPath)
        _ = try store.append(
            forged.map {
                NewEvent(
                    kind: $0.kind, version: Event.payloadVersion, tasks: $0.taskIDs,
                    payload: Entry($0).encodedPayload())
            }, expectingHead: try store.head(), time: Ledger.wallClock())
        #expect(try ledger.verify(checkFiles: false).isValid)
        try ledger.refresh()
        try #require(ledger.list.tasks[9]?.fileName == "victim.txt")

        let redownloaded = try ledger.execute(.redownload(.tasks([1, 9])))
        #expect(redownloaded.entry.event == .tasksRedownloaded(ids: [1, 9], kept: [1, 9]))
        #expect(FileManager.default.contents(atPath: outside + "/victim.txt") == victim)
        #expect(FileManager.default.contents(atPath: outside + "/9.part") == victim)
    }

    /// Eight connections (as eight processes would) renaming one finished task at the same moment, twenty times:
    /// after each round exactly one name is on disk, the one the ledger says, with no second link.
    @Test func concurrentRenamesLeaveExactlyOneName() async throws {
        let (box, _) = try await downloaded(["a.bin"])
        let ledgers = try (0..<8).map { _ in try Ledger(path: box.ledgerPath) }
        for round in 0..<150 {
            DispatchQueue.concurrentPerform(iterations: ledgers.count) { n in
                _ = try? ledgers[n].execute(.rename(1, name: "r\(round)-\(n).bin"))
            }
            try ledgers[0].refresh()
            let names = try FileManager.default.contentsOfDirectory(atPath: box.downloads).filter {
                !$0.hasPrefix(".")
            }
            #expect(names == [ledgers[0].list.tasks[1]?.fileName ?? "?"], "round \(round)")
            var info = stat()
            #expect(lstat(box.downloads + "/" + (names.first ?? ""), &info) == 0 && info.st_nlink == 1)
            if names.count != 1 { break }
        }
    }

    /// An add whose directory the downloader would refuse (`..`, relative, a control character) is refused when it
    /// is asked, with nothing appended: not logged to fail at download time. A `.` part or a doubled or trailing
    /// slash is taken in the normal form instead (`/d/./sub//` is `/d/sub`).
    @Test func anAddToADirectoryWithDotsIsRefused() throws {
        let box = try Sandbox()
        let ledger = try box.ledger()
        try ledger.add(["https://example.com/first"])
        let head = ledger.list.head
        for directory in [box.downloads + "/../outside", "relative/dir", box.downloads + "/a\u{7}b"] {
            #expect(throws: LedgerError.self, "\(directory)") {
                try ledger.execute(
                    .add(
                        urls: ["https://example.com/a"], placement: .end, name: nil, sha256: nil,
                        directory: directory, options: TaskOptions()))
            }
            #expect(throws: LedgerError.self, "\(directory)") {
                try ledger.execute(
                    .addGroups(
                        [AddGroup(urls: ["https://example.com/b"], placement: .end)], directory: directory,
                        options: TaskOptions()))
            }
        }
        #expect(ledger.list.head == head)
        _ = try ledger.execute(
            .add(
                urls: ["https://example.com/a"], placement: .end, name: nil, sha256: nil,
                directory: box.downloads + "/./sub//", options: TaskOptions()))
        #expect(ledger.list.tasks[2]?.directory == box.downloads + "/sub")
    }
}
