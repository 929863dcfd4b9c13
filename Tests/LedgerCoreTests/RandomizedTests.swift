import FuzzSupport
import Testing

@testable import LedgerCore

/// Drives a list with random valid and invalid commands and random downloader facts, checking after every step
/// what must always hold.
struct Fuzzer {
    var rng: SplitMix64
    var log = TestLog()
    /// The same log replayed entry by entry through the payload codec, as a store would read it back.
    var shadow = DownloadList()
    var counts: [String: Int] = [:]
    /// The live list after each entry, when asked for.
    var history: [DownloadList]?

    let urls = (0..<60).map { n in u("file\(n)" + [".iso", ".mp3", ".jpg", ".pdf", ""][n % 5]) }
    let titles = ["A", "B", "Vidéos", "Downloads", "C"]
    let names = ["x", "Film.mkv", "été 🎬", "a.b", "n2"]

    init(seed: UInt64) {
        rng = SplitMix64(seed: seed)
        for logged in log.entries { shadow.apply(logged) }
    }

    var list: DownloadList { log.list }
    mutating func someID() -> TaskID { TaskID(rng.below(Int(list.nextID) + 2)) }
    var liveIDs: [TaskID] { list.orderedTasks.map(\.id) }

    mutating func ids(from pool: [TaskID]) -> [TaskID] {
        guard !pool.isEmpty else { return [someID()] }
        return (0...rng.below(3)).map { _ in rng.chance(0.9) ? rng.pick(pool) : someID() }
    }

    mutating func location() -> Location {
        let s = rng.below(list.sections.count + 1)
        let count = list.sections.indices.contains(s) ? list.sections[s].tasks.count : 0
        return Location(section: s, index: rng.chance(0.5) ? nil : rng.below(count + 2))
    }

    mutating func selection() -> Selection {
        switch rng.below(10) {
        case 0: return .all
        case 1, 2: return .section(rng.below(list.sections.count + 1))
        default: return .tasks(ids(from: liveIDs))
        }
    }

    mutating func placement() -> AddPlacement {
        switch rng.below(4) {
        case 0: return .end
        case 1:
            let s = rng.below(list.sections.count + 1)
            let count = list.sections.indices.contains(s) ? list.sections[s].tasks.count : 0
            return .section(s, index: rng.chance(0.5) ? nil : rng.below(count + 2))
        case 2: return .titled(rng.pick(titles))
        default:
            return .newSection(
                title: rng.pick(titles), at: rng.chance(0.5) ? nil : rng.below(list.sections.count + 2))
        }
    }

    /// Any command, valid or not.
    mutating func command() -> Command {
        let trashIDs = list.trash.map(\.id)
        switch rng.below(27) {
        case 0, 1, 2:
            let picked = (0...rng.below(3)).map { _ in rng.pick(urls) }
            let name = picked.count == 1 && rng.chance(0.3) ? rng.pick(names) : nil
            return .add(urls: picked, placement: placement(), name: name, sha256: nil, directory: nil)
        case 3, 4: return .move(ids(from: liveIDs), to: location())
        case 5:
            return .insertSection(
                title: rng.pick(titles), at: rng.chance(0.5) ? nil : rng.below(list.sections.count + 2))
        case 6: return .renameSection(rng.below(list.sections.count + 1), title: rng.pick(titles))
        case 7:
            return .moveSection(rng.below(list.sections.count + 1), to: rng.below(list.sections.count + 1))
        case 8: return .removeSection(rng.below(list.sections.count + 1))
        case 9, 10: return .delete(rng.chance(0.1) ? .all : selection(), mode: rng.pick(DeleteMode.allCases))
        case 11, 12:
            return .restore(
                rng.chance(0.2) ? nil : ids(from: trashIDs), to: rng.chance(0.7) ? nil : location())
        case 13: return .purge(rng.chance(0.1) ? nil : ids(from: trashIDs))
        case 14: return .redownload(.tasks(ids(from: liveIDs)))
        case 15:
            return .rename(
                rng.chance(0.9) ? rng.pick(liveIDs + trashIDs + [0]) : someID(), name: rng.pick(names))
        case 16: return .pause(selection())
        case 17: return .resume(selection())
        case 18: return .stop(selection())
        case 19:
            switch rng.below(6) {
            case 0, 1: return .setMaxDownloads(rng.below(4))
            case 2, 3: return .setSpeedLimit(Int64(rng.below(3)) * 1000)
            case 4: return .setConnectionsPerServer(rng.below(3))
            default: return .setMinSplitSize(Int64(rng.below(3)) << 20)
            }
        case 20:
            return .sort(
                rng.pick(SortMode.allCases + [.manual, .manual, .manual]), descending: rng.chance(0.3))
        case 21: return .setAutoRemoveEmptySections(rng.chance(0.5))
        case 22: return .erase(selection(), mode: rng.pick(DeleteMode.allCases))
        case 23: return .setTrash(rng.chance(0.7))
        case 24:
            return .sortSection(
                rng.below(list.sections.count + 1), by: rng.pick(SectionSortKey.allCases),
                descending: rng.chance(0.5))
        case 25:
            return .addGroups(
                (0...rng.below(3)).map { _ in
                    AddGroup(urls: (0...rng.below(2)).map { _ in rng.pick(urls) }, placement: placement())
                }, directory: nil)
        default: return .undoPast
        }
    }

    /// A command that must be refused whatever the state.
    mutating func invalidCommand() -> Command {
        let unknown = list.nextID + TaskID(rng.below(5))
        switch rng.below(9) {
        case 0: return .move([unknown], to: Location(section: 0))
        case 1:
            return .rename(rng.pick(liveIDs + [unknown]), name: rng.pick(["a/b", "..", "", "a\nb", "x..y"]))
        case 2:
            let bad = [
                "ftp://h/x", "foo", "http://", "http://h x/", "http://h:99999/",
                rng.pick(Array(list.urlIndex.keys) + ["nope"]),
            ]
            return .add(
                urls: [rng.pick(bad), rng.pick(bad)], placement: .end, name: nil, sha256: nil, directory: nil)
        case 3: return .removeSection(list.sections.count + rng.below(3))
        case 4: return .setMaxDownloads(-1 - rng.below(3))
        case 5: return .restore([rng.pick(liveIDs + [unknown])], to: nil)
        case 6: return .pause(.section(list.sections.count))
        case 7: return .insertSection(title: rng.pick([" ", "", "a\tb"]), at: nil)
        default: return .purge([rng.pick(liveIDs + [unknown])])
        }
    }

    mutating func fact() -> Event {
        let id = rng.chance(0.9) && !list.tasks.isEmpty ? rng.pick(Array(list.tasks.keys).sorted()) : someID()
        let bytes = Int64(rng.below(5_000_000))
        switch rng.below(7) {
        case 5: return .transferHeld(id: id, bytes: bytes)
        case 6: return .transferContinued(id: id)
        case 0:
            return .transferStarted(id: id, attempt: 1 + rng.below(3), offset: rng.chance(0.5) ? 0 : bytes)
        case 1:
            return .transferResolved(
                id: id, size: rng.chance(0.8) ? bytes * 1000 : nil,
                serverName: rng.chance(0.5) ? rng.pick(names) : nil,
                validator: rng.chance(0.5) ? "\"v\(rng.below(9))\"" : nil, acceptsRanges: rng.chance(0.5),
                restartedFromZero: rng.chance(0.2) ? "no ranges" : nil)
        case 2: return .transferPaused(id: id, bytes: bytes)
        case 3:
            return .transferCompleted(
                id: id, bytes: bytes, sha256: String(repeating: "a", count: 64),
                fileName: rng.pick(names) + ".bin")
        default:
            return .transferFailed(
                id: id,
                failure: TaskFailure(
                    code: "http", detail: "HTTP \(400 + rng.below(200))", retryable: rng.chance(0.5)),
                bytes: bytes)
        }
    }

    /// Appends an entry and folds its decoded payload into the shadow.
    mutating func append(_ entry: Entry) {
        log.append(entry)
        history?.append(log.list)
        let logged = log.entries.last!
        do {
            let decoded = try Entry.decode(kind: entry.event.kind, payload: entry.encodedPayload())
            shadow.apply(LoggedEntry(seq: logged.seq, time: logged.time, entry: decoded))
        } catch {
            Issue.record("\(entry) does not decode: \(error)")
        }
    }

    mutating func step(_ n: Int) {
        let roll = rng.below(100)
        if roll < 12 {
            append(Entry(fact()))
            counts["fact", default: 0] += 1
        } else if roll < 27 {
            let command = invalidCommand()
            let before = list
            do {
                _ = try list.decide(command)
                Issue.record("step \(n): \(command) was accepted")
            } catch {
                #expect(error is LedgerError || error is NothingAdded)
                counts["refused", default: 0] += 1
            }
            #expect(list == before)
        } else {
            let command = roll < 35 ? Command.undo : roll < 39 ? .redo : command()
            if command == .undo, let top = list.undoStack.last, top.blocker != nil {
                #expect(log.error(of: .undo) != nil, "step \(n): undo over a blocker")
            }
            let before = list
            do {
                let decision = try list.decide(command)
                append(decision.entry)
                counts[decision.entry.event.kind, default: 0] += 1
                checkUndoRedo(after: command, before: before)
            } catch {
                #expect(error is LedgerError || error is NothingAdded, "\(command): \(error)")
                #expect(list == before)
                counts["threw", default: 0] += 1
            }
        }
    }

    /// Sometimes undoes a fresh action at once (the state must be the one before it, ids aside) and redoes it.
    mutating func checkUndoRedo(after command: Command, before: DownloadList) {
        if let top = list.undoStack.last, top.seq == list.head, top.blocker != nil {
            // An action that cannot be undone stands in the way: undo refuses it and names it.
            #expect(throws: LedgerError.self) { try list.decide(.undo) }
            if case .cannotUndo(let seq, _, _) = log.error(of: .undo) as? LedgerError {
                #expect(seq == list.head)
            }
            return
        }
        guard command != .undo, command != .redo, command != .undoPast, list.undoStack.last?.seq == list.head,
            rng.chance(0.3)
        else { return }
        let after = list.contents
        guard let undo = try? list.decide(.undo) else {
            Issue.record("cannot undo \(command) at once")
            return
        }
        append(undo.entry)
        var undone = list.contents.stoppedTransfers
        undone.nextID = before.nextID
        // Exact even with several sections of one title: undo recreates the very sections a delete or move removed.
        expectEqual(undone, before.contents.stoppedTransfers, "undo of \(command)")
        guard rng.chance(0.5) else { return }
        guard let redo = try? list.decide(.redo) else {
            Issue.record("cannot redo \(command) at once")
            return
        }
        append(redo.entry)
        expectEqual(list.timeless.stoppedTransfers, after.timeless.stoppedTransfers, "redo of \(command)")
    }

    func checkInvariants(_ n: Int) {
        let l = list
        var seen: [TaskID: Int] = [:]
        for s in l.sections { for id in s.tasks { seen[id, default: 0] += 1 } }
        let trashIDs = l.trash.map(\.id)
        #expect(Set(trashIDs).count == trashIDs.count, "step \(n): trash ids repeat")
        #expect(l.trashed == Set(trashIDs), "step \(n): trashed set out of step")
        #expect(Set(trashIDs).isDisjoint(with: seen.keys), "step \(n): trashed task in a section")
        for (id, task) in l.tasks {
            #expect(task.id == id)
            #expect(id < l.nextID, "step \(n): nextID \(l.nextID) not above #\(id)")
            if !l.isTrashed(id) {
                #expect(seen[id] == 1, "step \(n): #\(id) is in \(seen[id] ?? 0) sections")
            }
        }
        #expect(Set(seen.keys).isSubset(of: l.tasks.keys), "step \(n): a section names an unknown task")
        #expect(
            l.urlIndex == Dictionary(l.tasks.values.map { ($0.url, $0.id) }, uniquingKeysWith: { a, _ in a }))
        #expect(l.urlIndex.count == l.tasks.count, "step \(n): a URL appears twice")
        #expect(l.undoStack.count <= DownloadList.undoDepth + DownloadList.undoSlack)
    }
}

struct RandomizedTests {
    @Test(arguments: [1, 2, 3, 4] as [UInt64])
    func randomCommandsKeepEveryInvariant(seed: UInt64) throws {
        var fuzz = Fuzzer(seed: seed)
        var most = 0
        for n in 0..<3_000 {
            fuzz.step(n)
            most = max(most, fuzz.list.liveCount + fuzz.list.trash.count)
            fuzz.checkInvariants(n)
            expectEqual(fuzz.shadow, fuzz.list, "step \(n): replay through the codec")
            // A snapshot carries the whole undo history, so reading it back is the dearest check here: every tenth
            // step (the next test reads one back after every step of a shorter run).
            if n % 10 == 0 {
                expectEqual(
                    try DownloadList(snapshot: fuzz.list.snapshotBytes()), fuzz.list, "step \(n): snapshot")
            }
            if n % 500 == 499 { expectEqual(fuzz.log.replayed(), fuzz.list, "step \(n): replay from zero") }
        }
        expectEqual(fuzz.log.replayed(), fuzz.list, "replay from zero")
        // The run exercised most of the catalog, not only refusals.
        #expect(fuzz.counts.keys.filter { Event.allKinds.contains($0) }.count >= 20, "\(fuzz.counts)")
        // The list grew (erases and purges may empty it again by the end).
        #expect(most > 5)
    }

    @Test func everyPrefixReplaysToTheStateItHadThenAndEverySnapshotReads() throws {
        var fuzz = Fuzzer(seed: 99)
        fuzz.history = [fuzz.list]
        for n in 0..<600 {
            fuzz.step(n)
            expectEqual(
                try DownloadList(snapshot: fuzz.list.snapshotBytes()), fuzz.list, "step \(n): snapshot")
        }
        let history = fuzz.history!
        #expect(history.count == fuzz.log.entries.count)
        var replay = DownloadList()
        for (n, logged) in fuzz.log.entries.enumerated() {
            replay.apply(logged)
            expectEqual(replay, history[n], "prefix of \(n + 1) entries")
        }
    }

    /// A snapshot read for one task's sake (the other tasks as their id and state), then the events after it
    /// folded in, holds that task, the sections, the to-delete list and the event counts exactly as the whole
    /// list does: what `audit` reads.
    @Test func aSnapshotReadForOneTaskFoldsToTheSameTaskAndPlaces() throws {
        var fuzz = Fuzzer(seed: 7)
        // A snapshot, and the whole list 60 steps later: the tail between them is folded onto the light read.
        var snapshot: [UInt8] = []
        var pairs: [(snapshot: [UInt8], full: DownloadList)] = []
        var atHead: [(snapshot: [UInt8], full: DownloadList)] = []
        for n in 0..<900 {
            fuzz.step(n)
            if n % 90 == 0 {
                snapshot = fuzz.list.snapshotBytes()
                atHead.append((snapshot, fuzz.list))
            }
            if n % 90 == 60 { pairs.append((snapshot, fuzz.list)) }
        }
        // A snapshot at the head, nothing folded onto it: not even the others' states are kept.
        for (bytes, full) in atHead {
            for id in stride(from: 0, through: full.nextID + 1, by: 2) {
                let light = try bytes.withUnsafeBytes {
                    try DownloadList(snapshot: $0, keepingOnly: id, statesOf: [])
                }
                #expect(light.tasks[id] == full.tasks[id], "#\(id)")
                #expect(light.tasks.count == (full.tasks[id] == nil ? 0 : 1))
                #expect(light.sections == full.sections && light.trash == full.trash)
                #expect(light.eventCounts == full.eventCounts && light.head == full.head)
                #expect(
                    light.location(of: id).map { [$0.section, $0.index] }
                        == full.location(of: id).map { [$0.section, $0.index] })
                #expect(light.isTrashed(id) == full.isTrashed(id))
            }
        }
        #expect(pairs.filter { $0.full.tasks.count > 5 }.count >= 3)
        // The whole list read from the snapshot, the tail folded onto its records (only the tasks it touches
        // built): the same list, summary and snapshot as the list that lived through it.
        for (bytes, full) in pairs {
            var read = try DownloadList(snapshot: bytes)
            let tail = fuzz.log.entries.filter { $0.seq > read.head && $0.seq <= full.head }
            for logged in tail { read.apply(logged) }
            expectEqual(read, full, "a tail of \(tail.count) folded onto a snapshot read")
            #expect(read.tasks.keys == full.tasks.keys)
            #expect(ListSummary(read) == ListSummary(full))
            #expect(read.snapshotBytes() == full.snapshotBytes())
        }
        // The others kept as id and state: all of them, or only those the tail names (all the fold reads).
        for (bytes, full) in pairs {
            let head = try bytes.withUnsafeBytes { try DownloadList(snapshot: $0) }.head
            let tail = fuzz.log.entries.filter { $0.seq > head && $0.seq <= full.head }
            let named = Set(tail.flatMap(\.entry.event.taskIDs))
            for id in stride(from: 0, through: full.nextID + 1, by: 3) {
                for statesOf in [nil, named] {
                    var light = try bytes.withUnsafeBytes {
                        try DownloadList(snapshot: $0, keepingOnly: id, statesOf: statesOf)
                    }
                    #expect(light.head < full.head)
                    for logged in tail { light.apply(logged) }
                    #expect(light.head == full.head)
                    #expect(light.tasks[id] == full.tasks[id], "#\(id)")
                    if statesOf == nil { #expect(light.tasks.count == full.tasks.count) }
                    #expect(light.sections == full.sections)
                    #expect(light.trash == full.trash)
                    #expect(light.eventCounts == full.eventCounts)
                    #expect(light.isTrashed(id) == full.isTrashed(id))
                }
            }
        }
    }
}
