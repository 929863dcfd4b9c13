import FuzzSupport
import Testing

@testable import LedgerCore

/// The chunked ids of a section (issue 24 §1) behave exactly as an array of the same ids, whatever is done to them,
/// and a move in a long section shifts one chunk.
@Suite struct SectionTasksTests {
    /// Random inserts, removals, searches, filters and replacements, each done to an array and to the chunked ids:
    /// after every one they hold the same ids in the same order, no chunk is empty or past its limit, and every chunk's
    /// bounds are within its group's (which searches skip by).
    @Test func everyChangeLeavesTheSameIdsAsAnArray() {
        var rng = SplitMix64(seed: 24)
        for round in 0..<6 {
            // Empty, a few chunks, or 20 to 47 of them (two or three groups).
            let start =
                round.isMultiple(of: 2)
                ? 0 : Int.random(in: round == 1 ? 1...3000 : 5000...12_000, using: &rng)
            var array = (0..<start).map { TaskID($0 + 1) }
            var chunked = SectionTasks(array)
            for _ in 0..<800 {
                let id = TaskID.random(in: 1...4000, using: &rng)
                switch Int.random(in: 0..<8, using: &rng) {
                case 0, 1:
                    let at = Int.random(in: 0...array.count, using: &rng)
                    let ids = (0..<Int.random(in: 1...3, using: &rng)).map { id + TaskID($0) }
                    array.insert(contentsOf: ids, at: at)
                    chunked.insert(contentsOf: ids, at: at)
                case 2 where !array.isEmpty:
                    let at = Int.random(in: 0..<array.count, using: &rng)
                    #expect(array.remove(at: at) == chunked.remove(at: at))
                case 3:
                    #expect(array.firstIndex(of: id) == chunked.firstIndex(of: id))
                    #expect(array.filter { $0 == id }.count == chunked.occurrences(of: id))
                    // From any place: the first at or after it, as the array's own search from there finds.
                    let from = Int.random(in: -1...(array.count + 1), using: &rng)
                    let expected = array.indices.first { $0 >= from && array[$0] == id }
                    #expect(chunked.firstIndex(of: id, from: from) == expected, "from \(from)")
                case 4:
                    // A move: out of its place, in at the front.
                    if let i = chunked.firstIndex(of: id) {
                        chunked.remove(at: i)
                        array.remove(at: array.firstIndex(of: id)!)
                    }
                    chunked.insert(id, at: 0)
                    array.insert(id, at: 0)
                case 5 where !array.isEmpty:
                    let at = Int.random(in: 0..<array.count, using: &rng)
                    array[at] = id
                    chunked[at] = id
                case 6 where Int.random(in: 0..<40, using: &rng) == 0:
                    array.removeAll { $0 % 7 == id % 7 }
                    chunked.removeAll { $0 % 7 == id % 7 }
                case 7 where array.count > 10:
                    let lo = Int.random(in: 0..<array.count, using: &rng)
                    let hi = Int.random(in: lo...min(array.count, lo + 2000), using: &rng)
                    array.replaceSubrange(lo..<hi, with: [id])
                    chunked.replaceSubrange(lo..<hi, with: [id])
                default:
                    array.append(id)
                    chunked.append(id)
                }
                #expect(chunked.count == array.count)
                #expect(chunked.groupsHoldTheirChunks)
            }
            #expect(Array(chunked) == array)
            #expect(chunked == SectionTasks(array))
            #expect(chunked.indices.map { chunked[$0] } == array)
            #expect(chunked.chunkCounts.allSatisfy { $0 >= 1 && $0 <= SectionTasks.chunkLimit })
        }
    }

    /// Equal when the ids are, however they were chunked; and printed as an array prints.
    @Test func equalityIsByTheIdsInOrder() {
        var grown = SectionTasks()
        for id in 1...1000 { grown.insert(TaskID(id), at: grown.count) }
        var moved = SectionTasks(Array(1...1000))
        moved.insert(5000, at: 0)
        moved.remove(at: 0)
        #expect(grown == moved)
        #expect(grown != SectionTasks(Array(2...1001)))
        #expect(SectionTasks([1, 2, 3]).description == "[1, 2, 3]")
        #expect([1, 2, 3] as SectionTasks == SectionTasks([1, 2, 3]))
        #expect(SectionTasks().isEmpty && SectionTasks().count == 0)
    }

    /// A move in a section of 100,000 ids leaves every chunk within its limit: it shifted one chunk, not the
    /// section, and a search read only the chunks whose bounds hold the id.
    @Test func movesInALongSectionStayInTheirChunks() {
        var ids = SectionTasks(Array(1...100_000))
        for n in 0..<3000 {
            let id = TaskID(1 + (n * 7919) % 400 * 250)
            let i = ids.firstIndex(of: id)!
            ids.remove(at: i)
            ids.insert(id, at: n % 5)
        }
        #expect(ids.count == 100_000)
        #expect(Set(ids).count == 100_000)
        #expect(ids.chunkCounts.allSatisfy { $0 <= SectionTasks.chunkLimit })
        #expect(ids.chunkCounts.count <= 100_000 / SectionTasks.chunkSize + 8)
    }
}
