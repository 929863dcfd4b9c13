import FuzzSupport
import Testing

@testable import LedgerCore

/// A list with every kind of content: sections, moved and renamed tasks, every state, failures, a to-delete list,
/// settings, and both undo and redo history.
func richLog() -> TestLog {
    var log = TestLog()
    log.add(u("a.iso"), u("b%20c.mp3"), u("d.pdf"), u("e"))
    log.run(.insertSection(title: "Vidéos 🎬", at: nil))
    log.run(
        .add(
            urls: [u("f.mkv")], placement: .titled("Vidéos 🎬"), name: "Film \"1\"",
            sha256: String(repeating: "c", count: 64), directory: "/v"))
    log.add(u("g.png"), u("h.txt"), to: .newSection(title: "Misc", at: 1))
    log.run(.move([1, 7], to: Location(section: 2, index: 0)))
    log.fact(.transferStarted(id: 1, attempt: 1, offset: 0))
    log.fact(
        .transferResolved(
            id: 1, size: 5_000_000_000, serverName: "a.iso", validator: "\"e1\"", acceptsRanges: true,
            restartedFromZero: nil))
    log.fact(.transferStarted(id: 2, attempt: 2, offset: 10))
    log.fact(
        .transferCompleted(
            id: 2, bytes: 4_000_000, sha256: String(repeating: "1", count: 64), fileName: "b c.mp3"))
    log.fact(
        .transferFailed(
            id: 3, failure: TaskFailure(code: "http", detail: "HTTP 404\nNot Found", retryable: false),
            bytes: 12))
    log.run(.pause(.tasks([4])))
    log.run(.stop(.tasks([6])))
    log.run(.rename(2, name: "song.mp3"))
    log.run(.delete(.tasks([7, 5]), mode: .record))
    log.run(.delete(.tasks([3]), mode: .all))
    log.run(.setOptions(1, sampleOptions))
    log.run(.setConnections(8))
    log.run(.setConnectionsPerServer(4))
    log.run(.setMinSplitSize(4 << 20))
    log.run(.setHook(.complete, command: "/home/ü/bin/after download"))
    log.run(.setHook(.error, command: "/usr/bin/notify"))
    log.fact(
        .hookFinished(id: 2, hook: .complete, command: "/x", result: .timedOut(limitMs: 5), firstLine: "é"))
    log.run(.setMaxDownloads(5))
    log.run(.setSpeedLimit(250_000))
    log.run(.sort(.size, descending: true))
    log.run(.setAutoRemoveEmptySections(true))
    log.run(.undo)
    log.run(.undo)
    return log
}

struct SnapshotTests {
    @Test func aRichListRoundTrips() throws {
        let log = richLog()
        #expect(!log.list.trash.isEmpty && !log.list.redoStack.isEmpty && !log.list.undoStack.isEmpty)
        let read = try DownloadList(snapshot: log.list.snapshotBytes())
        expectEqual(read, log.list, "snapshot")
    }

    /// Digests that are not 64 lowercase hex digits (a foreign log) come back as the same text; URLs sharing
    /// prefixes and display names equal to file names come back whole.
    @Test func unusualDigestsAndSharedPrefixesRoundTrip() throws {
        var log = TestLog()
        log.add(u("pub/a.iso"), u("pub/a.iso2"), u("pub/"), u("other"))
        let digests = [
            String(repeating: "AB", count: 32), "not hex", "", String(repeating: "0", count: 64),
        ]
        for (n, digest) in digests.enumerated() {
            let id = TaskID(n + 1)
            log.fact(.transferStarted(id: id, attempt: 1, offset: 0))
            log.fact(
                .transferCompleted(id: id, bytes: 7, sha256: digest, fileName: n == 0 ? "renamed" : "a.iso"))
        }
        #expect(log.list.tasks[2]?.displayName == log.list.tasks[2]?.fileName)
        let read = try DownloadList(snapshot: log.list.snapshotBytes())
        expectEqual(read, log.list, "snapshot")
        #expect(read.tasks.values.map(\.sha256) == digests)
        #expect(read.tasks.values.map(\.url) == log.list.tasks.values.map(\.url))
    }

    @Test func aReadSnapshotFoldsOnLikeTheLiveList() throws {
        var log = richLog()
        var read = try DownloadList(snapshot: log.list.snapshotBytes())
        let from = log.entries.count
        log.run(.redo)
        log.run(.undo)
        log.run(.purge([7]))
        log.run(.restore(nil, to: nil))
        #expect(log.add(u("h.txt"), u("z")) == [8, 9])
        for logged in log.entries[from...] { read.apply(logged) }
        expectEqual(read, log.list, "after more entries")
    }

    /// A read snapshot builds each task when it is read (ids 1, 2, 3, …, with gaps, or a foreign log's ids far
    /// apart, which are built at once): every way of reading gives the live list's tasks in its order, and a change
    /// to one task builds the others unchanged.
    @Test func tasksReadFromASnapshotAreTheLiveListsWhicheverTheIds() throws {
        for shape in ["in order", "with gaps", "far apart"] {
            var log = TestLog()
            log.add(u("a.iso"), u("b.iso"), u("c.iso"), u("d.iso"))
            if shape == "with gaps" {
                log.run(.delete(.tasks([2]), mode: .record))
                log.run(.purge([2]))
            }
            if shape == "far apart" {
                let far = [
                    NewTask(id: 90_000, url: u("far"), directory: "/f"),
                    NewTask(id: -3, url: u("neg"), directory: "/f"),
                ]
                log.append(Entry(.tasksAdded(tasks: far, section: 0, index: 0, newSectionTitle: nil)))
            }
            log.fact(.transferStarted(id: 3, attempt: 1, offset: 0))
            log.fact(
                .transferCompleted(id: 3, bytes: 9, sha256: String(repeating: "e", count: 64), fileName: "c"))
            let live = log.list
            var read = try DownloadList(snapshot: live.snapshotBytes())
            expectEqual(read, live, shape)
            #expect(read.tasks.isBuilt == (shape == "far apart"), "\(shape)")
            #expect(read.tasks.keys == live.tasks.keys, "\(shape)")
            #expect(read.tasks.values == live.tasks.values, "\(shape)")
            for id in TaskID(-4)...6 {
                #expect(read.tasks[id] == live.tasks[id], "\(shape) #\(id)")
                #expect(read.tasks.contains(id) == live.tasks.contains(id), "\(shape) #\(id)")
                #expect(read.tasks.state(of: id) == live.tasks.state(of: id), "\(shape) #\(id)")
                #expect(read.tasks.read(id, { $0.url }) == live.tasks[id]?.url, "\(shape) #\(id)")
            }
            #expect(read.snapshotBytes() == live.snapshotBytes(), "\(shape)")
            let from = log.entries.count
            log.run(.pause(.tasks([4])))
            for logged in log.entries[from...] { read.apply(logged) }
            expectEqual(read, log.list, "\(shape), after a change")
            #expect(
                read.tasks.isBuilt == (shape == "far apart"), "\(shape): a pause of one task built them all")
            #expect(read.tasks.keys == log.list.tasks.keys, "\(shape)")
            #expect(ListSummary(read) == ListSummary(log.list), "\(shape)")
            #expect(read.snapshotBytes() == log.list.snapshotBytes(), "\(shape)")
        }
    }

    /// A tail folded onto a list read from a snapshot changes the tasks it touches beside the snapshot's records,
    /// and builds them all once the changes outgrow their reach: the same list either way, in the same id order.
    @Test func aTailFoldedOntoASnapshotBuildsOnlyWhatItTouchesUntilItTouchesMany() throws {
        var log = TestLog()
        let count = TaskTable.changeReach + 300
        log.run(
            .add(
                urls: (1...count).map { u("file-\($0).iso") }, placement: .end, name: nil, sha256: nil,
                directory: nil))
        let snapshot = log.list.snapshotBytes()
        let from = log.entries.count
        log.run(.move([5, 9], to: Location(section: 0, index: count - 2)))
        log.run(.pause(.tasks([10, 11])))
        log.run(.rename(12, name: "twelve.iso"))
        log.fact(.transferStarted(id: 13, attempt: 1, offset: 0))
        log.run(.delete(.tasks([14]), mode: .record))
        log.add(u("new-1.iso"), u("new-2.iso"))
        let few = log.entries.count
        var read = try DownloadList(snapshot: snapshot)
        for logged in log.entries[from..<few] { read.apply(logged) }
        #expect(!read.tasks.isBuilt)
        #expect(read.tasks.changedCount < 20)
        expectEqual(read, log.list, "after a few events")
        #expect(read.tasks.keys == log.list.tasks.keys)
        #expect(ListSummary(read) == ListSummary(log.list))
        #expect(read.snapshotBytes() == log.list.snapshotBytes())

        // Every task but the one in the to-delete list: more changes than the table keeps beside the records.
        log.run(.pause(.tasks((1...TaskID(count)).filter { $0 != 14 })))
        for logged in log.entries[few...] { read.apply(logged) }
        #expect(read.tasks.isBuilt)
        expectEqual(read, log.list, "after a pause of every task")
        #expect(ListSummary(read) == ListSummary(log.list))
        #expect(read.snapshotBytes() == log.list.snapshotBytes())
    }

    @Test func anEmptyListRoundTrips() throws {
        #expect(try DownloadList(snapshot: DownloadList().snapshotBytes()) == DownloadList())
    }

    @Test func everyTruncationThrows() {
        let bytes = richLog().list.snapshotBytes()
        for n in 0..<bytes.count {
            #expect(throws: SnapshotError.self) { try DownloadList(snapshot: Array(bytes[..<n])) }
        }
    }

    @Test func trailingBytesAndOtherMagicThrow() {
        let bytes = richLog().list.snapshotBytes()
        #expect(throws: SnapshotError.self) { try DownloadList(snapshot: bytes + [0]) }
        #expect(throws: SnapshotError.self) {
            try DownloadList(snapshot: Array("DLS2".utf8) + bytes.dropFirst(4))
        }
        #expect(throws: SnapshotError.self) { try DownloadList(snapshot: Array("not a snapshot".utf8)) }
        #expect(SnapshotError().description == "unreadable snapshot")
    }

    @Test func garbageNeverTraps() {
        let bytes = richLog().list.snapshotBytes()
        var rng = SplitMix64(seed: 5)
        for _ in 0..<2_000 {
            var damaged = bytes
            for _ in 0...rng.below(3) {
                damaged[4 + rng.below(damaged.count - 4)] = UInt8(truncatingIfNeeded: rng.next())
            }
            if let list = try? DownloadList(snapshot: damaged) {
                _ = list.view(now: 0)
            }
        }
        for _ in 0..<500 {
            let noise =
                Array("DLS7".utf8) + (0..<rng.below(200)).map { _ in UInt8(truncatingIfNeeded: rng.next()) }
            _ = try? DownloadList(snapshot: noise)
        }
    }
}

/// The events of the undo history are kept in a read snapshot as the bytes they were saved as, until used.
struct SnapshotUndoHistoryTests {
    @Test func unusedStepsGoBackAsTheBytesTheyCameAs() throws {
        let log = richLog()
        let bytes = log.list.snapshotBytes()
        let read = try DownloadList(snapshot: bytes, reader: log.reader)
        #expect(read.snapshotBytes() == bytes)
        // Once used (the actions read back from the log), they are the same events.
        #expect(read.undoStack.map(\.inverse) == log.list.undoStack.map(\.inverse))
        #expect(read.redoStack.map(\.action) == log.list.redoStack.map(\.action))
        #expect(read.snapshotBytes() == bytes)
    }

    @Test func anActionIsSavedAsAReferenceAndRedoneFromTheLog() throws {
        var log = TestLog()
        let urls = (0..<500).map { u("big/file-\($0).iso") }
        log.run(.add(urls: urls, placement: .end, name: nil, sha256: nil, directory: nil))
        log.run(.undo)
        let bytes = log.list.snapshotBytes()
        // The add's 500 URLs are not in the snapshot (its tasks are gone; the redo step refers to event #2).
        #expect(!bytes.indices.contains { bytes[$0...].starts(with: Array("file-499".utf8)) })
        var read = try DownloadList(snapshot: bytes, reader: log.reader)
        #expect(read == log.list)
        let redo = try read.decide(.redo)
        #expect(redo.entry.event == log.entries[1].entry.event)
        // Without the log, or with another event at that seq, the step is refused with a reason.
        for reader in [nil, TestLog().reader] {
            let alone = try DownloadList(snapshot: bytes, reader: reader)
            #expect(
                alone.redoStack.last?.problem
                    == "its event #2 cannot be read back from the log (missing or changed)")
            #expect(throws: LedgerError.self) { try alone.decide(.redo) }
        }
        read.apply(LoggedEntry(seq: read.head + 1, time: 0, entry: redo.entry))
        #expect(read.tasks.count == 500)
    }

    @Test func aStepWhoseSavedEventDoesNotDecodeIsRefusedNotATrap() throws {
        var log = TestLog()
        log.add(u("a.iso"), u("b.iso"))
        log.run(.pause(.tasks([1])))
        let step = try #require(log.list.undoStack.last)
        let payload = Entry(step.inverse).encodedPayload()
        var bytes = log.list.snapshotBytes()
        let at = try #require(
            bytes.indices.first { bytes[$0...].starts(with: payload) },
            "the step's payload is in the snapshot")
        bytes[at] = UInt8(ascii: "x")
        var read = try DownloadList(snapshot: bytes)
        #expect(!read.undoStack.last!.isReadable)
        #expect(throws: LedgerError.self) { try read.decide(.undo) }
        // The step before it is still reachable once the damaged one is passed.
        let past = try read.decide(.undoPast)
        read.apply(LoggedEntry(seq: read.head + 1, time: 0, entry: past.entry))
        #expect(read.tasks.isEmpty)
    }
}
