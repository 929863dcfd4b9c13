import LedgerCore
import LedgerUI
import Testing

/// A sorted view's rows kept across adds and deletes (``RowIndex/refresh(_:in:)``) are the rows of the whole view
/// sorted again, in every sort, direction and filter.
@Suite struct SortedRowsTests {
    static let day: Int64 = 86_400_000
    static let start: Int64 = 1_800_000_000_000
    /// Names that tie (the same name, the same name in another case, the same first letter), of every kind, and
    /// some that start with no letter.
    static let names = [
        "a.iso", "A.iso", "a.iso", "b.mp4", "Beta.mp3", "1x.txt", "_z.png", "ünï.pdf", "b.mp4", "c", "é.jpg",
    ]

    static let filters: [TaskFilter] = [.all, .unfinished, .finished, .finishedWithin(days: 7)]

    /// A list folded event by event, each a random number of hours after the one before.
    struct Log {
        var list = DownloadList()
        var seq: Int64 = 0
        var logged: [LoggedEntry] = []
        var time = SortedRowsTests.start
        var rng: Rng

        init(seed: UInt64) {
            rng = Rng(state: seed)
            fold(.ledgerCreated(directory: "/downloads", maxDownloads: 3))
        }

        /// Folds `event`; returns the ids it names.
        @discardableResult
        mutating func fold(_ event: Event) -> [TaskID] {
            seq += 1
            time += Int64(rng.next(below: 40)) * 3_600_000
            logged.append(LoggedEntry(seq: seq, time: time, entry: Entry(event)))
            list.apply(logged[logged.count - 1])
            return event.taskIDs
        }

        mutating func run(_ command: Command) throws -> [TaskID] {
            fold(try list.decide(command).entry.event)
        }

        mutating func add() throws -> [TaskID] {
            let urls = (0..<(1 + rng.next(below: 3))).map { _ in
                "https://example.com/\(seq)-\(rng.next(below: 1_000_000))/"
                    + names[rng.next(below: names.count)]
            }
            return try run(.add(urls: urls, placement: .end, name: nil, sha256: nil, directory: nil))
        }

        /// A live task at random.
        mutating func anyLive() -> TaskID? {
            let live = list.sections.flatMap(\.tasks)
            return live.isEmpty ? nil : live[rng.next(below: live.count)]
        }

        /// The server's size for `id`, then its file complete.
        mutating func finish(_ id: TaskID) {
            let size = [Int64(5), 999_999, 1_000_000, 42_000_000, 3_000_000_000][rng.next(below: 5)]
            fold(
                .transferResolved(
                    id: id, size: size, serverName: nil, validator: nil, acceptsRanges: true,
                    restartedFromZero: nil))
            fold(
                .transferCompleted(
                    id: id, bytes: size, sha256: String(repeating: "c", count: 64), fileName: "f"))
        }
    }

    /// A small deterministic generator, so a failure names its seed and happens again.
    struct Rng {
        var state: UInt64
        mutating func next(below n: Int) -> Int {
            state &+= 0x9E37_79B9_7F4A_7C15
            var z = state
            z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
            z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
            return Int((z ^ (z >> 31)) % UInt64(n))
        }
    }

    static func rows(_ index: RowIndex, _ list: DownloadList) -> [Row?] {
        (0..<index.count).map { index.row($0, in: list) }
    }

    @Test(arguments: SortMode.allCases.filter { $0 != .manual }, [false, true])
    func keptRowsAreTheWholeViewSortedAgain(sort: SortMode, descending: Bool) throws {
        for (f, filter) in Self.filters.enumerated() {
            var log = Log(seed: UInt64(f * 100 + sort.rawValue.count + (descending ? 7 : 0)))
            for _ in 0..<12 { _ = try log.add() }
            for _ in 0..<8 { if let id = log.anyLive() { log.finish(id) } }
            _ = try log.run(.sort(sort, descending: descending))
            let now = log.time + 2 * Self.day
            var kept = RowIndex(list: log.list, filter: filter, now: now, utcOffsetSeconds: 3600)
            var refreshed = 0
            for step in 0..<60 {
                var named: [TaskID] = []
                switch log.rng.next(below: 6) {
                case 0, 1, 2:
                    named = try log.add()
                case 3, 4:
                    guard let id = log.anyLive() else { continue }
                    named = try log.run(.delete(.tasks([id]), mode: .record))
                default:
                    guard let id = log.list.trash.first?.id else { continue }
                    named = try log.run(.purge([id]))
                }
                let took = kept.refresh(named, in: log.list)
                #expect(took, "step \(step)")
                refreshed += 1
                let fresh = RowIndex(list: log.list, filter: filter, now: now, utcOffsetSeconds: 3600)
                #expect(
                    Self.rows(kept, log.list) == Self.rows(fresh, log.list),
                    "\(sort) \(descending ? "descending" : "ascending") \(filter), step \(step)")
            }
            #expect(refreshed > 40)
            #expect(kept.count > 40 || filter != .all)
        }
    }

    @Test func aCompletedTaskMovesToItsPlaceInTheViewByCompletionTime() throws {
        for filter in Self.filters {
            var log = Log(seed: 3)
            for _ in 0..<10 { _ = try log.add() }
            _ = try log.run(.sort(.finished, descending: true))
            let now = log.time + Self.day
            var kept = RowIndex(list: log.list, filter: filter, now: now, utcOffsetSeconds: 0)
            for id in [TaskID(3), 1, 7] {
                log.finish(id)
                let took = kept.refresh([id], in: log.list)
                #expect(took)
                let fresh = RowIndex(list: log.list, filter: filter, now: now, utcOffsetSeconds: 0)
                #expect(Self.rows(kept, log.list) == Self.rows(fresh, log.list), "\(filter), #\(id)")
            }
        }
    }

    /// The manual list without a filter reads its sections directly (made again in O(sections)); the to-delete
    /// list is made again.
    @Test func theManualListAndTheToDeleteListAreNotKeptThisWay() throws {
        var log = Log(seed: 9)
        _ = try log.add()
        var manual = RowIndex(list: log.list, filter: .all, now: log.time, utcOffsetSeconds: 0)
        _ = try log.run(.sort(.name, descending: false))
        var trash = RowIndex(list: log.list, filter: .trash, now: log.time, utcOffsetSeconds: 0)
        let named = try log.add()
        let tookManual = manual.refresh(named, in: log.list)
        let tookTrash = trash.refresh(named, in: log.list)
        #expect(!tookManual && !tookTrash)
    }

    /// The screen takes an add or a delete in a sorted view in place, and shows what indexing it afresh shows.
    @Test func theScreenKeepsItsSortedRowsAcrossAddsAndDeletes() throws {
        var log = Log(seed: 21)
        for _ in 0..<5 { _ = try log.add() }
        _ = try log.run(.sort(.name, descending: true))
        var live = UIModel.showing(log.list, columns: 100, rows: 40)
        for step in 0..<20 {
            let head = log.list.head
            if step % 3 == 2, let id = log.anyLive() {
                _ = try log.run(.delete(.tasks([id]), mode: .record))
            } else {
                _ = try log.add()
            }
            live.setList(log.list, after: Array(log.logged.drop { $0.seq <= head }))
            let fresh = UIModel.showing(log.list, columns: 100, rows: 40)
            #expect(live.lines() == fresh.lines(), "step \(step)")
        }
    }
}
