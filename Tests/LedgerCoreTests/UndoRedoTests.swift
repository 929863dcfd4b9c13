import Testing

@testable import LedgerCore

/// Runs `command`, undoes it and redoes it, checking each time the whole user-visible state and the markers.
/// Ids are never reused, so after an undone add only `nextID` may stay ahead.
private func checkUndoRedo(
    _ command: Command, on start: TestLog, sourceLocation: SourceLocation = #_sourceLocation
) {
    var log = start
    let before = log.list.contents
    guard log.run(command, sourceLocation: sourceLocation) != nil else { return }
    let actionSeq = log.list.head
    let after = log.list.contents
    guard let undo = log.run(.undo, sourceLocation: sourceLocation) else { return }
    #expect(undo.entry.undoes == actionSeq, sourceLocation: sourceLocation)
    #expect(undo.target?.seq == actionSeq, sourceLocation: sourceLocation)
    var undone = log.list.contents
    undone.nextID = before.nextID
    expectEqual(undone, before, "undo of \(command)", sourceLocation: sourceLocation)
    #expect(log.list.undoStack == start.list.undoStack, sourceLocation: sourceLocation)
    guard let redo = log.run(.redo, sourceLocation: sourceLocation) else { return }
    #expect(redo.entry.redoes == actionSeq, sourceLocation: sourceLocation)
    // Redo does the action again now: only the times it records differ.
    expectEqual(log.list.timeless, after.timeless, "redo of \(command)", sourceLocation: sourceLocation)
    #expect(log.list.redoStack.isEmpty, sourceLocation: sourceLocation)
    // And once more: the redone action undoes like the first time.
    log.run(.undo, sourceLocation: sourceLocation)
    undone = log.list.contents
    undone.nextID = before.nextID
    expectEqual(undone, before, "second undo of \(command)", sourceLocation: sourceLocation)
    #expect(log.replayed() == log.list, sourceLocation: sourceLocation)
}

private func autoRemoving(_ log: TestLog) -> TestLog {
    var log = log
    log.run(.setAutoRemoveEmptySections(true))
    return log
}

struct UndoRedoTests {
    @Test func undoOfAddsRemovesTheTasksAndTheSectionTheyBrought() {
        checkUndoRedo(
            .add(urls: [u("a"), u("b")], placement: .end, name: nil, sha256: nil, directory: nil),
            on: TestLog())
        for placement in [
            AddPlacement.end, .section(1, index: 1), .titled("B"), .titled("New"),
            .newSection(title: "N", at: 0),
            .newSection(title: "B", at: 2),
        ] {
            checkUndoRedo(
                .add(urls: [u("x"), u("y")], placement: placement, name: nil, sha256: nil, directory: nil),
                on: fixture())
        }
        checkUndoRedo(
            .add(urls: [u("x")], placement: .end, name: "X", sha256: nil, directory: "/o"), on: fixture())
    }

    @Test func undoOfAnAddOfGroupsRemovesEveryTaskAndSectionItBrought() {
        let groups = [
            AddGroup(urls: [u("x")], placement: .newSection(title: "N", at: 0)),
            AddGroup(urls: [u("y"), u("a")], placement: .titled("B")),
            AddGroup(urls: [u("z")], placement: .titled("New")),
            AddGroup(urls: [u("w")], placement: .titled("New")),
        ]
        checkUndoRedo(.addGroups(groups, directory: nil), on: fixture())
        checkUndoRedo(.addGroups(groups, directory: nil), on: TestLog())
        var log = fixture()
        let d = log.run(.addGroups(groups, directory: nil))
        #expect(d?.added == [6, 7, 8, 9])
        #expect(d?.skipped.map(\.url) == [u("a")])
        #expect(log.titles == ["N", "Downloads", "B", "New"])
        #expect(log.layout == [[6], [1, 2, 3], [4, 5, 7], [8, 9]])
    }

    @Test func undoOfAnAddLetsTheSameURLBeAddedAgain() {
        var log = fixture()
        log.add(u("x"))
        log.run(.undo)
        #expect(log.add(u("x")) == [7])
        #expect(log.list.trash.isEmpty)
    }

    @Test func undoOfMoves() {
        checkUndoRedo(.move([5, 1, 3], to: Location(section: 1, index: 1)), on: fixture())
        checkUndoRedo(.move([2], to: Location(section: 0, index: 0)), on: fixture())
        checkUndoRedo(.move([4, 5], to: Location(section: 0, index: 1)), on: autoRemoving(fixture()))
        var withEmpty = fixture()
        withEmpty.run(.insertSection(title: "Empty", at: 2))
        withEmpty.run(.setAutoRemoveEmptySections(true))
        checkUndoRedo(.move([1], to: Location(section: 2)), on: withEmpty)
        checkUndoRedo(.move([1, 2, 3, 4, 5], to: Location(section: 2)), on: withEmpty)
    }

    /// Two sections titled "B": undo brings back the very one a move or delete emptied and removed, never
    /// filling the other.
    @Test func undoWithTwoSectionsOfOneTitle() {
        var twins = autoRemoving(fixture())
        twins.run(.insertSection(title: "B", at: nil))
        twins.add(u("f"), to: .section(2, index: 0))
        #expect(twins.list.sections.map(\.title) == ["Downloads", "B", "B"])
        checkUndoRedo(.move([6], to: Location(section: 0, index: 0)), on: twins)
        checkUndoRedo(.move([4, 5], to: Location(section: 2, index: 1)), on: twins)
        checkUndoRedo(.move([4, 5, 6], to: Location(section: 0)), on: twins)
        for mode in [DeleteMode.all, .record] {
            checkUndoRedo(.delete(.tasks([4, 5]), mode: mode), on: twins)
            checkUndoRedo(.delete(.tasks([6]), mode: mode), on: twins)
            checkUndoRedo(.delete(.section(1), mode: mode), on: twins)
            checkUndoRedo(.delete(.tasks([5, 6, 4]), mode: mode), on: twins)
        }
    }

    @Test func undoOfSectionCommands() {
        var withEmpty = fixture()
        withEmpty.run(.insertSection(title: "Empty", at: 1))
        checkUndoRedo(.insertSection(title: "Top", at: 0), on: fixture())
        checkUndoRedo(.insertSection(title: "End", at: nil), on: fixture())
        checkUndoRedo(.renameSection(1, title: "Bee"), on: fixture())
        checkUndoRedo(.moveSection(0, to: 2), on: withEmpty)
        checkUndoRedo(.moveSection(2, to: 0), on: withEmpty)
        checkUndoRedo(.removeSection(1), on: withEmpty)
    }

    @Test func undoOfDeletesAndRestores() {
        var trashed = fixture()
        trashed.run(.delete(.tasks([1]), mode: .all))
        trashed.run(.delete(.tasks([4, 2]), mode: .record))
        for mode in [DeleteMode.all, .record] {
            checkUndoRedo(.delete(.tasks([3, 5]), mode: mode), on: trashed)
            checkUndoRedo(.delete(.section(1), mode: mode), on: autoRemoving(fixture()))
            checkUndoRedo(.delete(.all, mode: mode), on: autoRemoving(trashed))
        }
        checkUndoRedo(.restore([2], to: nil), on: trashed)
        checkUndoRedo(.restore(nil, to: nil), on: trashed)
        checkUndoRedo(.restore([4, 1], to: Location(section: 1, index: 0)), on: trashed)
        var gone = autoRemoving(fixture())
        gone.run(.delete(.section(1), mode: .all))
        gone.run(.delete(.tasks([1]), mode: .all))
        checkUndoRedo(.restore([5], to: nil), on: gone)
        checkUndoRedo(.restore(nil, to: nil), on: gone)
    }

    @Test func undoOfRenames() {
        var log = fixture()
        log.fact(.transferCompleted(id: 1, bytes: 3, sha256: "00", fileName: "a.bin"))
        checkUndoRedo(.rename(1, name: "one.bin"), on: log)
        checkUndoRedo(.rename(2, name: "two"), on: log)
        log.run(.rename(3, name: "three"))
        checkUndoRedo(.rename(3, name: "drei"), on: log)
    }

    @Test func undoOfUndoneRenameLetsTheServerNameAgain() {
        var log = fixture()
        log.run(.rename(1, name: "mine"))
        log.run(.undo)
        log.fact(
            .transferResolved(
                id: 1, size: 9, serverName: "srv.bin", validator: nil, acceptsRanges: true,
                restartedFromZero: nil
            ))
        #expect(log.list.tasks[1]?.displayName == "srv.bin")
    }

    @Test func undoOfStateCommands() {
        var log = fixture()
        log.fact(.transferStarted(id: 1, attempt: 1, offset: 0))
        log.fact(.transferPaused(id: 1, bytes: 10))
        log.fact(
            .transferFailed(
                id: 4, failure: TaskFailure(code: "http", detail: "HTTP 500", retryable: true), bytes: 0))
        log.run(.pause(.tasks([2])))
        checkUndoRedo(.pause(.all), on: log)
        checkUndoRedo(.stop(.section(0)), on: log)
        checkUndoRedo(.resume(.all), on: log)
    }

    @Test func undoOfSettings() {
        let log = fixture()
        checkUndoRedo(.setMaxDownloads(9), on: log)
        checkUndoRedo(.setSpeedLimit(1_000), on: log)
        checkUndoRedo(.sort(.type, descending: true), on: log)
        checkUndoRedo(.setAutoRemoveEmptySections(true), on: log)
    }

    @Test func undoWalksBackAndRedoForward() {
        var log = fixture()
        let states = [log.list.contents]
        var all = states
        log.run(.move([1], to: Location(section: 1)))
        all.append(log.list.contents)
        log.run(.renameSection(0, title: "D"))
        all.append(log.list.contents)
        log.run(.delete(.tasks([2]), mode: .all))
        all.append(log.list.contents)
        for i in stride(from: 2, through: 0, by: -1) {
            log.run(.undo)
            expectEqual(log.list.contents, all[i], "undo")
        }
        for i in 1...3 {
            log.run(.redo)
            expectEqual(log.list.timeless, all[i].timeless, "redo")
        }
        log.refuses(.redo, with: .nothingToRedo)
    }

    @Test func aNewActionClearsRedo() {
        var log = fixture()
        log.run(.renameSection(0, title: "D"))
        log.run(.undo)
        #expect(log.list.redoStack.count == 1)
        log.fact(.transferStarted(id: 1, attempt: 1, offset: 0))
        #expect(log.list.redoStack.count == 1)
        log.run(.setMaxDownloads(1))
        log.refuses(.redo, with: .nothingToRedo)
    }

    /// Undo acts on the newest action: one that cannot be undone stands in the way, named, and nothing is decided;
    /// `undoPast` passes over such actions (and says which) to the newest one that can be undone.
    @Test func undoRefusesActionsThatCannotBeUndoneAndUndoPastPassesThem() throws {
        var log = fixture()
        log.run(.delete(.tasks([4]), mode: .all))
        log.run(.rename(2, name: "two"))
        let renameSeq = log.list.head
        log.fact(.transferCompleted(id: 1, bytes: 3, sha256: "00", fileName: "a"))
        log.run(.redownload(.tasks([1])))
        let redownloadSeq = log.list.head
        log.run(.delete(.tasks([3]), mode: .file))
        log.run(.purge(nil))
        let purgeSeq = log.list.head
        log.refuses(
            .undo,
            with: .cannotUndo(
                seq: purgeSeq, kind: "trashPurged",
                reason:
                    "purged tasks are gone for good, with their files ('undo --past' undoes the newest action that can be undone)"
            ))
        let undo = try log.must(.undoPast)
        #expect(undo.entry.undoes == renameSeq)
        #expect(undo.target?.kind == "taskRenamed")
        #expect(undo.passed.map(\.seq) == [purgeSeq, purgeSeq - 1, redownloadSeq])
        #expect(undo.passed.map(\.kind) == ["trashPurged", "filesDeleted", "tasksRedownloaded"])
        #expect(log.list.tasks[2]?.displayName == "b")
        // The blockers stay: a plain undo still names the purge; redo brings the rename back.
        #expect(log.error(of: .undo) as? LedgerError == log.error(of: .undo) as? LedgerError)
        if case .cannotUndo(let seq, _, _) = log.error(of: .undo) as? LedgerError { #expect(seq == purgeSeq) }
        log.run(.redo)
        #expect(log.list.tasks[2]?.displayName == "two")
    }

    @Test func undoAfterAPurgeSkipsTheStepsOfPurgedTasks() throws {
        var log = fixture()
        let before = log.list.undoStack.filter { !$0.action.taskIDs.contains(2) }
        log.run(.delete(.tasks([2]), mode: .all))
        log.run(.purge([2]))
        #expect(log.error(of: .undo) != nil)
        let undo = try log.must(.undoPast)
        #expect(undo.entry.undoes == before.last?.seq)
        #expect(log.list.tasks[2] == nil)
    }

    @Test func undoPastWithNothingOlderNamesTheNewestBlocker() throws {
        var log = TestLog()
        log.add(u("a"))
        log.run(.erase(.tasks([1]), mode: .all))
        let seq = log.list.head
        log.refuses(
            .undo,
            with: .cannotUndo(
                seq: seq, kind: "tasksErased",
                reason: "the tasks were deleted at once, without the to-delete list: nothing was kept"))
        log.refuses(
            .undoPast,
            with: .cannotUndo(
                seq: seq, kind: "tasksErased",
                reason:
                    "the tasks were deleted at once, without the to-delete list: nothing was kept; no older action can be undone"
            ))
    }

    @Test func undoOfSortSectionAndSettings() {
        var log = fixture()
        log.fact(
            .transferResolved(
                id: 2, size: 5, serverName: nil, validator: nil, acceptsRanges: true, restartedFromZero: nil))
        for key in SectionSortKey.allCases {
            checkUndoRedo(.sortSection(0, by: key, descending: true), on: log)
        }
        checkUndoRedo(.setTrash(false), on: fixture())
        checkUndoRedo(.setAutoRemoveEmptySections(true), on: fixture())
        checkUndoRedo(.setHook(.complete, command: "/usr/local/bin/done"), on: fixture())
        var hooked = fixture()
        hooked.run(.setHook(.error, command: "/bin/a"))
        checkUndoRedo(.setHook(.error, command: "/bin/b"), on: hooked)
        checkUndoRedo(.setHook(.error, command: nil), on: hooked)
    }

    @Test func hookSettingsAreCheckedAndFactsNeverUndone() {
        var log = fixture()
        log.refuses(
            .setHook(.complete, command: nil), with: .nothingToDo("on-download-complete is already none"))
        for bad in ["hook.sh", "", "bin/x", "/bin/x\n", "/a\u{202E}b"] {
            #expect(log.error(of: .setHook(.complete, command: bad)) != nil, "\(bad)")
        }
        log.run(.setHook(.complete, command: "/bin/true"))
        log.fact(
            .hookFinished(id: 1, hook: .complete, command: "/bin/true", result: .exited(0), firstLine: ""))
        #expect(log.list.hooks == [.complete: "/bin/true"])
        // Undo passes over the fact and takes back the setting.
        log.run(.undo)
        #expect(log.list.hooks.isEmpty)
    }

    @Test func nothingToUndoOrRedo() {
        let log = TestLog()
        log.refuses(.undo, with: .nothingToUndo)
        log.refuses(.redo, with: .nothingToRedo)
    }

    @Test func transferFactsNeverEnterUndo() {
        var log = fixture()
        let stack = log.list.undoStack
        log.fact(.transferStarted(id: 1, attempt: 1, offset: 0))
        log.fact(
            .transferResolved(
                id: 1, size: 5, serverName: nil, validator: nil, acceptsRanges: true, restartedFromZero: nil))
        log.fact(.transferPaused(id: 1, bytes: 2))
        log.fact(
            .transferFailed(id: 1, failure: TaskFailure(code: "x", detail: "y", retryable: false), bytes: 2))
        log.fact(.transferCompleted(id: 1, bytes: 5, sha256: "00", fileName: "a"))
        #expect(log.list.undoStack == stack)
        log.run(.undo)
        #expect(log.list.tasks[4] == nil)
        #expect(log.list.tasks[1]?.state == .finished)
    }

    @Test func undoReachesBackAFixedDepth() {
        var log = TestLog()
        let total = DownloadList.undoDepth + DownloadList.undoSlack + 1
        for n in 1...total { log.run(.setSpeedLimit(Int64(n))) }
        // Cut back to the depth once the slack is exceeded; the newest steps stay.
        #expect(log.list.undoStack.count == DownloadList.undoDepth)
        #expect(log.list.undoStack.last?.action == .speedLimitChanged(Int64(total)))
        for _ in 0..<DownloadList.undoDepth { log.run(.undo) }
        #expect(log.list.speedLimit == Int64(total - DownloadList.undoDepth))
        log.refuses(.undo, with: .nothingToUndo)
    }
}
