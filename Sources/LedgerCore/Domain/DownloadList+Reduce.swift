extension DownloadList {
    /// Folds one logged entry into the list. Pure and deterministic: no clock, no I/O; time comes with the entry.
    /// Entries were validated when they were appended; replay of a foreign or damaged log never traps: indexes
    /// are clamped and unknown ids ignored.
    /// - Complexity: O(tasks the event names) for most events; moves and deletes also search their sections.
    ///
    /// With `reader`, the undo history holds each action as a snapshot holds it: a reference to the event logged
    /// at its seq (its kind and the tasks it names), read back through `reader` when redo needs it. The decoded
    /// event is then not kept (a replay of an add of 100,000 URLs does not hold them all twice).
    ///
    /// Without `keepingUndo`, the undo and redo history is left as it was (no inverse is worked out): for a list
    /// that is only counted or looked at (`stats`, `audit`), never one to undo on.
    public mutating func apply(
        _ logged: LoggedEntry, actionsLoggedIn reader: LoggedEventReader? = nil, keepingUndo: Bool = true
    ) {
        let event = logged.entry.event
        let inverse: Event?
        if case .tasksAdded(let new, let section, let index, let title) = event {
            // Undo forgets what the add brought (the tasks it took and the section it created), so the URLs can be
            // added again; the add reports what it took, so no URL is looked up twice.
            let created =
                title != nil ? Swift.max(0, Swift.min(section, sections.count)) : sections.isEmpty ? 0 : nil
            let added = addTasks(
                new, section: section, index: index, newSectionTitle: title, time: logged.time)
            inverse =
                added.isEmpty ? nil : .tasksRemoved(ids: added, removingSections: created.map { [$0] } ?? [])
        } else if case .groupsAdded(let groups) = event {
            var added: [TaskID] = []
            var created: [Int] = []
            for g in groups {
                let new =
                    g.newSectionTitle != nil
                    ? Swift.max(0, Swift.min(g.section, sections.count)) : sections.isEmpty ? 0 : nil
                added += addTasks(
                    g.tasks, section: g.section, index: g.index, newSectionTitle: g.newSectionTitle,
                    time: logged.time)
                // A section inserted at or before one created earlier moves that one down.
                if let new {
                    created = created.map { $0 >= new ? $0 + 1 : $0 }
                    created.append(new)
                }
            }
            inverse = added.isEmpty ? nil : .tasksRemoved(ids: added, removingSections: created.sorted())
        } else {
            inverse = event.isTransferFact || !keepingUndo ? nil : inverseOf(event)
            reduce(event, time: logged.time)
        }
        head = logged.seq
        headTime = logged.time
        eventCounts.add(event.taskIDs)
        guard !event.isTransferFact, keepingUndo else { return }
        recordUndo(logged, inverse: inverse, reader: reader)
    }

    private mutating func recordUndo(_ logged: LoggedEntry, inverse: Event?, reader: LoggedEventReader?) {
        let entry = logged.entry
        // The action as the step keeps it: itself, or by reference to the log.
        func action() -> StepEvent {
            guard let reader else { return StepEvent(entry.event) }
            return StepEvent(
                loggedAt: logged.seq, kind: entry.event.kind, tasks: entry.event.taskIDs, reader: reader)
        }
        if let undone = entry.undoes {
            guard let i = undoStack.lastIndex(where: { $0.seq == undone }) else { return }
            // Undo put back the state before the action exactly, so redo appends the action itself again.
            let step = undoStack.remove(at: i)
            // The action itself, shared: an action a snapshot holds by reference is not read back to be moved.
            redoStack.append(
                UndoStep(
                    seq: undone, kind: step.kind, inverse: step.actionEvent, action: step.actionEvent,
                    blocker: nil))
        } else if let redone = entry.redoes {
            guard let i = redoStack.lastIndex(where: { $0.seq == redone }) else { return }
            let step = redoStack.remove(at: i)
            if let inverse {
                pushUndo(
                    UndoStep(
                        seq: logged.seq, kind: step.kind, inverse: StepEvent(inverse), action: action(),
                        blocker: nil))
            }
        } else {
            redoStack.removeAll()
            if let inverse {
                pushUndo(
                    UndoStep(
                        seq: logged.seq, kind: entry.event.kind, inverse: StepEvent(inverse),
                        action: action(), blocker: nil))
            } else if let blocker = Self.blocker(of: entry.event) {
                let shared = action()
                pushUndo(
                    UndoStep(
                        seq: logged.seq, kind: entry.event.kind, inverse: shared, action: shared,
                        blocker: blocker))
            }
        }
    }

    /// Why a user action can never be undone, for the actions that destroy what undo would need.
    static func blocker(of event: Event) -> String? {
        switch event {
        case .trashPurged: return "purged tasks are gone for good, with their files"
        case .tasksErased:
            return "the tasks were deleted at once, without the to-delete list: nothing was kept"
        case .tasksRedownloaded: return "a redownload threw the downloaded data away"
        case .filesDeleted: return "deleted files cannot be brought back"
        default: return nil
        }
    }

    private mutating func pushUndo(_ step: UndoStep) {
        undoStack.append(step)
        // Trimmed in batches: dropping one step per action would move the whole stack every time.
        if undoStack.count > Self.undoDepth + Self.undoSlack {
            undoStack.removeFirst(undoStack.count - Self.undoDepth)
        }
    }

    mutating func reduce(_ event: Event, time: Int64) {
        switch event {
        case .ledgerCreated(let directory, let max, let autoRemove):
            self.directory = directory
            self[.maxDownloads] = .number(Int64(max))
            autoRemoveEmptySections = autoRemove
        case .tasksAdded(let new, let section, let index, let title):
            addTasks(new, section: section, index: index, newSectionTitle: title, time: time)
        case .groupsAdded(let groups):
            for g in groups {
                addTasks(
                    g.tasks, section: g.section, index: g.index, newSectionTitle: g.newSectionTitle,
                    time: time)
            }
        case .tasksRemoved(let ids, let sections):
            removeTasks(ids, sections: sections)
        case .tasksMoved(let ids, let section, let index):
            moveTasks(ids, section: section, index: index)
        case .tasksPlaced(let placements, let recreating):
            recreate(recreating, titles: placements.map { ($0.section, $0.sectionTitle) })
            place(placements)
        case .sectionInserted, .sectionRenamed, .sectionMoved, .sectionRemoved, .sectionSorted:
            reduceSection(event)
        case .tasksDeleted, .filesDeleted, .tasksRedownloaded, .tasksRestored, .tasksTrashed, .trashPurged,
            .tasksErased:
            reduceDeletion(event, time: time)
        case .taskRenamed(let id, let name, let fileName, let userChosen):
            tasks[id]?.displayName = name
            tasks[id]?.nameIsUserChosen = userChosen
            if let fileName { tasks[id]?.fileName = fileName }
        case .tasksPaused(let ids):
            setStates(ids, to: .paused)
        case .tasksStopped(let ids):
            setStates(ids, to: .stopped)
        case .tasksResumed(let ids):
            for id in ids where tasks[id].map({ [.paused, .stopped, .failed].contains($0.state) }) == true {
                // The failure stays until the next attempt starts, so undoing the resume shows it again.
                tasks[id]?.state = .waiting
            }
        case .statesRestored(let ids, let states):
            // A task that finished since keeps its file: putting back "paused" would hide it.
            for (id, state) in zip(ids, states) where tasks[id].map({ $0.state != .finished }) == true {
                tasks[id]!.state = state
            }
        case .settingChanged(let setting, let value):
            self[setting] = value
        case .directoryChanged(let path):
            directory = path
        case .hostSettingChanged(let host, let setting, let value):
            hostSettings[host, default: [:]][setting] = value
            if hostSettings[host]?.isEmpty == true { hostSettings[host] = nil }
        case .taskOptionsChanged(let id, let options):
            tasks.update(id) { $0.options = options }
        case .sortChanged(let mode, let descending):
            sortMode = mode
            sortDescending = descending
        case .emptySectionsPolicyChanged(let autoRemove):
            autoRemoveEmptySections = autoRemove
        case .trashPolicyChanged(let enabled):
            trashEnabled = enabled
        case .hookChanged(let hook, let command):
            hooks[hook] = command
        case .transferStarted, .transferResolved, .transferPaused, .transferCompleted, .transferFailed,
            .transferRetrying, .transferHeld, .transferContinued, .transferClaimed:
            reduceTransfer(event, time: time)
        case .transferConnections, .hookFinished:
            // The log's account of how the bytes came, or of what a hook did; the list holds nothing of it.
            return
        }
    }

    private mutating func reduceSection(_ event: Event) {
        switch event {
        case .sectionInserted(let index, let title):
            sections.insert(Section(title: title), at: clamp(index, sections.count))
        case .sectionRenamed(let index, let title):
            if sections.indices.contains(index) { sections[index].title = title }
        case .sectionMoved(let from, let to):
            guard sections.indices.contains(from) else { return }
            let moved = sections.remove(at: from)
            sections.insert(moved, at: clamp(to, sections.count))
        case .sectionRemoved(let index):
            if sections.indices.contains(index), sections[index].tasks.isEmpty { sections.remove(at: index) }
        case .sectionSorted(let index, let order):
            guard sections.indices.contains(index) else { return }
            let current = sections[index].tasks
            let members = Set(current)
            var seen: Set<TaskID> = []
            var sorted = order.filter { members.contains($0) && seen.insert($0).inserted }
            sorted += current.filter { !seen.contains($0) }
            sections[index].tasks = SectionTasks(sorted)
        default:
            return
        }
    }

    private mutating func reduceDeletion(_ event: Event, time: Int64) {
        switch event {
        case .tasksDeleted(let ids, let modes):
            deleteTasks(ids, modes: modes, time: time)
        case .filesDeleted(let ids, _), .tasksRedownloaded(let ids, _):
            for id in ids { tasks[id]?.resetTransfer() }
        case .tasksRestored(let ids, let to, let recreating):
            if to == nil {
                let wanted = Set(ids)
                recreate(
                    recreating,
                    titles: trash.filter { wanted.contains($0.id) }.map { ($0.section, $0.sectionTitle) })
            }
            restore(ids, to: to)
        case .tasksTrashed(let entries, let positions, let created):
            putBack(entries, positions: positions, removingSections: created)
        case .trashPurged(let ids, _):
            purge(Set(ids.filter(isTrashed)))
        case .tasksErased(let ids, _, _):
            let live = Set(ids.filter { tasks.contains($0) && !isTrashed($0) })
            removeEmptied(detach(live))
            purge(live)
        default:
            return
        }
    }

    private func clamp(_ value: Int, _ upper: Int) -> Int { Swift.max(0, Swift.min(value, upper)) }

    private mutating func setStates(_ ids: [TaskID], to state: TaskState) {
        for id in ids where tasks[id].map({ $0.state != .finished }) == true { tasks[id]!.state = state }
    }

    /// Adds the tasks whose id is new; returns their ids. A logged add is a fact: its URLs were checked for
    /// duplicates when it was decided (`decide`), so folding it needs no index of every task's URL.
    @discardableResult
    private mutating func addTasks(
        _ new: [NewTask], section: Int, index: Int, newSectionTitle: String?, time: Int64
    ) -> [TaskID] {
        var s = clamp(section, sections.count)
        if let newSectionTitle {
            sections.insert(Section(title: newSectionTitle), at: s)
        } else if sections.isEmpty {
            sections.append(Section(title: "Downloads"))
            s = 0
        } else if s == sections.count {
            s -= 1
        }
        var fresh: [TaskID] = []
        fresh.reserveCapacity(new.count)
        tasks.reserve(adding: new.count)
        let indexing = urls.prepareToChange()
        var indexed: [(id: TaskID, url: String)] = []
        for t in new where !tasks.contains(t.id) {
            var task = DownloadTask(
                id: t.id, url: t.url, displayName: t.name ?? DownloadList.defaultName(forURL: t.url),
                nameIsUserChosen: t.name != nil, directory: t.directory, expectedSHA256: t.sha256,
                added: time)
            if !t.options.isEmpty { task.options = t.options }
            tasks.insert(task)
            fresh.append(t.id)
            if indexing { indexed.append((t.id, t.url)) }
            nextID = Swift.max(nextID, t.id + 1)
        }
        if indexing { urls.add(indexed) }
        let at = clamp(index, sections[s].tasks.count)
        if at == sections[s].tasks.count {
            sections[s].tasks.append(contentsOf: fresh)
        } else {
            sections[s].tasks.insert(contentsOf: fresh, at: at)
        }
        return fresh
    }

    private mutating func removeTasks(_ ids: [TaskID], sections created: [Int]) {
        let gone = Set(ids.filter { tasks.contains($0) && !isTrashed($0) })
        _ = detach(gone)
        for id in gone {
            urls.remove(tasks[id]!.url, id)
            tasks[id] = nil
        }
        for s in created.sorted(by: >) where sections.indices.contains(s) && sections[s].tasks.isEmpty {
            sections.remove(at: s)
        }
    }

    /// Removes live tasks from their sections; returns the indexes of sections they emptied.
    /// A few ids (a move of one task, a pause of a selection) are each searched for, not hashed against every
    /// task: hashing each of 100,000 tasks was most of the cost of folding a move. A section is changed (copied
    /// from a snapshot's) only when it holds one of them, and the search stops once all are found.
    private mutating func detach(_ ids: Set<TaskID>) -> Set<Int> {
        var emptied: Set<Int> = []
        guard !ids.isEmpty else { return emptied }
        let few = ids.count <= 16 ? Array(ids) : nil
        var left = ids.count
        for s in sections.indices where left > 0 {
            let found: Int
            if let few {
                var removed = 0
                for id in few {
                    // The search for a second of the same id (a damaged log's) goes on from where it found one.
                    var from = 0
                    while let i = sections[s].tasks.firstIndex(of: id, from: from) {
                        sections[s].tasks.remove(at: i)
                        removed += 1
                        from = i
                    }
                }
                found = removed
            } else {
                let before = sections[s].tasks.count
                sections[s].tasks.removeAll { ids.contains($0) }
                found = before - sections[s].tasks.count
            }
            left -= found
            if found > 0, sections[s].tasks.isEmpty { emptied.insert(s) }
        }
        return emptied
    }

    private mutating func removeEmptied(_ emptied: Set<Int>) {
        guard autoRemoveEmptySections else { return }
        for s in emptied.sorted(by: >) where sections.indices.contains(s) && sections[s].tasks.isEmpty {
            sections.remove(at: s)
        }
    }

    private mutating func moveTasks(_ ids: [TaskID], section: Int, index: Int) {
        let live = ids.filter { tasks.contains($0) && !isTrashed($0) }
        guard !sections.isEmpty else { return }
        var emptied = detach(Set(live))
        let s = clamp(section, sections.count - 1)
        sections[s].tasks.insert(contentsOf: live, at: clamp(index, sections[s].tasks.count))
        emptied.remove(s)
        removeEmptied(emptied)
    }

    /// Inserts empty sections at `indexes` (ascending), each titled as the first of `titles` that names its index;
    /// an index nothing names is skipped. Undo uses it to bring back exactly the sections an action removed.
    private mutating func recreate(_ indexes: [Int], titles: [(section: Int, title: String)]) {
        guard !indexes.isEmpty else { return }
        for index in indexes.sorted() {
            guard let title = titles.first(where: { $0.section == index })?.title else { continue }
            sections.insert(Section(title: title), at: clamp(index, sections.count))
        }
    }

    /// The section for a remembered (index, title): the same index if the title still matches, else the first
    /// section with that title, else a new section with that title at the remembered index.
    private mutating func sectionIndex(title: String, near index: Int) -> Int {
        if sections.indices.contains(index), sections[index].title == title { return index }
        if let i = sections.firstIndex(where: { $0.title == title }) { return i }
        let at = clamp(index, sections.count)
        sections.insert(Section(title: title), at: at)
        return at
    }

    private mutating func place(_ placements: [Placement]) {
        let ids = placements.map(\.id).filter { tasks.contains($0) && !isTrashed($0) }
        _ = detach(Set(ids))
        let ordered = placements.filter { ids.contains($0.id) }.sorted {
            ($0.section, $0.index) < ($1.section, $1.index)
        }
        for p in ordered {
            let s = sectionIndex(title: p.sectionTitle, near: p.section)
            sections[s].tasks.insert(p.id, at: clamp(p.index, sections[s].tasks.count))
        }
    }

    private mutating func deleteTasks(_ ids: [TaskID], modes: [DeleteMode], time: Int64) {
        var entries: [TrashEntry] = []
        let found = locations(of: Set(ids))
        for (n, id) in ids.enumerated() {
            guard let (s, i) = found[id] else { continue }
            let mode = modes.count == 1 ? modes[0] : modes[n]
            entries.append(
                TrashEntry(
                    id: id, mode: mode, sectionTitle: sections[s].title, section: s, index: i, deleted: time,
                    state: tasks[id]!.state))
            if tasks[id]!.state == .downloading { tasks[id]!.state = .waiting }
        }
        let emptied = detach(Set(entries.map(\.id)))
        trash.insert(contentsOf: entries, at: 0)
        trashed.formUnion(entries.map(\.id))
        removeEmptied(emptied)
    }

    private mutating func restore(_ ids: [TaskID], to: Location?) {
        let wanted = Set(ids)
        let entries = trash.filter { wanted.contains($0.id) }
        trash.removeAll { wanted.contains($0.id) }
        trashed.subtract(entries.map(\.id))
        if let to {
            if sections.isEmpty { sections.append(Section(title: "Downloads")) }
            let s = clamp(to.section, sections.count - 1)
            let byID = Dictionary(uniqueKeysWithValues: entries.map { ($0.id, $0) })
            let restored = ids.filter { byID[$0] != nil }
            sections[s].tasks.insert(
                contentsOf: restored, at: clamp(to.index ?? .max, sections[s].tasks.count))
        } else {
            for e in entries.sorted(by: { ($0.section, $0.index) < ($1.section, $1.index) }) {
                let s = sectionIndex(title: e.sectionTitle, near: e.section)
                sections[s].tasks.insert(e.id, at: clamp(e.index, sections[s].tasks.count))
            }
        }
    }

    private mutating func putBack(_ entries: [TrashEntry], positions: [Int], removingSections created: [Int])
    {
        let wanted = Set(entries.map(\.id).filter { tasks.contains($0) && !isTrashed($0) })
        _ = detach(wanted)
        for (n, e) in entries.enumerated() where wanted.contains(e.id) {
            trash.insert(e, at: clamp(n < positions.count ? positions[n] : trash.count, trash.count))
            if tasks[e.id]!.state == .downloading { tasks[e.id]!.state = .waiting }
        }
        trashed.formUnion(wanted)
        for s in created.sorted(by: >) where sections.indices.contains(s) && sections[s].tasks.isEmpty {
            sections.remove(at: s)
        }
    }

    /// Forgets the tasks (in the to-delete list or just taken out of the list) and every undo step naming them.
    private mutating func purge(_ wanted: Set<TaskID>) {
        guard !wanted.isEmpty else { return }
        trash.removeAll { wanted.contains($0.id) }
        trashed.subtract(wanted)
        for id in wanted {
            if let url = tasks[id]?.url { urls.remove(url, id) }
            tasks[id] = nil
        }
        // A purge is permanent: steps that would bring a purged task back can never be taken, and would block
        // undo from reaching the actions before them.
        let touches: (UndoStep) -> Bool = { step in
            !wanted.isDisjoint(with: step.tasksNamed)
        }
        undoStack.removeAll(where: touches)
        redoStack.removeAll(where: touches)
    }

    /// Mutates a task in place (no copy out and back): facts are most of a long log.
    private mutating func update(_ id: TaskID, _ body: (inout DownloadTask) -> Void) {
        tasks.update(id, body)
    }

    private mutating func reduceTransfer(_ event: Event, time: Int64) {
        // Any fact but a hold says the connection of a pause is no longer kept.
        if case .transferHeld(let id, let bytes) = event {
            update(id) { t in
                t.bytes = bytes
                t.connectionKept = true
            }
            return
        }
        if case .transferClaimed(let id, let host, let leaseMs, _) = event {
            claim(id, host: host, until: time + leaseMs)
            return
        }
        if let id = event.taskIDs.first { update(id) { $0.connectionKept = false } }
        switch event {
        case .transferContinued(let id):
            update(id) { t in
                if t.state == .waiting || t.state == .paused { t.state = .downloading }
            }
        case .transferStarted(let id, let attempt, let offset):
            update(id) { t in
                if t.state == .waiting || t.state == .failed || t.state == .downloading {
                    t.state = .downloading
                }
                t.attempts = attempt
                t.bytes = offset
                t.failure = nil
            }
        case .transferResolved(let id, let size, let serverName, let validator, _, let restarted):
            update(id) { t in
                t.size = size
                t.validator = validator
                if restarted != nil { t.bytes = 0 }
                if !t.nameIsUserChosen, let serverName { t.displayName = serverName }
            }
        case .transferPaused(let id, let bytes):
            update(id) { t in
                t.bytes = bytes
                if t.state == .downloading { t.state = .waiting }
                t.leaseUntil = nil
            }
        case .transferCompleted(let id, let bytes, let sha256, let fileName, _, let host, let directory):
            update(id) { t in
                if let host { t.host = host }
                if let directory { t.directory = directory }
                t.leaseUntil = nil
                t.state = .finished
                t.bytes = bytes
                t.size = bytes
                t.sha256 = sha256
                t.fileName = fileName
                t.finished = time
                t.failure = nil
                if !t.nameIsUserChosen { t.displayName = fileName }
            }
        case .transferFailed(let id, let failure, let bytes):
            update(id) { t in
                t.leaseUntil = nil
                t.state = .failed
                t.failure = failure
                t.bytes = bytes
            }
        case .transferRetrying(let id, let failure, let bytes, _):
            // Still downloading: the failure says why until the next attempt starts (and clears it).
            update(id) { t in
                t.failure = failure
                t.bytes = bytes
            }
        default:
            return
        }
    }

    /// A claim of `id` by `host` until `until`. A host that takes over another's task takes none of its data (the
    /// partial file is on the other host): the transfer starts from zero, and a transfer the other host still runs
    /// sees `resets` change and stops without a fact.
    private mutating func claim(_ id: TaskID, host: String, until: Int64) {
        update(id) { t in
            if let previous = t.host, previous != host, t.state != .finished,
                t.bytes > 0 || t.validator != nil || t.connectionKept
            {
                t.resets += 1
                t.bytes = 0
                t.validator = nil
                t.connectionKept = false
            }
            t.host = host
            t.leaseUntil = until
        }
    }

    /// The name shown before the server says better: the URL's last path component, else its host.
    public static func defaultName(forURL url: String) -> String {
        // Bytes in place, not Characters: this runs for every added task during replay.
        var url = url
        return url.withUTF8 { defaultName(utf8: $0) }
    }

    private static func defaultName(utf8 bytes: UnsafeBufferPointer<UInt8>) -> String {
        var end = bytes.firstIndex { $0 == UInt8(ascii: "?") || $0 == UInt8(ascii: "#") } ?? bytes.count
        var start = 0
        if let colon = bytes[..<end].firstIndex(of: UInt8(ascii: ":")), colon + 3 <= end,
            bytes[colon + 1] == UInt8(ascii: "/"), bytes[colon + 2] == UInt8(ascii: "/")
        {
            start = colon + 3
        }
        while end > start, bytes[end - 1] == UInt8(ascii: "/") { end -= 1 }
        let hostEnd = bytes[start..<end].firstIndex(of: UInt8(ascii: "/")) ?? end
        var componentStart = end
        while componentStart > start, bytes[componentStart - 1] != UInt8(ascii: "/") { componentStart -= 1 }
        // A URL with no path names its host.
        let component = UnsafeBufferPointer(
            rebasing: hostEnd == end ? bytes[start..<end] : bytes[componentStart..<end])
        guard !component.isEmpty else { return "download" }
        guard component.contains(UInt8(ascii: "%")) else { return String(decoding: component, as: UTF8.self) }
        let decoded = percentDecoded(component)
        return decoded.isEmpty ? "download" : decoded
    }

    private static func percentDecoded(_ bytes: UnsafeBufferPointer<UInt8>) -> String {
        func hex(_ b: UInt8) -> UInt8? {
            switch b {
            case UInt8(ascii: "0")...UInt8(ascii: "9"): return b - UInt8(ascii: "0")
            case UInt8(ascii: "a")...UInt8(ascii: "f"): return b - UInt8(ascii: "a") + 10
            case UInt8(ascii: "A")...UInt8(ascii: "F"): return b - UInt8(ascii: "A") + 10
            default: return nil
            }
        }
        var out: [UInt8] = []
        out.reserveCapacity(bytes.count)
        var i = 0
        while i < bytes.count {
            if bytes[i] == UInt8(ascii: "%"), i + 2 < bytes.count, let hi = hex(bytes[i + 1]),
                let lo = hex(bytes[i + 2])
            {
                out.append(hi << 4 | lo)
                i += 3
            } else {
                out.append(bytes[i])
                i += 1
            }
        }
        return String(decoding: out, as: UTF8.self)
    }
}
