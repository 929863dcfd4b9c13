import Testing

@testable import LedgerCore

/// Folds `events` into `s0` (seq after its head, all at `time`) and expects exactly `s0` changed by `change`,
/// where `change` says everything that moves except the log position.
private func assertReduce(
    from s0: DownloadList, _ events: [Event], time: Int64 = 9_000,
    sourceLocation: SourceLocation = #_sourceLocation,
    to change: (inout DownloadList) -> Void
) {
    var list = s0
    for (n, event) in events.enumerated() {
        list.apply(LoggedEntry(seq: s0.head + Int64(n) + 1, time: time, entry: Entry(event)))
    }
    var expected = s0
    expected.head = s0.head + Int64(events.count)
    expected.headTime = time
    // Every event counts once for each task it names: the audit trail's length.
    for event in events { expected.eventCounts.add(event.taskIDs) }
    change(&expected)
    expectEqual(list, expected, "state", sourceLocation: sourceLocation)
}

/// The undo step an action folded right after `list` pushes.
private func step(_ list: DownloadList, _ inverse: Event, for action: Event) -> UndoStep {
    UndoStep(seq: list.head + 1, kind: action.kind, inverse: inverse, action: action)
}

/// The step an action that can never be undone leaves on the stack, so that undo names it instead of passing it.
private func blocker(_ list: DownloadList, _ action: Event, _ reason: String) -> UndoStep {
    UndoStep(seq: list.head + 1, kind: action.kind, inverse: action, action: action, blocker: reason)
}

struct ReducerTests {
    @Test func ledgerCreatedSetsDirectoryAndMaximum() {
        assertReduce(from: DownloadList(), [.ledgerCreated(directory: "/x", maxDownloads: 4)]) {
            $0.directory = "/x"
            $0.maxDownloads = 4
        }
        // New ledgers start with automatic removal of emptied sections (SDE's default); older ones without.
        assertReduce(
            from: DownloadList(),
            [.ledgerCreated(directory: "/x", maxDownloads: 3, autoRemoveEmptySections: true)]
        ) {
            $0.directory = "/x"
            $0.maxDownloads = 3
            $0.autoRemoveEmptySections = true
        }
    }

    @Test func addIntoAnEmptyListCreatesDownloads() {
        let s0 = TestLog().list
        let new = [
            NewTask(id: 1, url: u("a"), directory: "/dl"),
            NewTask(id: 2, url: u("b.iso"), name: "B", directory: "/dl"),
        ]
        assertReduce(from: s0, [.tasksAdded(tasks: new, section: 0, index: 0, newSectionTitle: nil)]) {
            $0.tasks = [
                1: DownloadList.task(1, u("a"), at: 9_000),
                2: DownloadList.task(2, u("b.iso"), name: "B", at: 9_000),
            ]
            $0.sections = [Section(title: "Downloads", tasks: [1, 2])]
            $0.urlIndex = [u("a"): 1, u("b.iso"): 2]
            $0.nextID = 3
            $0.undoStack = [
                step(
                    s0, .tasksRemoved(ids: [1, 2], removingSections: [0]),
                    for: .tasksAdded(tasks: new, section: 0, index: 0, newSectionTitle: nil))
            ]
        }
    }

    @Test func addAtAnIndexInsertsInOrder() {
        let s0 = fixture().list
        let new = [
            NewTask(id: 6, url: u("f"), directory: "/dl"), NewTask(id: 7, url: u("g"), directory: "/dl"),
        ]
        assertReduce(from: s0, [.tasksAdded(tasks: new, section: 1, index: 1, newSectionTitle: nil)]) {
            $0.tasks[6] = DownloadList.task(6, u("f"), at: 9_000)
            $0.tasks[7] = DownloadList.task(7, u("g"), at: 9_000)
            $0.sections[1].tasks = [4, 6, 7, 5]
            $0.urlIndex[u("f")] = 6
            $0.urlIndex[u("g")] = 7
            $0.nextID = 8
            $0.undoStack.append(
                step(
                    s0, .tasksRemoved(ids: [6, 7], removingSections: []),
                    for: .tasksAdded(tasks: new, section: 1, index: 1, newSectionTitle: nil)))
        }
    }

    @Test func addWithANewSectionInsertsItFirst() {
        let s0 = fixture().list
        let new = [
            NewTask(id: 6, url: u("f"), sha256: String(repeating: "a", count: 64), directory: "/other")
        ]
        assertReduce(from: s0, [.tasksAdded(tasks: new, section: 1, index: 0, newSectionTitle: "New")]) {
            var t = DownloadList.task(6, u("f"), sha256: String(repeating: "a", count: 64), at: 9_000)
            t.directory = "/other"
            $0.tasks[6] = t
            $0.sections.insert(Section(title: "New", tasks: [6]), at: 1)
            $0.urlIndex[u("f")] = 6
            $0.nextID = 7
            $0.undoStack.append(
                step(
                    s0, .tasksRemoved(ids: [6], removingSections: [1]),
                    for: .tasksAdded(tasks: new, section: 1, index: 0, newSectionTitle: "New")))
        }
    }

    /// Several groups in one event: each applied as an add, in order; its undo takes out every task and every
    /// section the groups created, at their indexes after the whole add.
    @Test func groupsAddedApplyInOrderAsOneUndoableAction() {
        let s0 = fixture().list
        let groups = [
            TaskGroup(
                tasks: [NewTask(id: 6, url: u("f"), directory: "/dl")], section: 0, index: 3,
                newSectionTitle: nil),
            TaskGroup(
                tasks: [NewTask(id: 7, url: u("g"), directory: "/dl")], section: 2, index: 0,
                newSectionTitle: "C"),
            TaskGroup(
                tasks: [NewTask(id: 8, url: u("h"), directory: "/dl")], section: 0, index: 0,
                newSectionTitle: "Top"),
            TaskGroup(
                tasks: [NewTask(id: 9, url: u("i"), directory: "/dl")], section: 2, index: 2,
                newSectionTitle: nil),
        ]
        assertReduce(from: s0, [.groupsAdded(groups)]) {
            for (id, name) in [(6, "f"), (7, "g"), (8, "h"), (9, "i")] as [(TaskID, String)] {
                $0.tasks[id] = DownloadList.task(id, u(name), at: 9_000)
                $0.urlIndex[u(name)] = id
            }
            $0.sections = [
                Section(title: "Top", tasks: [8]), Section(title: "Downloads", tasks: [1, 2, 3, 6]),
                Section(title: "B", tasks: [4, 5, 9]), Section(title: "C", tasks: [7]),
            ]
            $0.nextID = 10
            $0.undoStack.append(
                step(
                    s0, .tasksRemoved(ids: [6, 7, 8, 9], removingSections: [0, 3]), for: .groupsAdded(groups))
            )
        }
    }

    /// A known id is one task already: it is not added twice. A logged add is otherwise a fact (its URLs were
    /// checked when it was decided): one that repeats a URL, in a damaged or foreign log, is folded as logged, and
    /// the URL stays indexed to the lower id.
    @Test func addIgnoresKnownIdsAndFoldsARepeatedURLAsLogged() {
        let s0 = fixture().list
        let new = [
            NewTask(id: 1, url: u("z"), directory: "/dl"), NewTask(id: 9, url: u("a"), directory: "/dl"),
        ]
        assertReduce(from: s0, [.tasksAdded(tasks: new, section: 0, index: 0, newSectionTitle: nil)]) {
            $0.tasks[9] = DownloadList.task(9, u("a"), at: 9_000)
            $0.sections[0].tasks = [9, 1, 2, 3]
            $0.nextID = 10
            $0.undoStack.append(
                step(
                    s0, .tasksRemoved(ids: [9], removingSections: []),
                    for: .tasksAdded(tasks: new, section: 0, index: 0, newSectionTitle: nil)))
        }
        var list = s0
        list.apply(
            LoggedEntry(
                seq: s0.head + 1, time: 9_000,
                entry: Entry(.tasksAdded(tasks: new, section: 0, index: 0, newSectionTitle: nil))))
        #expect(list.task(withURL: u("a")) == 1)
    }

    @Test func moveKeepsTheGivenOrderAcrossSections() {
        let s0 = fixture().list
        assertReduce(from: s0, [.tasksMoved(ids: [3, 1], section: 1, index: 1)]) {
            $0.sections[0].tasks = [2]
            $0.sections[1].tasks = [4, 3, 1, 5]
            let back = [
                Placement(id: 1, sectionTitle: "Downloads", section: 0, index: 0),
                Placement(id: 3, sectionTitle: "Downloads", section: 0, index: 2),
            ]
            $0.undoStack.append(
                step(s0, .tasksPlaced(back), for: .tasksMoved(ids: [3, 1], section: 1, index: 1)))
        }
    }

    @Test func moveRemovesEmptiedSectionsWhenAsked() {
        var log = fixture()
        log.run(.setAutoRemoveEmptySections(true))
        let s0 = log.list
        assertReduce(from: s0, [.tasksMoved(ids: [4, 5], section: 0, index: 0)]) {
            $0.sections = [Section(title: "Downloads", tasks: [4, 5, 1, 2, 3])]
            let back = [
                Placement(id: 4, sectionTitle: "B", section: 1, index: 0),
                Placement(id: 5, sectionTitle: "B", section: 1, index: 1),
            ]
            $0.undoStack.append(
                step(
                    s0, .tasksPlaced(back, recreating: [1]),
                    for: .tasksMoved(ids: [4, 5], section: 0, index: 0)))
        }
    }

    @Test func placeRecreatesAMissingSectionByTitle() {
        var log = fixture()
        log.run(.setAutoRemoveEmptySections(true))
        log.run(.move([4, 5], to: Location(section: 0, index: 0)))
        let s0 = log.list
        let back = [
            Placement(id: 4, sectionTitle: "B", section: 1, index: 0),
            Placement(id: 5, sectionTitle: "B", section: 1, index: 1),
        ]
        assertReduce(from: s0, [.tasksPlaced(back)]) {
            $0.sections = [
                Section(title: "Downloads", tasks: [1, 2, 3]), Section(title: "B", tasks: [4, 5]),
            ]
            let forth = [
                Placement(id: 4, sectionTitle: "Downloads", section: 0, index: 0),
                Placement(id: 5, sectionTitle: "Downloads", section: 0, index: 1),
            ]
            $0.redoStack = []
            $0.undoStack.append(step(s0, .tasksPlaced(forth), for: .tasksPlaced(back)))
        }
    }

    @Test func sectionEventsInsertRenameMoveAndRemove() {
        let s0 = fixture().list
        assertReduce(from: s0, [.sectionInserted(index: 0, title: "Top")]) {
            $0.sections.insert(Section(title: "Top"), at: 0)
            $0.undoStack.append(
                step(s0, .sectionRemoved(index: 0), for: .sectionInserted(index: 0, title: "Top")))
        }
        assertReduce(from: s0, [.sectionRenamed(index: 1, title: "Bee")]) {
            $0.sections[1].title = "Bee"
            $0.undoStack.append(
                step(s0, .sectionRenamed(index: 1, title: "B"), for: .sectionRenamed(index: 1, title: "Bee")))
        }
        assertReduce(from: s0, [.sectionMoved(from: 1, to: 0)]) {
            $0.sections = [s0.sections[1], s0.sections[0]]
            $0.undoStack.append(step(s0, .sectionMoved(from: 0, to: 1), for: .sectionMoved(from: 1, to: 0)))
        }
        var log = fixture()
        log.run(.insertSection(title: "Empty", at: 1))
        let s1 = log.list
        assertReduce(from: s1, [.sectionRemoved(index: 1)]) {
            $0.sections.remove(at: 1)
            $0.undoStack.append(
                step(s1, .sectionInserted(index: 1, title: "Empty"), for: .sectionRemoved(index: 1)))
        }
    }

    @Test func removingANonEmptySectionChangesNothingOnReplay() {
        let s0 = fixture().list
        assertReduce(from: s0, [.sectionRemoved(index: 0)]) {
            $0.redoStack = []
            $0.undoStack.append(
                step(s0, .sectionInserted(index: 0, title: "Downloads"), for: .sectionRemoved(index: 0)))
        }
    }

    @Test func deleteMovesTasksToTheToDeleteListRememberingWhere() {
        var log = fixture()
        log.fact(.transferStarted(id: 2, attempt: 1, offset: 0))
        let s0 = log.list
        assertReduce(from: s0, [.tasksDeleted(ids: [2, 5], modes: [.all, .record])]) {
            $0.tasks[2]!.state = .waiting
            $0.sections[0].tasks = [1, 3]
            $0.sections[1].tasks = [4]
            $0.setTrash([
                // Each entry remembers the state the task had: #2 was downloading (its transfer stops: it waits).
                TrashEntry(
                    id: 2, mode: .all, sectionTitle: "Downloads", section: 0, index: 1, deleted: 9_000,
                    state: .downloading),
                TrashEntry(
                    id: 5, mode: .record, sectionTitle: "B", section: 1, index: 1, deleted: 9_000,
                    state: .waiting),
            ])
            $0.undoStack.append(
                step(
                    s0, .tasksRestored(ids: [2, 5], to: nil),
                    for: .tasksDeleted(ids: [2, 5], modes: [.all, .record])))
        }
    }

    @Test func deleteListsTheLatestFirstAndRemovesEmptiedSectionsWhenAsked() {
        var log = fixture()
        log.run(.delete(.tasks([1]), mode: .all))
        log.run(.setAutoRemoveEmptySections(true))
        let s0 = log.list
        assertReduce(from: s0, [.tasksDeleted(ids: [4, 5], modes: [.record])]) {
            $0.sections = [Section(title: "Downloads", tasks: [2, 3])]
            $0.setTrash([
                TrashEntry(
                    id: 4, mode: .record, sectionTitle: "B", section: 1, index: 0, deleted: 9_000,
                    state: .waiting),
                TrashEntry(
                    id: 5, mode: .record, sectionTitle: "B", section: 1, index: 1, deleted: 9_000,
                    state: .waiting),
                s0.trash[0],
            ])
            $0.undoStack.append(
                step(
                    s0, .tasksRestored(ids: [4, 5], to: nil, recreating: [1]),
                    for: .tasksDeleted(ids: [4, 5], modes: [.record])))
        }
    }

    @Test func filesDeletedAndRedownloadResetTheTransferOnly() {
        var log = fixture()
        log.fact(.transferStarted(id: 1, attempt: 2, offset: 0))
        log.fact(
            .transferResolved(
                id: 1, size: 10, serverName: "a.bin", validator: "v", acceptsRanges: true,
                restartedFromZero: nil)
        )
        log.fact(.transferCompleted(id: 1, bytes: 10, sha256: "00", fileName: "a.bin"))
        let s0 = log.list
        for (event, reason) in [
            (Event.filesDeleted(ids: [1]), "deleted files cannot be brought back"),
            (.tasksRedownloaded(ids: [1]), "a redownload threw the downloaded data away"),
        ] {
            assertReduce(from: s0, [event]) {
                var t = s0.tasks[1]!
                t.state = .waiting
                t.bytes = 0
                t.attempts = 0
                t.finished = nil
                t.fileName = nil
                t.validator = nil
                t.sha256 = nil
                t.resets += 1
                $0.tasks[1] = t
                $0.redoStack = []
                $0.undoStack.append(blocker(s0, event, reason))
            }
        }
    }

    @Test func restorePutsTasksBackWhereTheyWere() {
        var log = fixture()
        log.run(.delete(.tasks([1, 3, 4]), mode: .all))
        let s0 = log.list
        assertReduce(from: s0, [.tasksRestored(ids: [3, 1], to: nil)]) {
            $0.sections[0].tasks = [1, 2, 3]
            $0.setTrash([s0.trash[2]])
            $0.undoStack.append(
                step(
                    s0, .tasksTrashed([s0.trash[0], s0.trash[1]], positions: [0, 1], removingSections: []),
                    for: .tasksRestored(ids: [3, 1], to: nil)))
        }
    }

    @Test func restoreRecreatesARemovedSectionAtItsIndex() {
        var log = fixture()
        log.run(.insertSection(title: "C", at: nil))
        log.add(u("f"), to: .titled("C"))
        log.run(.setAutoRemoveEmptySections(true))
        log.run(.delete(.section(1), mode: .record))
        #expect(log.titles == ["Downloads", "C"])
        let s0 = log.list
        assertReduce(from: s0, [.tasksRestored(ids: [5, 4], to: nil)]) {
            $0.sections.insert(Section(title: "B", tasks: [4, 5]), at: 1)
            $0.setTrash([])
            let back = Event.tasksTrashed(
                [s0.trash[0], s0.trash[1]], positions: [0, 1], removingSections: [1])
            $0.undoStack.append(step(s0, back, for: .tasksRestored(ids: [5, 4], to: nil)))
        }
    }

    @Test func restoreToALocationInsertsInTheGivenOrder() {
        var log = fixture()
        log.run(.delete(.tasks([1, 2]), mode: .all))
        let s0 = log.list
        assertReduce(from: s0, [.tasksRestored(ids: [2, 1], to: Location(section: 1, index: 1))]) {
            $0.sections[1].tasks = [4, 2, 1, 5]
            $0.setTrash([])
            let back = Event.tasksTrashed(
                [s0.trash[0], s0.trash[1]], positions: [0, 1], removingSections: [])
            $0.undoStack.append(
                step(s0, back, for: .tasksRestored(ids: [2, 1], to: Location(section: 1, index: 1))))
        }
    }

    @Test func purgeForgetsTasksAndTheirURLsAndIsNotUndoable() {
        var log = fixture()
        log.run(.delete(.tasks([2, 4]), mode: .all))
        let s0 = log.list
        assertReduce(from: s0, [.trashPurged(ids: [4])]) {
            $0.tasks[4] = nil
            $0.urlIndex[u("d")] = nil
            $0.setTrash([s0.trash[0]])
            // Steps that could only bring task 4 back are forgotten with it.
            $0.undoStack = s0.undoStack.filter {
                !$0.action.taskIDs.contains(4) && !$0.inverse.taskIDs.contains(4)
            }
            #expect($0.undoStack.count < s0.undoStack.count)
            $0.undoStack.append(
                blocker(s0, .trashPurged(ids: [4]), "purged tasks are gone for good, with their files"))
        }
    }

    @Test func eraseForgetsLiveTasksAtOnceAndIsNotUndoable() {
        var log = fixture()
        log.run(.setAutoRemoveEmptySections(true))
        let s0 = log.list
        assertReduce(from: s0, [.tasksErased(ids: [4, 5, 2], modes: [.all])]) {
            $0.tasks[2] = nil
            $0.tasks[4] = nil
            $0.tasks[5] = nil
            $0.urlIndex[u("b")] = nil
            $0.urlIndex[u("d")] = nil
            $0.urlIndex[u("e")] = nil
            // Section B emptied and removed; the to-delete list untouched.
            $0.sections = [Section(title: "Downloads", tasks: [1, 3])]
            $0.undoStack = s0.undoStack.filter {
                Set($0.action.taskIDs + $0.inverse.taskIDs).isDisjoint(with: [2, 4, 5])
            }
            $0.undoStack.append(
                blocker(
                    s0, .tasksErased(ids: [4, 5, 2], modes: [.all]),
                    "the tasks were deleted at once, without the to-delete list: nothing was kept"))
        }
    }

    @Test func sectionSortedReordersOneSectionAndUndoesToTheOldOrder() {
        let s0 = fixture().list
        assertReduce(from: s0, [.sectionSorted(index: 0, order: [3, 9, 1])]) {
            // Named tasks first in the given order (unknown ids ignored), the rest after in their order.
            $0.sections[0].tasks = [3, 1, 2]
            $0.undoStack.append(
                step(
                    s0, .sectionSorted(index: 0, order: [1, 2, 3]),
                    for: .sectionSorted(index: 0, order: [3, 9, 1])))
        }
        assertReduce(from: s0, [.sectionSorted(index: 7, order: [1])]) { _ in }
    }

    @Test func trashPolicyChangedSwitchesTheToDeleteList() {
        let s0 = fixture().list
        assertReduce(from: s0, [.trashPolicyChanged(enabled: false)]) {
            $0.trashEnabled = false
            $0.undoStack.append(
                step(s0, .trashPolicyChanged(enabled: true), for: .trashPolicyChanged(enabled: false)))
        }
    }

    @Test func renameSetsAChosenNameAndTheFileNameWhenGiven() {
        let s0 = fixture().list
        assertReduce(from: s0, [.taskRenamed(id: 2, name: "two.txt", fileName: "two.txt")]) {
            $0.tasks[2]!.displayName = "two.txt"
            $0.tasks[2]!.nameIsUserChosen = true
            $0.tasks[2]!.fileName = "two.txt"
            $0.undoStack.append(
                step(
                    s0, .taskRenamed(id: 2, name: "b", fileName: nil, userChosen: false),
                    for: .taskRenamed(id: 2, name: "two.txt", fileName: "two.txt")))
        }
    }

    @Test func pauseStopResumeFollowTheStateRules() {
        var log = fixture()
        log.fact(.transferStarted(id: 1, attempt: 1, offset: 0))
        log.fact(.transferCompleted(id: 3, bytes: 1, sha256: "00", fileName: "c"))
        let s0 = log.list
        assertReduce(from: s0, [.tasksPaused(ids: [1, 2, 3])]) {
            $0.tasks[1]!.state = .paused
            $0.tasks[2]!.state = .paused
            $0.undoStack.append(
                step(
                    s0, .statesRestored(ids: [1, 2, 3], states: [.waiting, .waiting, .finished]),
                    for: .tasksPaused(ids: [1, 2, 3])))
        }
        assertReduce(from: s0, [.tasksStopped(ids: [2])]) {
            $0.tasks[2]!.state = .stopped
            $0.undoStack.append(
                step(s0, .statesRestored(ids: [2], states: [.waiting]), for: .tasksStopped(ids: [2])))
        }
        log.fact(
            .transferFailed(
                id: 4, failure: TaskFailure(code: "http", detail: "HTTP 503", retryable: true), bytes: 7))
        log.run(.pause(.tasks([2])))
        let s1 = log.list
        assertReduce(from: s1, [.tasksResumed(ids: [2, 4, 5])]) {
            $0.tasks[2]!.state = .waiting
            $0.tasks[4]!.state = .waiting
            $0.undoStack.append(
                step(
                    s1, .statesRestored(ids: [2, 4, 5], states: [.paused, .failed, .waiting]),
                    for: .tasksResumed(ids: [2, 4, 5])))
        }
    }

    @Test func statesRestoredLeavesFinishedTasksFinished() {
        var log = fixture()
        log.run(.pause(.tasks([1, 2])))
        log.fact(.transferCompleted(id: 1, bytes: 1, sha256: "00", fileName: "a"))
        let s0 = log.list
        assertReduce(from: s0, [.statesRestored(ids: [1, 2], states: [.waiting, .waiting])]) {
            $0.tasks[2]!.state = .waiting
            $0.redoStack = []
            $0.undoStack.append(
                step(
                    s0, .statesRestored(ids: [1, 2], states: [.finished, .paused]),
                    for: .statesRestored(ids: [1, 2], states: [.waiting, .waiting])))
        }
    }

    @Test func settingsEventsChangeSettings() {
        let s0 = fixture().list
        assertReduce(from: s0, [.maxDownloadsChanged(7)]) {
            $0.maxDownloads = 7
            $0.undoStack.append(step(s0, .maxDownloadsChanged(3), for: .maxDownloadsChanged(7)))
        }
        assertReduce(from: s0, [.speedLimitChanged(1024)]) {
            $0.speedLimit = 1024
            $0.undoStack.append(step(s0, .speedLimitChanged(0), for: .speedLimitChanged(1024)))
        }
        assertReduce(from: s0, [.sortChanged(.size, descending: true)]) {
            $0.sortMode = .size
            $0.sortDescending = true
            $0.undoStack.append(
                step(s0, .sortChanged(.manual, descending: false), for: .sortChanged(.size, descending: true))
            )
        }
        assertReduce(from: s0, [.emptySectionsPolicyChanged(autoRemove: true)]) {
            $0.autoRemoveEmptySections = true
            $0.undoStack.append(
                step(
                    s0, .emptySectionsPolicyChanged(autoRemove: false),
                    for: .emptySectionsPolicyChanged(autoRemove: true)))
        }
    }

    @Test func transferFactsMoveATaskThroughItsLifeOutsideUndo() {
        var log = fixture()
        log.run(.undo)
        let s0 = log.list
        #expect(!s0.redoStack.isEmpty)
        assertReduce(from: s0, [.transferStarted(id: 1, attempt: 1, offset: 0)]) {
            $0.tasks[1]!.state = .downloading
            $0.tasks[1]!.attempts = 1
        }
        assertReduce(
            from: s0,
            [
                .transferStarted(id: 1, attempt: 2, offset: 500),
                .transferResolved(
                    id: 1, size: 1000, serverName: "real.bin", validator: "\"etag\"", acceptsRanges: false,
                    restartedFromZero: "no ranges"),
            ]
        ) {
            $0.tasks[1]!.state = .downloading
            $0.tasks[1]!.attempts = 2
            $0.tasks[1]!.bytes = 0
            $0.tasks[1]!.size = 1000
            $0.tasks[1]!.displayName = "real.bin"
            $0.tasks[1]!.validator = "\"etag\""
        }
        assertReduce(
            from: s0, [.transferStarted(id: 1, attempt: 1, offset: 0), .transferPaused(id: 1, bytes: 300)]
        ) {
            $0.tasks[1]!.attempts = 1
            $0.tasks[1]!.bytes = 300
        }
        assertReduce(
            from: s0,
            [
                .transferStarted(id: 1, attempt: 1, offset: 0),
                .transferCompleted(id: 1, bytes: 9, sha256: "ab", fileName: "a.1"),
            ]
        ) {
            $0.tasks[1]!.state = .finished
            $0.tasks[1]!.attempts = 1
            $0.tasks[1]!.bytes = 9
            $0.tasks[1]!.size = 9
            $0.tasks[1]!.sha256 = "ab"
            $0.tasks[1]!.fileName = "a.1"
            $0.tasks[1]!.displayName = "a.1"
            $0.tasks[1]!.finished = 9_000
        }
        let failure = TaskFailure(code: "timeout", detail: "no data for 30 s", retryable: true)
        assertReduce(
            from: s0,
            [
                .transferStarted(id: 1, attempt: 1, offset: 0),
                .transferFailed(id: 1, failure: failure, bytes: 5),
            ]
        ) {
            $0.tasks[1]!.state = .failed
            $0.tasks[1]!.attempts = 1
            $0.tasks[1]!.failure = failure
            $0.tasks[1]!.bytes = 5
        }
    }

    @Test func transferFactsKeepAChosenName() {
        var log = fixture()
        log.run(.rename(1, name: "mine"))
        let s0 = log.list
        assertReduce(
            from: s0,
            [
                .transferResolved(
                    id: 1, size: nil, serverName: "srv", validator: nil, acceptsRanges: true,
                    restartedFromZero: nil),
                .transferCompleted(id: 1, bytes: 3, sha256: "cd", fileName: "mine"),
            ]
        ) {
            $0.tasks[1]!.state = .finished
            $0.tasks[1]!.bytes = 3
            $0.tasks[1]!.size = 3
            $0.tasks[1]!.sha256 = "cd"
            $0.tasks[1]!.fileName = "mine"
            $0.tasks[1]!.finished = 9_000
        }
    }

    @Test func factsAboutUnknownTasksAreIgnored() {
        let s0 = fixture().list
        assertReduce(
            from: s0,
            [
                .transferStarted(id: 99, attempt: 1, offset: 0), .transferPaused(id: 99, bytes: 1),
                .transferCompleted(id: 99, bytes: 1, sha256: "", fileName: "x"),
            ]
        ) { _ in }
    }
}

/// Pause keeps the connection, stop closes it: the facts that say which.
struct HeldTransferReducerTests {
    @Test func heldKeepsTheConnectionUntilAnyOtherFact() throws {
        var log = TestLog()
        log.add(u("a"))
        log.fact(.transferStarted(id: 1, attempt: 1, offset: 0))
        log.run(.pause(.tasks([1])))
        let s0 = log.list
        var held = s0
        held.apply(LoggedEntry(seq: s0.head + 1, time: 9_000, entry: Entry(.transferHeld(id: 1, bytes: 500))))
        var expected = s0
        expected.tasks.update(1) { t in
            t.bytes = 500
            t.connectionKept = true
        }
        expectEqual(held.contents, expected.contents, "held")
        #expect(held.undoStack == s0.undoStack)
        // The resume, then the engine going on with the same response.
        var log2 = log
        log2.fact(.transferHeld(id: 1, bytes: 500))
        log2.run(.resume(.tasks([1])))
        #expect(log2.list.tasks[1]?.state == .waiting && log2.list.tasks[1]?.connectionKept == true)
        log2.fact(.transferContinued(id: 1))
        #expect(log2.list.tasks[1]?.state == .downloading && log2.list.tasks[1]?.connectionKept == false)
        // A hold that expired: the engine stops the transfer; the paused task keeps its bytes, not the connection.
        var log3 = log
        log3.fact(.transferHeld(id: 1, bytes: 500))
        log3.fact(.transferPaused(id: 1, bytes: 700))
        #expect(log3.list.tasks[1]?.state == .paused && log3.list.tasks[1]?.connectionKept == false)
        #expect(log3.list.tasks[1]?.bytes == 700)
        #expect(log3.replayed() == log3.list)
        #expect(try DownloadList(snapshot: log2.list.snapshotBytes()) == log2.list)
    }
}
