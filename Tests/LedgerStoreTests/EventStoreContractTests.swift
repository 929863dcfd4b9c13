import LedgerStore
import PostgresSupport
import TestSupport
import Testing

/// The behaviour every `EventStore` must have, run against each implementation.
struct EventStoreContractTests {
    enum Kind: String, CaseIterable, CustomTestStringConvertible {
        case inMemory, sqlite, postgres
        var testDescription: String { rawValue }
    }

    /// A store of `kind`, with the temporary directory that must outlive it.
    final class Subject {
        let directory: TemporaryDirectory?
        let store: any EventStoreUpkeep

        init(_ kind: Kind) throws {
            switch kind {
            case .inMemory:
                directory = nil
                store = InMemoryEventStore()
            case .sqlite:
                let directory = try TemporaryDirectory()
                self.directory = directory
                store = try SQLiteEventStore(path: directory.file("ledger.sqlite"))
            case .postgres:
                directory = nil
                store = try PostgresEventStore(uri: PostgresTestCluster.freshLedger())
            }
        }
    }

    @Test(arguments: Kind.allCases) func anEmptyStoreHasNothing(kind: Kind) throws {
        let store = try Subject(kind).store
        #expect(try store.head() == 0)
        #expect(try store.events(after: 0, through: nil, limit: nil).isEmpty)
        #expect(try store.lastSeq(atOrBefore: Int64.max) == 0)
        #expect(try store.latestSnapshot(reducerVersion: 1, atOrBefore: nil) == nil)
        let report = try store.verifyChain()
        #expect(report == ChainReport(rowCount: 0, head: 0, headHash: [], firstProblem: nil))
    }

    @Test(arguments: Kind.allCases) func theHeadAndEachLinkOfAnIntactChainHold(kind: Kind) throws {
        let store = try Subject(kind).store
        #expect(try store.checkHead() == nil)
        #expect(try store.linkedEvent(at: 1) == nil)
        _ = try store.append([sampleEvent(1), sampleEvent(2)], expectingHead: 0, time: 10)
        _ = try store.append([sampleEvent(3)], expectingHead: 2, time: 20)
        #expect(try store.checkHead() == nil)
        let events = try store.events(after: 0, through: nil, limit: nil)
        #expect(try (1...3).map { try store.linkedEvent(at: $0) } == events)
        #expect(try store.linkedEvent(at: 0) == nil)
        #expect(try store.linkedEvent(at: 4) == nil)
        #expect(try store.tasksNamed(after: 1, through: 3) == [2, 3])
        #expect(try store.tasksNamed(after: 3, through: 3) == [])
    }

    @Test(arguments: Kind.allCases) func upkeepLeavesTheLogAsItWas(kind: Kind) throws {
        let subject = try Subject(kind)
        let store = subject.store
        try store.setDurability(.facts)
        _ = try store.append([sampleEvent(1)], expectingHead: 0, time: 10)
        try store.setDurability(.full)
        _ = try store.append([sampleEvent(2)], expectingHead: 1, time: 20)
        // PostgreSQL holds every commit in the server's storage, which every reader reads: nothing to fold.
        let onDisk = kind != .inMemory
        #expect(store.checkpoint() == onDisk)
        #expect((store.checkpointPassive() != nil) == (kind == .sqlite))
        #expect(store.leaveQuiet() == onDisk)
        let folder = kind == .postgres ? try TemporaryDirectory() : subject.directory
        let copy = (folder?.file("ledger.sqlite") ?? "/tmp") + ".backup"
        if onDisk {
            #expect(try store.backup(to: copy) == 2)
            #expect(try SQLiteEventStore(path: copy, readOnly: true).head() == 2)
        } else {
            #expect(throws: StoreError.self) { try store.backup(to: copy) }
        }
        #expect(try store.events(after: 0, through: nil, limit: nil).map(\.seq) == [1, 2])
        #expect(try store.verifyChain().firstProblem == nil)
    }

    @Test(arguments: Kind.allCases) func appendsGetGaplessSeqs(kind: Kind) throws {
        let store = try Subject(kind).store
        #expect(
            try store.append([sampleEvent(1), sampleEvent(2), sampleEvent(3)], expectingHead: 0, time: 10)
                == 3)
        #expect(try store.append([sampleEvent(4), sampleEvent(5)], expectingHead: 3, time: 20) == 5)
        #expect(try store.append([], expectingHead: 5, time: 30) == 5)
        let events = try store.events(after: 0, through: nil, limit: nil)
        #expect(events.map(\.seq) == [1, 2, 3, 4, 5])
        #expect(events.map(\.time) == [10, 10, 10, 20, 20])
        #expect(events[3].kind == "tasksAdded" && events[3].version == 1 && events[3].tasks == [4])
        #expect(events[3].payload == sampleEvent(4).payload)
        #expect(try store.head() == 5)
    }

    @Test(arguments: Kind.allCases) func aStaleHeadAppendsNothing(kind: Kind) throws {
        let store = try Subject(kind).store
        _ = try store.append([sampleEvent(1), sampleEvent(2)], expectingHead: 0, time: 10)
        #expect(throws: StoreError.conflict(head: 2)) {
            try store.append([sampleEvent(3), sampleEvent(4)], expectingHead: 1, time: 20)
        }
        #expect(throws: StoreError.conflict(head: 2)) {
            try store.append([], expectingHead: 3, time: 20)
        }
        #expect(try store.head() == 2)
        #expect(try store.events(after: 0, through: nil, limit: nil).count == 2)
        #expect(try store.verifyChain().isValid)
    }

    @Test(arguments: Kind.allCases) func scanReadsRangesInOrder(kind: Kind) throws {
        let store = try Subject(kind).store
        _ = try store.append((1...6).map { sampleEvent($0) }, expectingHead: 0, time: 10)
        func scanned(_ after: Int64, _ through: Int64?) throws -> [Int64] {
            var seqs: [Int64] = []
            try store.scan(after: after, through: through) { view in
                #expect(Array(view.payload) == sampleEvent(view.seq).payload)
                #expect(String(decoding: view.kind, as: UTF8.self) == "tasksAdded")
                #expect(view.time == 10)
                seqs.append(view.seq)
            }
            return seqs
        }
        #expect(try scanned(0, nil) == [1, 2, 3, 4, 5, 6])
        #expect(try scanned(2, 4) == [3, 4])
        #expect(try scanned(4, nil) == [5, 6])
        #expect(try scanned(6, nil) == [])
        #expect(try scanned(3, 3) == [])
        #expect(try scanned(0, 100) == [1, 2, 3, 4, 5, 6])
        #expect(try store.events(after: 1, through: 5, limit: 2).map(\.seq) == [2, 3])
        #expect(try store.events(after: 1, through: 5, limit: nil).map(\.seq) == [2, 3, 4, 5])
        #expect(try store.events(after: 1, through: nil, limit: 0).isEmpty)
    }

    @Test(arguments: Kind.allCases) func auditListsEveryEventTouchingATask(kind: Kind) throws {
        let store = try Subject(kind).store
        _ = try store.append(
            [
                sampleEvent(7), sampleEvent(8), sampleEvent(70, kind: "tasksMoved", tasks: [7, 8]),
                sampleEvent(0, kind: "sortChanged", tasks: []), sampleEvent(17),
                sampleEvent(7, kind: "taskRenamed"),
            ], expectingHead: 0, time: 10)
        #expect(try store.events(touching: 7).map(\.seq) == [1, 3, 6])
        #expect(try store.events(touching: 8).map(\.seq) == [2, 3])
        #expect(try store.events(touching: 9).isEmpty)
        #expect(try store.events(touching: 7).last?.kind == "taskRenamed")
        #expect(try store.events(after: 3, through: 4, limit: nil).first?.tasks == [])
        // Read in place, through the index or from the events' own lists: the same events, each listing the task.
        for indexed in [true, false] {
            var seen: [(Int64, String, Bool)] = []
            try store.scan(touching: 7, indexed: indexed) { view, lists in
                seen.append((view.seq, String(decoding: view.kind, as: UTF8.self), lists))
            }
            #expect(seen.map(\.0) == [1, 3, 6] && seen.allSatisfy(\.2))
            #expect(seen.last?.1 == "taskRenamed")
        }
    }

    @Test(arguments: Kind.allCases) func lastSeqAtOrBeforeATime(kind: Kind) throws {
        let store = try Subject(kind).store
        _ = try store.append([sampleEvent(1)], expectingHead: 0, time: 100)
        _ = try store.append([sampleEvent(2), sampleEvent(3)], expectingHead: 1, time: 200)
        _ = try store.append([sampleEvent(4)], expectingHead: 3, time: 300)
        // A clock that went back: the commit time is raised to the head's so times never decrease.
        _ = try store.append([sampleEvent(5)], expectingHead: 4, time: 150)
        #expect(try store.events(after: 4, through: nil, limit: nil).first?.time == 300)
        #expect(try store.lastSeq(atOrBefore: 50) == 0)
        #expect(try store.lastSeq(atOrBefore: 100) == 1)
        #expect(try store.lastSeq(atOrBefore: 199) == 1)
        #expect(try store.lastSeq(atOrBefore: 250) == 3)
        #expect(try store.lastSeq(atOrBefore: 300) == 5)
        #expect(try store.lastSeq(atOrBefore: Int64.max) == 5)
    }

    @Test(arguments: Kind.allCases) func snapshotsAreFoundLatestFirst(kind: Kind) throws {
        let store = try Subject(kind).store
        _ = try store.append((1...10).map { sampleEvent($0) }, expectingHead: 0, time: 10)
        try store.saveSnapshot(seq: 2, reducerVersion: 1, bytes: [2])
        try store.saveSnapshot(seq: 4, reducerVersion: 1, bytes: [4])
        try store.saveSnapshot(seq: 3, reducerVersion: 2, bytes: [3])
        #expect(try store.latestSnapshot(reducerVersion: 1, atOrBefore: nil)?.seq == 4)
        #expect(try store.latestSnapshot(reducerVersion: 1, atOrBefore: nil)?.bytes == [4])
        #expect(try store.latestSnapshot(reducerVersion: 1, atOrBefore: 3)?.bytes == [2])
        #expect(try store.latestSnapshot(reducerVersion: 1, atOrBefore: 1) == nil)
        #expect(try store.latestSnapshot(reducerVersion: 2, atOrBefore: nil)?.bytes == [3])
        #expect(try store.latestSnapshot(reducerVersion: 3, atOrBefore: nil) == nil)
        // The seq alone, and the bytes read in place, agree with the copy.
        #expect(try store.latestSnapshotSeq(reducerVersion: 1, atOrBefore: nil) == 4)
        #expect(try store.latestSnapshotSeq(reducerVersion: 1, atOrBefore: 3) == 2)
        #expect(try store.latestSnapshotSeq(reducerVersion: 1, atOrBefore: 1) == nil)
        #expect(try store.latestSnapshotSeq(reducerVersion: 3, atOrBefore: nil) == nil)
        #expect(
            try store.withLatestSnapshot(reducerVersion: 2, atOrBefore: nil) { [$0] + $1.map(Int64.init) }
                == [3, 3])
        try store.saveSnapshot(seq: 4, reducerVersion: 1, bytes: [44])
        #expect(try store.latestSnapshot(reducerVersion: 1, atOrBefore: nil)?.bytes == [44])
        #expect(throws: StoreError.snapshotBeyondHead(seq: 11, head: 10)) {
            try store.saveSnapshot(seq: 11, reducerVersion: 1, bytes: [])
        }
    }

    /// `snapshotHolds` takes an encoding in pieces, as `verify` hashes a list while writing it: any split of the
    /// stored bytes holds; a byte changed, missing or added anywhere does not, nor another seq.
    @Test(arguments: Kind.allCases) func aSnapshotHoldsOnlyItsOwnBytesInAnyPieces(kind: Kind) throws {
        let store = try Subject(kind).store
        _ = try store.append((1...4).map { sampleEvent($0) }, expectingHead: 0, time: 10)
        var generator = SystemRandomNumberGenerator()
        let bytes = (0..<200_000).map { _ in UInt8.random(in: 0...255, using: &generator) }
        try store.saveSnapshot(seq: 3, reducerVersion: 1, bytes: bytes)
        func holds(_ candidate: [UInt8], pieces size: Int, seq: Int64 = 3) throws -> Bool {
            try store.snapshotHolds(reducerVersion: 1, seq: seq) { piece in
                candidate.withUnsafeBytes { all in
                    for start in stride(from: 0, to: all.count, by: size) {
                        piece(UnsafeRawBufferPointer(rebasing: all[start..<min(start + size, all.count)]))
                    }
                }
            }
        }
        for size in [1, 7, 65_536, bytes.count] { #expect(try holds(bytes, pieces: size)) }
        var changed = bytes
        changed[changed.count - 1] ^= 1
        for size in [7, 65_536] {
            #expect(try !holds(changed, pieces: size))
            #expect(try !holds(Array(bytes.dropLast()), pieces: size))
            #expect(try !holds(bytes + [0], pieces: size))
        }
        #expect(try !holds([], pieces: 1))
        #expect(try !holds(bytes, pieces: 65_536, seq: 4))
        #expect(try !holds(bytes, pieces: 65_536, seq: 2))
    }

    @Test(arguments: Kind.allCases) func onlyTheLatestFewSnapshotsAreKept(kind: Kind) throws {
        let store = try Subject(kind).store
        _ = try store.append((1...10).map { sampleEvent($0) }, expectingHead: 0, time: 10)
        for seq in Int64(1)...8 { try store.saveSnapshot(seq: seq, reducerVersion: 1, bytes: [UInt8(seq)]) }
        #expect(try store.latestSnapshot(reducerVersion: 1, atOrBefore: nil)?.seq == 8)
        #expect(try store.latestSnapshot(reducerVersion: 1, atOrBefore: 6)?.seq == 6)
        #expect(try store.latestSnapshot(reducerVersion: 1, atOrBefore: 5) == nil)
    }

    @Test(arguments: Kind.allCases) func theChainLinksEveryEvent(kind: Kind) throws {
        let store = try Subject(kind).store
        _ = try store.append((1...5).map { sampleEvent($0) }, expectingHead: 0, time: 10)
        _ = try store.append([sampleEvent(6)], expectingHead: 5, time: 11)
        let events = try store.events(after: 0, through: nil, limit: nil)
        #expect(events.allSatisfy { $0.hash.count == 32 })
        #expect(Set(events.map(\.hash)).count == 6)
        let report = try store.verifyChain()
        #expect(report.isValid)
        #expect(report.rowCount == 6 && report.head == 6)
        #expect(report.headHash == events.last?.hash)
    }

    @Test(arguments: [Kind.sqlite, .postgres]) func everyStoreComputesTheSameEventsAndHashes(kind: Kind)
        throws
    {
        let memory = try Subject(.inMemory).store
        let subject = try Subject(kind)
        let stored = subject.store
        // Large enough to span several multi-row INSERTs, with 0 to 3 tasks per event and a repeated task.
        let batch = (1...150).map { index -> NewEvent in
            let id = Int64(index)
            let tasks: [Int64] = [[], [id], [id, id + 1000], [id, id, -id]][index % 4]
            return sampleEvent(id, kind: "kind\(index % 3)", tasks: tasks)
        }
        for store in [memory, stored] {
            _ = try store.append(
                [sampleEvent(1), sampleEvent(5, kind: "x", tasks: [5, 6])], expectingHead: 0, time: 7)
            _ = try store.append(
                [NewEvent(kind: "", version: 0, tasks: [], payload: [])], expectingHead: 2, time: 9)
            _ = try store.append(batch, expectingHead: 3, time: 11)
            _ = try store.append([sampleEvent(7)], expectingHead: 153, time: 12)
        }
        let expected = try memory.events(after: 0, through: nil, limit: nil)
        #expect(expected.count == 154)
        #expect(try stored.events(after: 0, through: nil, limit: nil) == expected)
        #expect(try stored.verifyChain() == memory.verifyChain())
        for task: Int64 in [1, 3, 7, 1007, -7, 5, 6, 200] {
            #expect(try stored.events(touching: task) == memory.events(touching: task))
        }
        #expect(try stored.events(touching: 7).map(\.seq) == [10, 154])
    }
}
