import Testing

@testable import LedgerCore

/// The summary a snapshot keeps for `stats`: counted as `stats` counts, read back equal, nothing else accepted.
@Suite struct ListSummaryTests {
    @Test func theSummaryCountsTheListAndReadsBackEqual() throws {
        let log = richLog()
        let summary = ListSummary(log.list)
        let live = log.list.sections.flatMap(\.tasks).compactMap { log.list.tasks[$0] }
        #expect(summary.tasks == live.count)
        for state in TaskState.allCases {
            #expect(summary.count(state) == live.filter { $0.state == state }.count)
        }
        #expect(summary.bytes == live.map(\.bytes).reduce(0, +))
        #expect(summary.sizeKnown == live.compactMap(\.size).reduce(0, +))
        #expect(summary.trash == log.list.trash.count && summary.sections == log.list.sections.count)
        #expect(summary.head == log.list.head && summary.headTime == log.list.headTime)
        let bytes = summary.encoded()
        #expect(try bytes.withUnsafeBytes { try ListSummary(encoded: $0) } == summary)
    }

    @Test func bytesThatAreNoSummaryAreRefusedWithoutATrap() {
        var summary = ListSummary()
        summary.tasks = 2
        summary.byState[0] = 2
        let good = summary.encoded()
        var cases: [[UInt8]] = [
            [], Array("DLSUM0".utf8) + good.dropFirst(6), good + [0], Array(good.dropLast()),
        ]
        // Counts that do not add up, and counts beyond any list.
        var wrong = summary
        wrong.byState[1] = 1
        cases.append(wrong.encoded())
        var huge = summary
        huge.tasks = Int.max
        cases.append(huge.encoded())
        for bytes in cases {
            #expect(throws: SnapshotError.self) { try bytes.withUnsafeBytes { try ListSummary(encoded: $0) } }
        }
    }

    @Test func onlyEventsThatCannotChangeACountAreFolded() {
        var log = TestLog()
        log.add(u("a.iso"), u("b.iso"))
        var summary = ListSummary(log.list)
        let time = log.list.headTime + 5
        let neutral: [Event] = [
            .speedLimitChanged(1000), .taskRenamed(id: 1, name: "x", fileName: nil),
            .sectionRenamed(index: 0, title: "T"), .sortChanged(.size, descending: false),
        ]
        for (n, event) in neutral.enumerated() {
            let folded = summary.fold(
                LoggedEntry(seq: summary.head + 1, time: time + Int64(n), entry: Entry(event)))
            #expect(folded)
        }
        let inserted = summary.fold(
            LoggedEntry(
                seq: summary.head + 1, time: time, entry: Entry(.sectionInserted(index: 0, title: "N"))))
        #expect(inserted)
        #expect(summary.sections == 2 && summary.head == log.list.head + 5 && summary.headTime == time)
        let before = summary
        for event: Event in [
            .tasksPaused(ids: [1]), .transferPaused(id: 2, bytes: 10), .sectionRemoved(index: 0),
            .tasksDeleted(ids: [1], modes: [.record]),
        ] {
            let folded = summary.fold(LoggedEntry(seq: summary.head + 1, time: time, entry: Entry(event)))
            #expect(!folded)
            #expect(summary == before)
        }
    }
}
