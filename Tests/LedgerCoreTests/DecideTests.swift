import Testing

@testable import LedgerCore

private func add(
    _ urls: [String], _ placement: AddPlacement = .end, name: String? = nil, sha256: String? = nil
)
    -> Command
{
    .add(urls: urls, placement: placement, name: name, sha256: sha256, directory: nil)
}

private let sha = String(repeating: "AB", count: 32)

struct DecideTests {
    // MARK: add

    @Test func addIntoAnEmptyListCreatesDownloads() throws {
        var log = TestLog()
        let d = try log.must(add([u("a"), u("b")]))
        #expect(d.added == [1, 2])
        #expect(d.skipped.isEmpty)
        let new = [
            NewTask(id: 1, url: u("a"), directory: "/dl"), NewTask(id: 2, url: u("b"), directory: "/dl"),
        ]
        #expect(d.entry == Entry(.tasksAdded(tasks: new, section: 0, index: 0, newSectionTitle: "Downloads")))
        #expect(log.titles == ["Downloads"])
        #expect(log.layout == [[1, 2]])
    }

    @Test func addAppendsToTheFirstSectionByDefault() {
        var log = fixture()
        #expect(log.add(u("f")) == [6])
        #expect(log.layout == [[1, 2, 3, 6], [4, 5]])
    }

    @Test func addInsertsAtAnIndex() {
        var log = fixture()
        #expect(log.add(u("f"), u("g"), to: .section(1, index: 1)) == [6, 7])
        #expect(log.add(u("h"), to: .section(0, index: 0)) == [8])
        #expect(log.add(u("i"), to: .section(0, index: nil)) == [9])
        #expect(log.layout == [[8, 1, 2, 3, 9], [4, 6, 7, 5]])
        log.refuses(add([u("j")], .section(0, index: 6)), with: .indexOutOfRange(6, section: 0, count: 5))
        log.refuses(add([u("j")], .section(0, index: -1)), with: .indexOutOfRange(-1, section: 0, count: 5))
        log.refuses(add([u("j")], .section(2, index: nil)), with: .noSuchSection(2, count: 2))
    }

    @Test func addToATitleUsesOrCreatesTheSection() {
        var log = fixture()
        log.add(u("f"), to: .titled("B"))
        log.add(u("g"), to: .titled("  Videos "))
        log.add(u("h"), to: .titled("Videos"))
        #expect(log.titles == ["Downloads", "B", "Videos"])
        #expect(log.layout == [[1, 2, 3], [4, 5, 6], [7, 8]])
        log.refuses(add([u("i")], .titled(" ")), with: .invalidTitle("empty"))
    }

    @Test func addIntoANewSection() {
        var log = fixture()
        log.add(u("f"), to: .newSection(title: "First", at: 0))
        log.add(u("g"), to: .newSection(title: "Last", at: nil))
        #expect(log.titles == ["First", "Downloads", "B", "Last"])
        #expect(log.layout == [[6], [1, 2, 3], [4, 5], [7]])
        log.refuses(add([u("h")], .newSection(title: "X", at: 5)), with: .noSuchSection(5, count: 5))
    }

    @Test func addWithANameAndChecksum() throws {
        var log = fixture()
        let d = try log.must(
            .add(urls: [u("f")], placement: .end, name: "film.mkv", sha256: sha, directory: "/v"))
        let t = try #require(log.list.tasks[d.added[0]])
        #expect(t.displayName == "film.mkv")
        #expect(t.nameIsUserChosen)
        #expect(t.expectedSHA256 == sha.lowercased())
        #expect(t.directory == "/v")
        log.refuses(
            add([u("g"), u("h")], name: "x"), with: .invalidValue("--name and --sha256 apply to a single URL")
        )
        log.refuses(
            add([u("g")], name: "a/b"), with: .invalidName("a/b", reason: "contains a path separator"))
        log.refuses(add([u("g")], sha256: "abc"), with: .invalidChecksum("abc"))
    }

    @Test func addSkipsDuplicatesAndBadURLsButAddsTheRest() throws {
        var log = fixture()
        log.run(.delete(.tasks([2]), mode: .all))
        let d = try log.must(
            add([u("a"), u("f"), "ftp://example.com/x", u("b"), u("f"), "foo", " \(u("g")) "]))
        #expect(d.added == [6, 7])
        #expect(d.skipped.map(\.url) == [u("a"), "ftp://example.com/x", u("b"), u("f"), "foo"])
        #expect(
            d.skipped.map(\.reason) == [
                "duplicate of task #1", "not a URL (only http and https)",
                "duplicate of task #2 (in the to-delete list)",
                "given twice", "not a URL (no http(s) scheme)",
            ])
        #expect(log.list.tasks[7]?.url == u("g"))
        #expect(log.layout == [[1, 3, 6, 7], [4, 5]])
    }

    @Test func addWithEverythingSkippedThrowsNothingAdded() {
        let log = fixture()
        let error = log.error(of: add([u("a"), "http://"]))
        let nothing = error as? NothingAdded
        #expect(nothing?.skipped.map(\.url) == [u("a"), "http://"])
        #expect(nothing?.description == "nothing added: all 2 URLs were skipped")
        #expect(
            (log.error(of: add([u("a")])) as? NothingAdded)?.description
                == "nothing added: \(u("a")): duplicate of task #1")
        log.refuses(add([]), with: .nothingToDo("no URL given"))
    }

    @Test func positionsNeedTheManualSort() {
        var log = fixture()
        log.run(.sort(.name, descending: false))
        log.refuses(add([u("f")], .section(0, index: 0)), with: .needsManualSort(.name))
        log.refuses(add([u("f")], .newSection(title: "N", at: nil)), with: .needsManualSort(.name))
        log.refuses(.move([1], to: Location(section: 1)), with: .needsManualSort(.name))
        log.add(u("f"))
        log.add(u("g"), to: .titled("B"))
        #expect(log.layout == [[1, 2, 3, 6], [4, 5, 7]])
    }

    // MARK: move

    @Test func moveOneTask() throws {
        var log = fixture()
        let d = try log.must(.move([1], to: Location(section: 0, index: 2)))
        #expect(d.entry == Entry(.tasksMoved(ids: [1], section: 0, index: 2)))
        #expect(log.layout == [[2, 3, 1], [4, 5]])
        log.run(.move([1], to: Location(section: 0, index: 0)))
        #expect(log.layout == [[1, 2, 3], [4, 5]])
    }

    @Test func moveASelectionKeepsItsOrderAcrossSections() {
        var log = fixture()
        log.run(.move([5, 1, 3], to: Location(section: 1, index: 1)))
        #expect(log.layout == [[2], [4, 5, 1, 3]])
        log.run(.move([3, 2], to: Location(section: 0)))
        #expect(log.layout == [[3, 2], [4, 5, 1]])
    }

    @Test func moveChecksTasksSectionsAndIndexes() {
        var log = fixture()
        log.run(.delete(.tasks([3]), mode: .all))
        log.refuses(.move([1, 9], to: Location(section: 0)), with: .noSuchTask(9))
        log.refuses(.move([3], to: Location(section: 0)), with: .taskInTrash(3))
        log.refuses(.move([1], to: Location(section: 2)), with: .noSuchSection(2, count: 2))
        log.refuses(
            .move([1], to: Location(section: 0, index: 2)), with: .indexOutOfRange(2, section: 0, count: 1))
        log.refuses(.move([], to: Location(section: 0)), with: .nothingToDo("no task given"))
        log.run(.move([1], to: Location(section: 0, index: 1)))
        #expect(log.layout == [[2, 1], [4, 5]])
    }

    @Test func moveRemovesEmptiedSectionsOnlyWhenAsked() {
        var log = fixture()
        log.run(.move([4, 5], to: Location(section: 0)))
        #expect(log.titles == ["Downloads", "B"])
        log.run(.move([4, 5], to: Location(section: 1)))
        log.run(.setAutoRemoveEmptySections(true))
        log.run(.move([4, 5], to: Location(section: 0)))
        #expect(log.titles == ["Downloads"])
        #expect(log.layout == [[1, 2, 3, 4, 5]])
    }

    // MARK: sections

    @Test func sectionCommands() {
        var log = fixture()
        log.run(.insertSection(title: "Top", at: 0))
        log.run(.insertSection(title: "End", at: nil))
        #expect(log.titles == ["Top", "Downloads", "B", "End"])
        log.refuses(.insertSection(title: "X", at: 5), with: .noSuchSection(5, count: 5))
        log.refuses(
            .insertSection(title: "a\nb", at: nil), with: .invalidTitle("contains control characters"))
        log.run(.renameSection(2, title: " Bee "))
        log.refuses(.renameSection(4, title: "X"), with: .noSuchSection(4, count: 4))
        log.run(.moveSection(0, to: 3))
        #expect(log.titles == ["Downloads", "Bee", "End", "Top"])
        log.refuses(.moveSection(1, to: 1), with: .nothingToDo("section 1 is already at 1"))
        log.refuses(.moveSection(1, to: 4), with: .noSuchSection(4, count: 4))
        log.refuses(.removeSection(1), with: .sectionNotEmpty(1, tasks: 2))
        log.run(.removeSection(2))
        log.run(.removeSection(2))
        #expect(log.titles == ["Downloads", "Bee"])
        #expect(log.layout == [[1, 2, 3], [4, 5]])
    }

    // MARK: delete, restore, purge

    @Test func deleteModes() throws {
        var log = fixture()
        log.fact(.transferCompleted(id: 1, bytes: 4, sha256: "00", fileName: "a"))
        let d = try log.must(.delete(.tasks([1, 1]), mode: .file))
        #expect(d.entry == Entry(.filesDeleted(ids: [1])))
        #expect(log.list.tasks[1]?.state == .waiting)
        #expect(log.list.tasks[1]?.fileName == nil)
        #expect(log.layout == [[1, 2, 3], [4, 5]])
        log.run(.delete(.tasks([2]), mode: .record))
        log.run(.delete(.section(1), mode: .all))
        #expect(log.list.trash.map(\.id) == [4, 5, 2])
        #expect(log.list.trash.map(\.mode) == [.all, .all, .record])
        #expect(
            log.list.trash.map(\.deleted) == [
                TestLog.start + 8000, TestLog.start + 8000, TestLog.start + 7000,
            ])
        log.refuses(.delete(.section(1), mode: .all), with: .nothingToDo("nothing to delete"))
        log.refuses(.delete(.tasks([2]), mode: .all), with: .taskInTrash(2))
        log.refuses(.delete(.tasks([7]), mode: .all), with: .noSuchTask(7))
        log.run(.delete(.all, mode: .record))
        #expect(log.layout == [[], []])
        #expect(log.list.liveCount == 0)
        log.refuses(.delete(.all, mode: .file), with: .nothingToDo("nothing to delete"))
    }

    @Test func restoreToWhereTasksWereOrToALocation() {
        var log = fixture()
        log.run(.delete(.tasks([1, 3, 5]), mode: .all))
        log.run(.restore([3], to: nil))
        #expect(log.layout == [[2, 3], [4]])
        log.run(.restore([5, 1], to: Location(section: 0, index: 1)))
        #expect(log.layout == [[2, 5, 1, 3], [4]])
        #expect(log.list.trash.isEmpty)
        log.refuses(.restore(nil, to: nil), with: .nothingToDo("the to-delete list is empty"))
        log.refuses(.restore([1], to: nil), with: .taskNotInTrash(1))
        log.refuses(.restore([9], to: nil), with: .noSuchTask(9))
    }

    @Test func restoreAllAndRecreateRemovedSections() {
        var log = fixture()
        log.run(.setAutoRemoveEmptySections(true))
        log.run(.delete(.all, mode: .record))
        #expect(log.list.sections.isEmpty)
        log.run(.restore(nil, to: nil))
        #expect(log.titles == ["Downloads", "B"])
        #expect(log.layout == [[1, 2, 3], [4, 5]])
    }

    @Test func restoreToALocationIsChecked() {
        var log = fixture()
        log.run(.delete(.tasks([1]), mode: .all))
        log.refuses(.restore([1], to: Location(section: 2)), with: .noSuchSection(2, count: 2))
        log.refuses(
            .restore([1], to: Location(section: 1, index: 3)), with: .indexOutOfRange(3, section: 1, count: 2)
        )
        log.run(.sort(.added, descending: false))
        log.refuses(.restore([1], to: Location(section: 0)), with: .needsManualSort(.added))
        log.run(.restore([1], to: nil))
        #expect(log.layout == [[1, 2, 3], [4, 5]])
    }

    @Test func purgeForgetsTasksSoTheirURLsCanComeBack() {
        var log = fixture()
        log.run(.delete(.tasks([1, 2, 4]), mode: .all))
        log.refuses(.purge([3]), with: .taskNotInTrash(3))
        log.run(.purge([1]))
        #expect(log.list.tasks[1] == nil)
        log.refuses(.purge([1]), with: .noSuchTask(1))
        log.run(.purge(nil))
        #expect(log.list.trash.isEmpty)
        #expect(log.list.tasks.keys.sorted() == [3, 5])
        #expect(log.add(u("a")) == [6])
        log.refuses(.purge(nil), with: .nothingToDo("the to-delete list is empty"))
    }

    @Test func redownloadResetsLiveTasks() throws {
        var log = fixture()
        log.fact(.transferCompleted(id: 2, bytes: 4, sha256: "00", fileName: "b"))
        let d = try log.must(.redownload(.tasks([2, 2])))
        #expect(d.entry == Entry(.tasksRedownloaded(ids: [2])))
        #expect(log.list.tasks[2]?.state == .waiting)
        #expect(log.list.tasks[2]?.bytes == 0)
        log.run(.delete(.tasks([3]), mode: .all))
        log.refuses(.redownload(.tasks([3])), with: .taskInTrash(3))
        log.refuses(.redownload(.tasks([])), with: .nothingToDo("no task given"))
    }

    // MARK: rename

    @Test func renameValidatesTheName() {
        let log = fixture()
        log.refuses(.rename(1, name: "a/b"), with: .invalidName("a/b", reason: "contains a path separator"))
        log.refuses(.rename(1, name: "a\\b"), with: .invalidName("a\\b", reason: "contains a path separator"))
        log.refuses(.rename(1, name: ".."), with: .invalidName("..", reason: "not a file name"))
        log.refuses(.rename(1, name: "a..b"), with: .invalidName("a..b", reason: "contains '..'"))
        log.refuses(.rename(1, name: "  "), with: .invalidName("  ", reason: "empty"))
        log.refuses(
            .rename(1, name: "a\tb"), with: .invalidName("a\tb", reason: "contains control characters"))
        let spoof = "report\u{202E}txt.exe"
        let bidi = "contains the bidirectional control U+202E, which makes a name display as another"
        log.refuses(.rename(1, name: spoof), with: .invalidName(spoof, reason: bidi))
        log.refuses(add([u("g")], name: spoof), with: .invalidName(spoof, reason: bidi))
        log.refuses(.rename(9, name: "x"), with: .noSuchTask(9))
        log.refuses(.rename(1, name: "a"), with: .nothingToDo("task #1 is already named 'a'"))
    }

    @Test func renamingAFinishedTaskRenamesItsFile() throws {
        var log = fixture()
        log.fact(.transferCompleted(id: 1, bytes: 4, sha256: "00", fileName: "a.bin"))
        let d = try log.must(.rename(1, name: "new.bin"))
        #expect(d.entry == Entry(.taskRenamed(id: 1, name: "new.bin", fileName: "new.bin")))
        #expect(log.list.tasks[1]?.fileName == "new.bin")
        let e = try log.must(.rename(2, name: "two"))
        #expect(e.entry == Entry(.taskRenamed(id: 2, name: "two", fileName: nil)))
        #expect(log.list.tasks[2]?.displayName == "two")
        #expect(log.list.tasks[2]?.nameIsUserChosen == true)
    }

    // MARK: states

    @Test func pauseResumeStopFollowTheStateRules() throws {
        var log = fixture()
        log.fact(.transferStarted(id: 1, attempt: 1, offset: 0))
        log.fact(.transferCompleted(id: 2, bytes: 1, sha256: "00", fileName: "b"))
        log.refuses(.pause(.tasks([2])), with: .nothingToDo("task #2 is finished: nothing to pause"))
        log.refuses(.resume(.tasks([1])), with: .nothingToDo("task #1 is downloading: nothing to resume"))
        log.refuses(.resume(.all), with: .nothingToDo("nothing to resume"))
        let d = try log.must(.pause(.section(0)))
        #expect(d.entry == Entry(.tasksPaused(ids: [1, 3])))
        let s = try log.must(.stop(.all))
        #expect(s.entry == Entry(.tasksStopped(ids: [1, 3, 4, 5])))
        #expect(log.list.orderedTasks.map(\.state) == [.stopped, .finished, .stopped, .stopped, .stopped])
        log.refuses(.stop(.all), with: .nothingToDo("nothing to stop"))
        log.run(.resume(.tasks([4])))
        log.refuses(.pause(.tasks([9])), with: .noSuchTask(9))
        log.refuses(.pause(.section(3)), with: .noSuchSection(3, count: 2))
        let r = try log.must(.resume(.all))
        #expect(r.entry == Entry(.tasksResumed(ids: [1, 3, 5])))
        log.fact(
            .transferFailed(
                id: 3, failure: TaskFailure(code: "http", detail: "HTTP 404", retryable: false), bytes: 0))
        log.refuses(.pause(.tasks([3])), with: .nothingToDo("task #3 is failed: nothing to pause"))
        log.run(.resume(.tasks([3])))
        #expect(log.list.tasks[3]?.state == .waiting)
        #expect(log.list.tasks[3]?.failure?.detail == "HTTP 404")
        log.fact(.transferStarted(id: 3, attempt: 2, offset: 0))
        #expect(log.list.tasks[3]?.failure == nil)
    }

    @Test func pauseIgnoresTrashedTasksInASection() throws {
        var log = fixture()
        log.run(.delete(.tasks([4]), mode: .all))
        let d = try log.must(.pause(.section(1)))
        #expect(d.entry == Entry(.tasksPaused(ids: [5])))
    }

    // MARK: settings

    @Test func settingsCommands() {
        var log = fixture()
        log.refuses(
            .setMaxDownloads(-1), with: .invalidValue("maximum download count must be 0 or more, not -1"))
        log.refuses(.setMaxDownloads(3), with: .nothingToDo("maximum download count is already 3"))
        log.run(.setMaxDownloads(0))
        #expect(log.list.maxDownloads == 0)
        log.refuses(.setSpeedLimit(-5), with: .invalidValue("speed limit must be 0 or more, not -5"))
        log.refuses(.setSpeedLimit(0), with: .nothingToDo("speed limit is already 0 B/s"))
        log.run(.setSpeedLimit(500_000))
        #expect(log.list.speedLimit == 500_000)
        log.refuses(
            .sort(.manual, descending: false), with: .nothingToDo("the list is already sorted that way"))
        log.refuses(
            .setAutoRemoveEmptySections(false),
            with: .nothingToDo("automatic removal of empty sections is already off"))
        log.refuses(.setTrash(true), with: .nothingToDo("the to-delete list is already on"))
    }

    @Test func manualSectionsSurviveAPredefinedSort() {
        var log = fixture()
        log.run(.move([3], to: Location(section: 1, index: 0)))
        let manual = log.list.sections
        log.run(.sort(.size, descending: true))
        log.run(.sort(.name, descending: false))
        #expect(log.list.sortMode == .name)
        log.run(.sort(.manual, descending: false))
        #expect(log.list.sections == manual)
        #expect(log.list.view(now: 0).map(\.title) == ["Downloads", "B"])
    }
}
