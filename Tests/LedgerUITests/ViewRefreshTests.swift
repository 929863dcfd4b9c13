import LedgerCore
import LedgerUI
import Testing

/// A sorted or filtered view's rows kept across any events but a sort change (``RowIndex/refresh(_:in:)``: the
/// tasks the events name taken out and put back) are the rows of the whole view computed again, over random
/// sequences of every kind of event a user or the downloader appends, in every sort, direction and filter.
@Suite struct ViewRefreshTests {
    typealias Log = SortedRowsTests.Log

    static let names = SortedRowsTests.names
    static let filters: [TaskFilter] = [.all, .unfinished, .finished, .finishedWithin(days: 7)]

    /// One random step: a command as the CLI or a key runs it, or a fact of the downloader. Returns the ids its
    /// events name (nothing when the command was refused: nothing was appended).
    static func step(_ log: inout Log) throws -> [TaskID] {
        let live = log.list.sections.flatMap(\.tasks)
        let some = live.isEmpty ? nil : live[log.rng.next(below: live.count)]
        let sections = max(1, log.list.sections.count)
        let section = log.rng.next(below: sections)
        let name = names[log.rng.next(below: names.count)]
        let command: Command?
        switch log.rng.next(below: 22) {
        case 0, 1: return try log.add()
        case 2: command = some.map { .rename($0, name: "\(log.rng.next(below: 9))\(name)") }
        case 3: command = some.map { .rename($0, name: name) }
        case 4:
            guard let some else { return [] }
            log.finish(some)
            return [some]
        case 5:
            guard let some else { return [] }
            let size: Int64? = [nil, 12, 7_000_000, 2_000_000_000][log.rng.next(below: 4)]
            return log.fold(
                .transferResolved(
                    id: some, size: size, serverName: log.rng.next(below: 2) == 0 ? nil : name,
                    validator: nil,
                    acceptsRanges: true, restartedFromZero: nil))
        case 6:
            guard let some else { return [] }
            return log.fold(.transferStarted(id: some, attempt: 1, offset: 0))
        case 7:
            guard let some else { return [] }
            let failure = TaskFailure(code: "http-404", detail: "not found", retryable: false)
            return log.fold(.transferFailed(id: some, failure: failure, bytes: 0))
        case 8:
            command = some.map {
                .delete(.tasks([$0]), mode: [.all, .record, .file][log.rng.next(below: 3)])
            }
        case 9: command = .delete(.section(section), mode: .record)
        case 10: command = log.list.trash.first.map { .restore([$0.id], to: nil) }
        case 11: command = .restore(nil, to: Location(section: section, index: 0))
        case 12: command = log.list.trash.last.map { .purge([$0.id]) }
        case 13:
            command = some.map { .move([$0], to: Location(section: section, index: log.rng.next(below: 3))) }
        case 14: command = .insertSection(title: "S\(log.seq)", at: log.rng.next(below: sections + 1))
        case 15: command = .renameSection(section, title: "R\(log.seq)")
        case 16: command = .moveSection(section, to: log.rng.next(below: sections))
        case 17: command = .removeSection(section)
        case 18:
            command =
                [.pause(.section(section)), .resume(.all), .stop(.tasks(live.prefix(2).map { $0 }))][
                    log.rng.next(below: 3)]
        case 19: command = some.map { .redownload(.tasks([$0])) }
        case 20: command = .sortSection(section, by: .name, descending: log.rng.next(below: 2) == 0)
        default: command = log.rng.next(below: 2) == 0 ? .undo : .redo
        }
        guard let command else { return [] }
        do {
            return try log.run(command)
        } catch is LedgerError {
            return []
        }
    }

    static func rows(_ index: RowIndex, _ list: DownloadList) -> [Row?] { SortedRowsTests.rows(index, list) }

    @Test(arguments: SortMode.allCases, [false, true])
    func keptRowsAreTheWholeViewComputedAgain(sort: SortMode, descending: Bool) throws {
        for (f, filter) in Self.filters.enumerated() where !(sort == .manual && filter == .all) {
            var log = Log(seed: UInt64(1000 + f * 100 + sort.rawValue.count * 7 + (descending ? 3 : 0)))
            if f % 2 == 1 { _ = try log.run(.setAutoRemoveEmptySections(true)) }
            for _ in 0..<10 { _ = try log.add() }
            _ = try log.run(.insertSection(title: "Second", at: nil))
            for _ in 0..<4 { _ = try log.add() }
            for _ in 0..<6 { if let id = log.anyLive() { log.finish(id) } }
            if sort != .manual || descending { _ = try log.run(.sort(sort, descending: descending)) }
            let now = log.time + 2 * SortedRowsTests.day
            var kept = RowIndex(list: log.list, filter: filter, now: now, utcOffsetSeconds: 3600)
            for step in 0..<120 {
                // One to three events between two screen updates, as a busy ledger has them.
                let head = log.list.head
                for _ in 0...log.rng.next(below: 3) { _ = try Self.step(&log) }
                let events = log.logged.drop { $0.seq <= head }.map(\.entry.event)
                let fresh = RowIndex(list: log.list, filter: filter, now: now, utcOffsetSeconds: 3600)
                // An undo or a redo of the sort changes it: the screen makes the rows again then.
                guard events.allSatisfy(RowIndex.refreshes) else {
                    #expect(events.contains { if case .sortChanged = $0 { true } else { false } })
                    kept = fresh
                    continue
                }
                let named = Set(events.flatMap(\.taskIDs)).count
                let shown = kept.count - kept.groupCount
                let many = named > RowIndex.refreshFloor && named * RowIndex.refreshFraction > shown
                let took = kept.refresh(events.flatMap(\.taskIDs), in: log.list)
                let what =
                    "\(sort) \(descending ? "descending" : "ascending") \(filter), step \(step): \(events)"
                #expect(took == !many, "\(what)")
                guard took else {
                    kept = fresh
                    continue
                }
                #expect(Self.rows(kept, log.list) == Self.rows(fresh, log.list), "\(what)")
                if !took { kept = fresh }
            }
        }
    }

    /// The rows are the view's: the filtered manual list is read without LedgerCore's `view`, the sorted views by
    /// its ids.
    @Test func theRowsAreTheView() throws {
        var log = Log(seed: 77)
        for _ in 0..<12 { _ = try log.add() }
        _ = try log.run(.insertSection(title: "Empty", at: 0))
        _ = try log.run(.insertSection(title: "Later", at: nil))
        for _ in 0..<5 { _ = try log.add() }
        for _ in 0..<9 { if let id = log.anyLive() { log.finish(id) } }
        let now = log.time + SortedRowsTests.day
        for sort in SortMode.allCases {
            if sort != .manual { _ = try log.run(.sort(sort, descending: sort == .name)) }
            for filter in Self.filters + [.trash] {
                let index = RowIndex(list: log.list, filter: filter, now: now, utcOffsetSeconds: 0)
                var expected: [Row?] = []
                for (g, v) in log.list.view(filter: filter, now: now).enumerated() {
                    expected.append(.header(title: v.title, section: v.index, count: v.tasks.count, group: g))
                    expected += v.tasks.map { .task($0.id, group: g) }
                }
                #expect(Self.rows(index, log.list) == expected, "\(sort) \(filter)")
            }
        }
    }

    /// The day groups follow the clock: at midnight "Today" becomes "Yesterday" without any event.
    @Test func aViewByDayIsIndexedAgainWhenTheDayChanges() throws {
        var log = Log(seed: 8)
        for _ in 0..<4 { _ = try log.add() }
        _ = try log.run(.sort(.added, descending: true))
        var m = UIModel.showing(log.list, columns: 100, rows: 20)
        let newest = log.list.tasks[log.list.nextID - 1]?.added ?? 0
        m.now = newest
        #expect(m.lines().contains { $0.contains("Today  (") }, "\(m.lines())")
        m.now = newest + SortedRowsTests.day
        #expect(!m.lines().contains { $0.contains("Today  (") }, "\(m.lines())")
        #expect(m.lines().contains { $0.contains("Yesterday  (") }, "\(m.lines())")
        let fresh = RowIndex(list: log.list, filter: .all, now: m.now, utcOffsetSeconds: 0)
        #expect(Self.rows(m.rows, log.list) == Self.rows(fresh, log.list))
    }

    /// Past an eighth of the view's tasks (and 64), the view is computed again instead.
    @Test func eventsThatNameManyTasksHaveTheViewComputedAgain() throws {
        var log = Log(seed: 5)
        var added: [TaskID] = []
        while added.count < 600 {
            added += try log.run(
                .add(
                    urls: (0..<100).map { "https://example.com/many/\(added.count + $0).iso" },
                    placement: .end,
                    name: nil, sha256: nil, directory: nil))
        }
        _ = try log.run(.sort(.name, descending: false))
        var index = RowIndex(list: log.list, filter: .all, now: log.time, utcOffsetSeconds: 0)
        let few = try log.run(.delete(.tasks(Array(added.prefix(70))), mode: .record))
        let tookFew = index.refresh(few, in: log.list)
        #expect(tookFew)
        let many = try log.run(.delete(.tasks(Array(added[70..<170])), mode: .record))
        let tookMany = index.refresh(many, in: log.list)
        #expect(!tookMany)
        let sortChange = try log.list.decide(.sort(.size, descending: false)).entry.event
        #expect(!RowIndex.refreshes(sortChange))
    }

    /// The screen follows any events in a sorted or filtered view and shows the rows indexing it afresh shows, the
    /// cursor staying on its task.
    @Test(arguments: [(SortMode.name, TaskFilter.all), (.size, .unfinished), (.manual, .unfinished)])
    func theScreenFollowsEveryEventAsIfIndexedAgain(sort: SortMode, filter: TaskFilter) throws {
        var log = Log(seed: 31)
        for s in 0..<4 {
            if s > 0 { _ = try log.run(.insertSection(title: "Part \(s)", at: nil)) }
            for _ in 0..<8 { _ = try log.add() }
        }
        _ = try log.run(.sort(sort, descending: true))
        var live = UIModel.showing(log.list, columns: 100, rows: 30)
        if filter != .all { _ = live.press(.char("f")) }
        _ = live.press(.down, .down, .down)
        var followed = 0
        for step in 0..<80 {
            let head = log.list.head
            var before: TaskID?
            if case .task(let id, _)? = live.rows.row(live.cursor, in: live.list) { before = id }
            _ = try Self.step(&log)
            live.setList(log.list, after: Array(log.logged.drop { $0.seq <= head }))
            var fresh = UIModel.showing(log.list, columns: 100, rows: 30)
            if filter != .all { _ = fresh.press(.char("f")) }
            #expect(live.filter == filter && fresh.filter == filter)
            #expect(Self.rows(live.rows, log.list) == Self.rows(fresh.rows, log.list), "step \(step)")
            if let before, fresh.rows.row(of: before, in: log.list) != nil {
                guard case .task(let id, _)? = live.rows.row(live.cursor, in: log.list) else {
                    Issue.record("step \(step): the cursor left its task")
                    continue
                }
                #expect(id == before, "step \(step)")
                followed += 1
            }
        }
        #expect(followed > 30, "\(followed)")
    }
}
