import FuzzSupport
import Testing

@testable import LedgerCore

/// The ids a snapshot read keeps (`IDWalk`) answer as a set of them does, in the order a snapshot asks (increasing)
/// and in any other (a damaged one), and a section built at once is the section built id by id.
@Suite struct IDWalkTests {
    @Test func aWalkAnswersAsTheSetWhateverTheOrderOfTheQuestions() {
        var rng = SplitMix64(seed: 2424)
        for round in 0..<200 {
            let ids = Set((0..<Int(rng.next() % 40)).map { _ in TaskID(1 + rng.next() % 300) })
            var walk = IDWalk(ids)
            // Mostly increasing, as records are; every fourth round jumps back and forth.
            var asked = (1...320).map(TaskID.init)
            if round % 4 == 3 { asked = (0..<400).map { _ in TaskID(rng.next() % 330) } }
            for id in asked { #expect(walk.holds(id) == ids.contains(id), "round \(round), id \(id)") }
        }
    }

    @Test func aSectionReadAtOnceIsTheSectionBuiltIdByID() {
        for count in [0, 1, 255, 256, 257, 1000, 100_000] {
            let ids = (0..<count).map { TaskID(count - $0) }
            var one = SectionTasks()
            for id in ids { one.append(id) }
            let once = SectionTasks(ids)
            #expect(once == one && Array(once) == ids)
            #expect(once.chunkCounts == one.chunkCounts)
        }
    }
}
