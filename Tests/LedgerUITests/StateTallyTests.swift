import LedgerCore
import LedgerTransfer
import LedgerUI
import Testing

/// The counts and rows kept event by event are what counting and indexing the whole list again gives.
@Suite struct StateTallyTests {
    static let failure = TaskFailure(code: "timeout", detail: "no data for 30 s", retryable: true)

    /// A session of commands and downloader facts over two sections.
    static func steps(sort: SortMode) -> [(inout ListBuilder) throws -> Void] {
        [
            { try $0.add(["a.iso", "b.iso", "c.iso"]) },
            { try $0.add(["d.iso", "e.iso"], placement: .newSection(title: "Later", at: nil)) },
            { $0.fact(.transferStarted(id: 1, attempt: 1, offset: 0)) },
            {
                $0.fact(
                    .transferCompleted(
                        id: 2, bytes: 9, sha256: String(repeating: "a", count: 64), fileName: "b.iso"))
            },
            { try $0.run(.pause(.tasks([3, 4]))) },
            { $0.fact(.transferFailed(id: 1, failure: failure, bytes: 5)) },
            { try $0.run(.delete(.tasks([4]), mode: .all)) },
            { try $0.run(.resume(.tasks([1]))) },
            { try $0.run(.restore([4], to: nil)) },
            { try $0.run(.sort(sort, descending: true)) },
            { $0.fact(.transferStarted(id: 5, attempt: 1, offset: 0)) },
            { $0.fact(.transferPaused(id: 5, bytes: 3)) },
            { try $0.run(.stop(.tasks([5]))) },
            { try $0.run(.undo) },
            {
                $0.fact(
                    .transferResolved(
                        id: 5, size: 7_000_000, serverName: "aa.iso", validator: nil, acceptsRanges: true,
                        restartedFromZero: nil))
            },
            { try $0.run(.rename(2, name: "0-first.iso")) },
            // Places change while sorted (as a replayed log may have them: the commands want the manual order).
            { $0.fold(Entry(.tasksMoved(ids: [5], section: 0, index: 0))) },
            { $0.fold(Entry(.sectionInserted(index: 1, title: "Mid"))) },
            { $0.fold(Entry(.sectionMoved(from: 0, to: 2))) },
            { try $0.run(.delete(.tasks([3]), mode: .record)) },
            { try $0.run(.purge([3])) },
            {
                $0.fact(
                    .transferCompleted(
                        id: 1, bytes: 9, sha256: String(repeating: "b", count: 64), fileName: "a.iso"))
            },
            { try $0.run(.sort(.manual, descending: false)) },
        ]
    }

    @Test(arguments: [0, 1, 2], SortMode.allCases)
    func countsAndRowsFollowEachEventAsAFullRecountWould(filterPresses: Int, sort: SortMode) throws {
        var b = ListBuilder()
        var live = UIModel.showing(b.list, columns: 100, rows: 16)
        for _ in 0..<filterPresses { _ = live.press(.char("f")) }
        for (i, step) in Self.steps(sort: sort).enumerated() {
            let head = b.list.head
            try step(&b)
            live.setList(b.list, after: Array(b.logged.drop { $0.seq <= head }))
            var fresh = UIModel.showing(b.list, columns: 100, rows: 16)
            for _ in 0..<filterPresses { _ = fresh.press(.char("f")) }
            #expect(live.counts == StateTally(b.list), "step \(i)")
            for s in TaskState.allCases {
                let n = b.list.sections.flatMap(\.tasks).filter { b.list.tasks[$0]?.state == s }.count
                #expect(live.counts[s] == n, "step \(i) \(s)")
            }
            #expect(live.lines() == fresh.lines(), "step \(i), \(filterPresses) f, \(sort)")
        }
    }

    @Test func entriesThatDoNotJoinTheListsAreNotTrusted() throws {
        var b = ListBuilder()
        try b.add(["a.iso", "b.iso"])
        var model = UIModel.showing(b.list)
        b.fact(.transferStarted(id: 1, attempt: 1, offset: 0))
        let started = b.logged.last!
        try b.run(.pause(.tasks([2])))
        // Only the first of the two events: the model counts the whole list instead of trusting a gap.
        model.setList(b.list, after: [started])
        #expect(model.counts[.paused] == 1 && model.counts[.downloading] == 1)
        #expect(model.counts == StateTally(b.list))
    }
}
