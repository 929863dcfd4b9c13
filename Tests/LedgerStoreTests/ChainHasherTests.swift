import Testing

@testable import LedgerStore

struct ChainHasherTests {
    /// Known answers computed independently (Python hashlib) from the format in docs/store.md.
    @Test func hashesFollowTheDocumentedCanonicalForm() throws {
        let store = InMemoryEventStore()
        let first = NewEvent(
            kind: "tasksAdded", version: 1, tasks: [7, 8], payload: Array(#"{"id":7}"#.utf8))
        let second = NewEvent(kind: "tasksPaused", version: 2, tasks: [], payload: Array("{}".utf8))
        _ = try store.append([first], expectingHead: 0, time: 1_700_000_000_000)
        _ = try store.append([second], expectingHead: 1, time: 1_700_000_000_500)
        let hashes = try store.events(after: 0, through: nil, limit: nil).map { hex($0.hash) }
        #expect(
            hashes == [
                "25ca3ecec5d7f6ea9bccc0bce878e728bf44d9189dfc34d30a3cd3ebf1945369",
                "2f8b0c5885a345873bcc736076692b72cac2f53acd8a0b68c08d55a47c6ddb65",
            ])
    }

    /// `verify` hashes each stored row where it lies: the same chain as the laid-out form, known answers above.
    @Test func hashingInPlaceGivesTheSameChain() {
        let hasher = ChainHasher()
        hasher.restart(from: nil)
        let events: [(Int64, Int64, String, Int, String, String)] = [
            (1, 1_700_000_000_000, "tasksAdded", 1, "7,8", #"{"id":7}"#),
            (2, 1_700_000_000_500, "tasksPaused", 2, "", "{}"),
        ]
        var hashes: [String] = []
        for (seq, time, kind, version, tasks, payload) in events {
            Array(kind.utf8).withUnsafeBytes { kind in
                Array(tasks.utf8).withUnsafeBytes { tasks in
                    Array(payload.utf8).withUnsafeBytes { payload in
                        hasher.chainInPlace(
                            seq: seq, time: time, kind: kind, version: version, tasksText: tasks,
                            payload: payload)
                    }
                }
            }
            hashes.append(hex(Array(hasher.hash)))
        }
        #expect(
            hashes == [
                "25ca3ecec5d7f6ea9bccc0bce878e728bf44d9189dfc34d30a3cd3ebf1945369",
                "2f8b0c5885a345873bcc736076692b72cac2f53acd8a0b68c08d55a47c6ddb65",
            ])
        #expect(hasher.entries.isEmpty, "nothing kept")
    }

    @Test func tasksTextRoundTrips() {
        let tasks: [Int64] = [7, 0, -3, Int64.max, Int64.min]
        let text = ChainHasher.tasksText(tasks)
        #expect(String(decoding: text, as: UTF8.self) == "7,0,-3,9223372036854775807,-9223372036854775808")
        #expect(text.withUnsafeBytes { ChainHasher.parseTasks($0) } == tasks)
        #expect([UInt8]().withUnsafeBytes { ChainHasher.parseTasks($0) } == [])
        #expect(Array("7,,8".utf8).withUnsafeBytes { ChainHasher.parseTasks($0) } == nil)
        #expect(Array("7,x".utf8).withUnsafeBytes { ChainHasher.parseTasks($0) } == nil)
    }

    /// The in-place check of a `tasks` column takes and refuses exactly the texts `parseTasks` does, and finds an id
    /// where the parsed list holds it.
    @Test func aTasksColumnIsSearchedInPlaceAsItParses() {
        let texts = [
            "", "7", "7,8,9", "+7", "-7", "-0", "07", "7,,8", ",7", "7,", "7,x", "x", "+", "-", "1 2", " 7",
            "9223372036854775807", "9223372036854775808", "-9223372036854775808", "-9223372036854775809",
            "99999999999999999999", "1,2,3,100000", "3,-3",
        ]
        for text in texts {
            let bytes = Array(text.utf8)
            let parsed = bytes.withUnsafeBytes { ChainHasher.parseTasks($0) }
            for id: Int64 in [0, 7, -7, 3, -3, 8, 100_000, Int64.max, Int64.min] {
                let found = bytes.withUnsafeBytes { ChainHasher.tasks($0, list: id) }
                #expect(found == parsed.map { $0.contains(id) }, "'\(text)' #\(id)")
            }
        }
    }

    private func hex(_ bytes: [UInt8]) -> String {
        bytes.map { String($0, radix: 16).count == 1 ? "0" + String($0, radix: 16) : String($0, radix: 16) }
            .joined()
    }
}
