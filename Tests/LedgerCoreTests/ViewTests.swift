import Testing

@testable import LedgerCore

private let day: Int64 = 86_400_000
/// Midnight UTC of some day: the views' "now" is two hours later.
private let today: Int64 = 19_700 * day
private let now = today + 2 * 3_600_000

private func ids(_ view: [ViewSection]) -> [[TaskID]] { view.map { $0.tasks.map(\.id) } }

/// Tasks 1...6 added at different ages, with sizes, names and states.
private func viewLog() -> TestLog {
    var log = TestLog()
    let plan: [(String, Int64)] = [
        ("banana.jpg", today - 40 * day), ("Apple.mp3", today - 10 * day), ("apricot.mp4", today - 3 * day),
        ("1file.pdf", today - day + 5), ("été.zip", today + 3_600_000), ("zeta", today + 3_600_001),
    ]
    for (name, time) in plan {
        log.now = time - 1000
        log.add(u(name))
    }
    log.run(.insertSection(title: "Two", at: nil))
    log.run(.move([2, 4], to: Location(section: 1)))
    let sizes: [Int64?] = [500_000, 5_000_000, 50_000_000, 500_000_000, 5_000_000_000, nil]
    for (n, size) in sizes.enumerated() {
        log.fact(
            .transferResolved(
                id: TaskID(n + 1), size: size, serverName: nil, validator: nil, acceptsRanges: true,
                restartedFromZero: nil))
    }
    return log
}

struct ViewTests {
    @Test func manualViewShowsSectionsWithTheirIndexes() {
        let log = viewLog()
        let view = log.list.view(now: now)
        #expect(view.map(\.title) == ["Downloads", "Two"])
        #expect(view.map(\.index) == [0, 1])
        #expect(ids(view) == [[1, 3, 5, 6], [2, 4]])
    }

    @Test func addedViewGroupsByAge() {
        let list = viewLog().list
        let up = list.view(sort: .added, descending: false, now: now)
        #expect(up.map(\.title) == ["Older", "Last 30 Days", "Last 7 Days", "Yesterday", "Today"])
        #expect(ids(up) == [[1], [2], [3], [4], [5, 6]])
        #expect(up.allSatisfy { $0.index == nil })
        let down = list.view(sort: .added, descending: true, now: now)
        #expect(down.map(\.title) == ["Today", "Yesterday", "Last 7 Days", "Last 30 Days", "Older"])
        #expect(ids(down) == [[6, 5], [4], [3], [2], [1]])
        // An hour west of UTC, task 4 (added at 00:00 UTC yesterday) was added two local days ago.
        let west = list.view(sort: .added, descending: false, now: now, utcOffsetSeconds: -3600)
        #expect(west.map(\.title) == ["Older", "Last 30 Days", "Last 7 Days", "Today"])
        #expect(ids(west) == [[1], [2], [3, 4], [5, 6]])
    }

    @Test func nameViewGroupsByInitialWithDigitsLast() {
        let list = viewLog().list
        let up = list.view(sort: .name, descending: false, now: now)
        #expect(up.map(\.title) == ["A", "B", "Z", "É", "#"])
        #expect(ids(up) == [[2, 3], [1], [6], [5], [4]])
        let down = list.view(sort: .name, descending: true, now: now)
        #expect(down.map(\.title) == ["#", "É", "Z", "B", "A"])
        #expect(ids(down) == [[4], [5], [6], [1], [3, 2]])
    }

    @Test func nameViewUsesTheFileNameOnceKnownUnlessChosen() {
        var log = viewLog()
        log.fact(.transferCompleted(id: 6, bytes: 1, sha256: "00", fileName: "Omega.bin"))
        log.run(.rename(1, name: "cherry"))
        log.fact(.transferCompleted(id: 1, bytes: 1, sha256: "00", fileName: "banana.jpg"))
        let view = log.list.view(sort: .name, descending: false, now: now)
        #expect(view.map(\.title) == ["A", "C", "O", "É", "#"])
        #expect(ids(view)[1] == [1])
    }

    @Test func sizeViewGroupsBySizeWithUnknownLast() {
        let list = viewLog().list
        let up = list.view(sort: .size, descending: false, now: now)
        #expect(
            up.map(\.title) == [
                "0 ~ 1 MB", "1 MB ~ 10 MB", "10 MB ~ 100 MB", "100 MB ~ 1 GB", "Larger Than 1 GB",
                "Unknown Size",
            ])
        #expect(ids(up) == [[1], [2], [3], [4], [5], [6]])
        let down = list.view(sort: .size, descending: true, now: now)
        #expect(down.first?.title == "Unknown Size")
        #expect(ids(down) == [[6], [5], [4], [3], [2], [1]])
    }

    @Test func typeViewGroupsByKind() {
        let list = viewLog().list
        let up = list.view(sort: .type, descending: false, now: now)
        #expect(up.map(\.title) == ["Image", "Audio", "Video", "Document", "Other"])
        #expect(ids(up) == [[1], [2], [3], [4], [6, 5]])
        let down = list.view(sort: .type, descending: true, now: now)
        #expect(down.map(\.title) == ["Other", "Document", "Video", "Audio", "Image"])
        #expect(ids(down).first == [5, 6])
        #expect(FileKind(fileName: "x.TAR.gz") == .other)
        #expect(FileKind(fileName: "Photo.JPEG") == .image)
        #expect(FileKind(fileName: "jpg") == .other)
    }

    @Test func theListsSortModeIsTheDefault() {
        var log = viewLog()
        log.run(.sort(.size, descending: true))
        #expect(log.list.view(now: now) == log.list.view(sort: .size, descending: true, now: now))
        #expect(ids(log.list.view(sort: .manual, now: now)) == [[1, 3, 5, 6], [2, 4]])
    }

    /// The completion-time view: buckets like the add-time view, by when tasks finished; unfinished apart.
    @Test func finishedViewGroupsByCompletionTime() {
        var log = viewLog()
        log.now = now - 40 * day
        log.fact(.transferCompleted(id: 1, bytes: 1, sha256: "00", fileName: "banana.jpg"))
        log.now = now - 3 * day
        log.fact(.transferCompleted(id: 4, bytes: 1, sha256: "00", fileName: "x"))
        log.now = now - 1000
        log.fact(.transferCompleted(id: 2, bytes: 1, sha256: "00", fileName: "Apple.mp3"))
        log.now = now - 2000
        log.fact(.transferCompleted(id: 6, bytes: 1, sha256: "00", fileName: "y"))
        let list = log.list
        let asc = list.view(sort: .finished, now: now)
        #expect(asc.map(\.title) == ["Older", "Last 7 Days", "Today", "Unfinished"])
        #expect(ids(asc) == [[1], [4], [6, 2], [3, 5]])
        #expect(asc.allSatisfy { $0.index == nil })
        let desc = list.view(sort: .finished, descending: true, now: now)
        #expect(desc.map(\.title) == ["Unfinished", "Today", "Last 7 Days", "Older"])
        #expect(ids(desc) == [[5, 3], [2, 6], [4], [1]])
    }

    @Test func filters() {
        var log = viewLog()
        log.now = now - 2 * day - 1000
        log.fact(.transferCompleted(id: 3, bytes: 1, sha256: "00", fileName: "apricot.mp4"))
        log.now = now - 1000
        log.fact(.transferCompleted(id: 2, bytes: 1, sha256: "00", fileName: "Apple.mp3"))
        log.run(.delete(.tasks([5, 1]), mode: .record))
        let list = log.list
        #expect(ids(list.view(filter: .finished, now: now)) == [[3], [2]])
        #expect(ids(list.view(filter: .unfinished, now: now)) == [[6], [4]])
        // Filtered views list only the sections they have tasks of (here #3's section goes).
        #expect(ids(list.view(filter: .finishedWithin(days: 1), now: now)) == [[2]])
        #expect(list.view(filter: .finishedWithin(days: 1), now: now).map(\.index) == [1])
        #expect(ids(list.view(filter: .finishedWithin(days: 2), now: now)) == [[3], [2]])
        // 0 is today (local calendar day): #2 finished a second before `now`, two hours after midnight.
        #expect(ids(list.view(filter: .finishedWithin(days: 0), now: now)) == [[2]])
        #expect(ids(list.view(filter: .finishedWithin(days: 0), now: now + 21 * 3_600_000)) == [[2]])
        #expect(ids(list.view(filter: .finishedWithin(days: 0), now: now + 22 * 3_600_000)).isEmpty)
        // In a zone three hours ahead, #2 finished at 04:59 local of the same day: still today.
        #expect(
            ids(list.view(filter: .finishedWithin(days: 0), now: now, utcOffsetSeconds: 3 * 3600)) == [[2]])
        #expect(ids(list.view(sort: .name, filter: .unfinished, now: now)) == [[6], [4]])
        let trash = list.view(filter: .trash, now: now)
        #expect(trash.map(\.title) == ["To-delete list"])
        #expect(ids(trash) == [[5, 1]])
        #expect(ids(list.view(sort: .size, filter: .all, now: now)).joined().sorted() == [2, 3, 4, 6])
    }
}
