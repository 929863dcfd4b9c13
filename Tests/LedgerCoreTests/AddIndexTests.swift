import Foundation
import Testing

@testable import LedgerCore

/// A task of a big add read through the add's index (its part of the payload alone) is what the decode for its
/// sake gives from the whole payload, with the same outline; an index never serves a payload it was not made of.
@Suite struct AddIndexTests {
    /// Big adds (over ``AddIndex/minimumPayload``) of the shapes the writer makes: escapes and non-ASCII in every
    /// string, names and digests on some tasks, options shared or not, one list of tasks or several groups.
    static let adds: [Event] = {
        let tricky = "a \"q\" \\ b\nc é 日本 🎉"
        func tasks(_ ids: ClosedRange<TaskID>, options: (TaskID) -> TaskOptions = { _ in TaskOptions() })
            -> [NewTask]
        {
            ids.map { id in
                NewTask(
                    id: id, url: "https://mirror.example.org/pub/\(id)/\(id % 3 == 0 ? tricky : "file").iso",
                    name: id % 4 == 0 ? tricky : nil,
                    sha256: id % 5 == 0 ? String(repeating: "ab", count: 32) : nil,
                    directory: id % 2 == 0 ? "/d/\(tricky)" : "/d", options: options(id))
            }
        }
        let curl = AddOutlineTests.options("curl")
        return [
            .tasksAdded(tasks: tasks(1...1300), section: 0, index: 0, newSectionTitle: "Downloads"),
            .tasksAdded(tasks: tasks(1...1000) { _ in curl }, section: 2, index: 5, newSectionTitle: nil),
            .tasksAdded(
                tasks: tasks(1...1000) { $0 == 700 ? AddOutlineTests.options("wget") : curl }, section: 0,
                index: 3, newSectionTitle: tricky),
            .groupsAdded([
                TaskGroup(tasks: tasks(1...700), section: 0, index: 2, newSectionTitle: nil),
                TaskGroup(tasks: tasks(701...701), section: 0, index: 0, newSectionTitle: tricky),
                TaskGroup(tasks: [], section: 1, index: 0, newSectionTitle: "Empty"),
                TaskGroup(
                    tasks: tasks(702...1500) { _ in curl }, section: 3, index: 0, newSectionTitle: "Later"),
            ]),
        ]
    }()

    /// Reads `payload`'s bytes in a range, counting them.
    final class Pieces {
        let payload: [UInt8]
        var read = 0
        init(_ payload: [UInt8]) { self.payload = payload }
        func piece(_ range: Range<Int>) -> [UInt8]? {
            guard range.upperBound <= payload.count else { return nil }
            read += range.count
            return Array(payload[range])
        }
    }

    static func entry(_ index: AddIndex, _ kind: String, _ id: TaskID, _ pieces: Pieces) -> (
        Entry, AddOutline
    )? {
        Array(kind.utf8).withUnsafeBytes { index.entry(kind: $0, for: id, piece: pieces.piece) }
    }

    @Test func aTaskReadThroughTheIndexIsWhatTheWholePayloadGivesForItsSake() throws {
        for event in Self.adds {
            let entry = Entry(event, undoes: 4, redoes: nil, origin: "aria2 RPC")
            let payload = entry.encodedPayload()
            #expect(payload.count >= AddIndex.minimumPayload)
            let index = try #require(payload.withUnsafeBytes { AddIndex(entry: entry, payload: $0) })
            #expect(index.payloadLength == payload.count)
            let copy = try index.encoded().withUnsafeBytes { try AddIndex(encoded: $0) }
            #expect(copy == index)
            let ids = event.taskIDs
            let stride = AddIndex.stride
            var samples = [ids[0], ids[1], ids[stride - 1], ids[stride], ids[stride + 1], ids[ids.count / 2]]
            samples += [ids[ids.count - 2], ids[ids.count - 1], 700, 701, 702]
            for id in samples {
                let pieces = Pieces(payload)
                let read = try #require(Self.entry(copy, event.kind, id, pieces), "\(event.kind) #\(id)")
                let (whole, outline) = try AddOutlineTests.decode(event.kind, payload, keeping: id)
                #expect(read.0 == whole, "\(event.kind) #\(id)")
                #expect(read.1 == outline, "\(event.kind) #\(id)")
                // The part of one mark's tasks, not the payload.
                #expect(
                    pieces.read > 0 && pieces.read < payload.count / 8, "\(pieces.read) of \(payload.count)")
            }
        }
    }

    @Test func anIndexServesOnlyThePayloadItWasMadeOf() throws {
        let event = Self.adds[0]
        let entry = Entry(event)
        let payload = entry.encodedPayload()
        let index = try #require(payload.withUnsafeBytes { AddIndex(entry: entry, payload: $0) })
        // A task's URL taken out: the tasks of the marks after it are no longer where the index says (the store
        // also finds the payload's length changed: the caller then reads it whole, which refuses it). One in the
        // same mark's part still reads as its own; a task the add does not hold is not found.
        let text = String(decoding: payload, as: UTF8.self)
        let url = #""url":"https://mirror.example.org/pub/100/file.iso","#
        #expect(text.contains(url))
        let edited = Pieces(Array(text.replacingOccurrences(of: url, with: "").utf8))
        for id: TaskID in [200, 1000, 1300] {
            #expect(Self.entry(index, event.kind, id, edited) == nil, "#\(id)")
        }
        let same = try AddOutlineTests.decode(event.kind, payload, keeping: 101).0
        #expect(Self.entry(index, event.kind, 101, edited)?.0 == same)
        #expect(Self.entry(index, event.kind, 1301, Pieces(payload)) == nil)
        #expect(Self.entry(index, event.kind, 0, Pieces(payload)) == nil)
        // A piece that cannot be read.
        #expect(
            Array(event.kind.utf8).withUnsafeBytes { index.entry(kind: $0, for: 5, piece: { _ in nil }) }
                == nil)

        // Small adds and other events have none.
        let small = Entry(AddOutlineTests.adds[0])
        #expect(small.encodedPayload().withUnsafeBytes { AddIndex(entry: small, payload: $0) } == nil)
        let moved = Entry(.tasksMoved(ids: [1], section: 0, index: 0))
        #expect(payload.withUnsafeBytes { AddIndex(entry: moved, payload: $0) } == nil)

        // Bytes that are not an index, or one cut short or grown, are refused; none traps.
        let bytes = index.encoded()
        for damaged in [
            [], Array("DLA1".utf8), Array(bytes.dropLast()), bytes + [0], Array(bytes.prefix(40)),
        ] {
            #expect(throws: AddIndexError.self) { try damaged.withUnsafeBytes { try AddIndex(encoded: $0) } }
        }
        var rng = SystemRandomNumberGenerator()
        for _ in 0..<300 {
            var flipped = bytes
            let at = Int.random(in: 4..<flipped.count, using: &rng)
            flipped[at] ^= UInt8.random(in: 1...255, using: &rng)
            if let other = try? flipped.withUnsafeBytes({ try AddIndex(encoded: $0) }) {
                // What it reads is then the payload's own task or nothing.
                for id: TaskID in [1, 650, 1300] {
                    if let (read, _) = Self.entry(other, event.kind, id, Pieces(payload)) {
                        #expect(read.event.taskIDs.allSatisfy { $0 == id })
                    }
                }
            }
        }
    }
}
