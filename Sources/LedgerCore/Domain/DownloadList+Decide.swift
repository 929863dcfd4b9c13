extension DownloadList {
    /// Validates a command against this state and decides the one entry that records it.
    /// - Throws: `LedgerError` (or `NothingAdded`) when the command is invalid; nothing is to be appended then.
    /// - Complexity: O(tasks the command names), plus one pass over the list for moves and deletes.
    public func decide(_ command: Command) throws -> Decision {
        switch command {
        case .add(let urls, let placement, let name, let sha256, let directory, let options):
            return try decideAdd(
                urls, placement, name: name, sha256: sha256, directory: directory,
                options: options.validated())
        case .addGroups(let groups, let directory, let options):
            return try decideGroups(groups, directory: directory, options: options.validated())
        case .setOptions(let id, let raw):
            return try decideOptions(id, raw)
        case .move, .insertSection, .renameSection, .moveSection, .removeSection, .sortSection:
            return try decideLayout(command)
        case .delete, .erase, .restore, .purge, .redownload:
            return try decideDeletion(command)
        case .rename(let id, let raw):
            let name = try Validation.name(raw)
            guard let t = tasks[id] else { throw LedgerError.noSuchTask(id) }
            if isTrashed(id) { throw LedgerError.taskInTrash(id) }
            guard t.displayName != name || (t.fileName != nil && t.fileName != name) else {
                throw LedgerError.nothingToDo("task #\(id) is already named '\(name)'")
            }
            let file = t.state == .finished && t.fileName != nil ? name : nil
            return Decision(entry: Entry(.taskRenamed(id: id, name: name, fileName: file)))
        case .pause(let selection):
            return try decideState(selection, verb: "pause", from: [.waiting, .downloading]) {
                .tasksPaused(ids: $0)
            }
        case .stop(let selection):
            return try decideState(selection, verb: "stop", from: [.waiting, .downloading, .paused]) {
                .tasksStopped(ids: $0)
            }
        case .resume(let selection):
            return try decideState(selection, verb: "resume", from: [.paused, .stopped, .failed]) {
                .tasksResumed(ids: $0)
            }
        case .set(let setting, let raw):
            let value = try setting.spec.checked(raw)
            guard value != self[setting] else { throw LedgerError.nothingToDo(setting.spec.already(value)) }
            return Decision(entry: Entry(.settingChanged(setting, value)))
        case .setForHost(let host, let setting, let raw):
            return try decideHostSetting(host, setting, raw)
        case .setDirectory, .sort, .setAutoRemoveEmptySections, .setTrash, .setHook:
            return try decidePreference(command)
        case .undo:
            return try decideUndo()
        case .undoPast:
            return try decideUndoPast()
        case .redo:
            guard let step = redoStack.last else { throw LedgerError.nothingToRedo }
            try check(step)
            var d = Decision(entry: Entry(step.inverse, redoes: step.seq))
            d.target = (step.seq, step.kind)
            return d
        }
    }

    private func decideOptions(_ id: TaskID, _ raw: TaskOptions) throws -> Decision {
        let options = try raw.validated()
        guard let t = tasks[id] else { throw LedgerError.noSuchTask(id) }
        if isTrashed(id) { throw LedgerError.taskInTrash(id) }
        try checkMirrors(options, url: t.url)
        guard t.options != options else {
            throw LedgerError.nothingToDo("task #\(id) already has these options")
        }
        return Decision(entry: Entry(.taskOptionsChanged(id: id, options: options)))
    }

    /// A move of tasks, or a change of the sections.
    private func decideLayout(_ command: Command) throws -> Decision {
        switch command {
        case .move(let ids, let to):
            try requireManual()
            let live = try liveTasks(ids)
            let s = try sectionIndex(to.section)
            let remaining = sections[s].tasks.filter { !live.contains($0) }.count
            let index = to.index ?? remaining
            guard (0...remaining).contains(index) else {
                throw LedgerError.indexOutOfRange(index, section: s, count: remaining)
            }
            return Decision(entry: Entry(.tasksMoved(ids: unique(live), section: s, index: index)))
        case .insertSection(let title, let at):
            try requireManual()
            let title = try Validation.title(title)
            let index = at ?? sections.count
            guard (0...sections.count).contains(index) else {
                throw LedgerError.noSuchSection(index, count: sections.count + 1)
            }
            return Decision(entry: Entry(.sectionInserted(index: index, title: title)))
        case .renameSection(let index, let title):
            try requireManual()
            let title = try Validation.title(title)
            return Decision(entry: Entry(.sectionRenamed(index: try sectionIndex(index), title: title)))
        case .moveSection(let from, let to):
            try requireManual()
            let from = try sectionIndex(from)
            let to = try sectionIndex(to)
            guard from != to else { throw LedgerError.nothingToDo("section \(from) is already at \(to)") }
            return Decision(entry: Entry(.sectionMoved(from: from, to: to)))
        case .removeSection(let index):
            try requireManual()
            let s = try sectionIndex(index)
            guard sections[s].tasks.isEmpty else {
                throw LedgerError.sectionNotEmpty(s, tasks: sections[s].tasks.count)
            }
            return Decision(entry: Entry(.sectionRemoved(index: s)))
        case .sortSection(let index, let key, let descending):
            try requireManual()
            let s = try sectionIndex(index)
            let order = sorted(Array(sections[s].tasks), by: key, descending: descending)
            guard !order.elementsEqual(sections[s].tasks) else {
                throw LedgerError.nothingToDo("section \(s) is already in that order")
            }
            return Decision(entry: Entry(.sectionSorted(index: s, order: order)))
        default:
            preconditionFailure("not a layout command: \(command)")
        }
    }

    /// A delete, restore, purge or redownload.
    private func decideDeletion(_ command: Command) throws -> Decision {
        switch command {
        case .delete(let selection, let mode):
            let ids = try select(selection)
            guard !ids.isEmpty else { throw LedgerError.nothingToDo("nothing to delete") }
            if mode == .file { return Decision(entry: Entry(.filesDeleted(ids: ids))) }
            if !trashEnabled { return Decision(entry: Entry(.tasksErased(ids: ids, modes: [mode]))) }
            return Decision(entry: Entry(.tasksDeleted(ids: ids, modes: [mode])))
        case .erase(let selection, let mode):
            guard mode != .file else {
                throw LedgerError.invalidValue("deleting only the files never uses the to-delete list")
            }
            let ids = try select(selection)
            guard !ids.isEmpty else { throw LedgerError.nothingToDo("nothing to delete") }
            return Decision(entry: Entry(.tasksErased(ids: ids, modes: [mode])))
        case .restore(let ids, let to):
            let chosen = try trashed(ids)
            if let to {
                try requireManual()
                let s = try sectionIndex(to.section)
                if let i = to.index, !(0...sections[s].tasks.count).contains(i) {
                    throw LedgerError.indexOutOfRange(i, section: s, count: sections[s].tasks.count)
                }
            }
            return Decision(entry: Entry(.tasksRestored(ids: chosen, to: to)))
        case .purge(let ids):
            return Decision(entry: Entry(.trashPurged(ids: try trashed(ids))))
        case .redownload(let selection):
            let given = try select(selection)
            // A task that waits with nothing downloaded has nothing to throw away: redownloading it changes nothing.
            let reset = given.filter { id in tasks[id].map { !$0.isUntouched } ?? false }
            guard !reset.isEmpty else {
                if case .tasks = selection, given.count == 1 {
                    throw LedgerError.nothingToDo(
                        "task #\(given[0]) is waiting and has downloaded nothing: nothing to download again")
                }
                throw LedgerError.nothingToDo(
                    "none of these tasks has downloaded anything: nothing to download again")
            }
            return Decision(entry: Entry(.tasksRedownloaded(ids: reset)))
        default:
            preconditionFailure("not a deletion: \(command)")
        }
    }

    /// The folder, the sort, the switches and the hooks.
    private func decidePreference(_ command: Command) throws -> Decision {
        switch command {
        case .setDirectory(let path):
            guard Validation.isNormalDirectory(path) else {
                throw LedgerError.invalidValue(
                    "a download folder must be an absolute path without '.', '..' or empty parts: \(path)")
            }
            guard path != directory else {
                throw LedgerError.nothingToDo("downloads already go to \(path)")
            }
            return Decision(entry: Entry(.directoryChanged(path)))
        case .sort(let mode, let descending):
            guard mode != sortMode || descending != sortDescending else {
                throw LedgerError.nothingToDo("the list is already sorted that way")
            }
            return Decision(entry: Entry(.sortChanged(mode, descending: descending)))
        case .setAutoRemoveEmptySections(let on):
            guard on != autoRemoveEmptySections else {
                throw LedgerError.nothingToDo(
                    "automatic removal of empty sections is already \(on ? "on" : "off")")
            }
            return Decision(entry: Entry(.emptySectionsPolicyChanged(autoRemove: on)))
        case .setTrash(let on):
            guard on != trashEnabled else {
                throw LedgerError.nothingToDo("the to-delete list is already \(on ? "on" : "off")")
            }
            return Decision(entry: Entry(.trashPolicyChanged(enabled: on)))
        case .setHook(let hook, let command):
            if let command { try Hook.check(command: command) }
            guard command != hooks[hook] else {
                throw LedgerError.nothingToDo("\(hook.settingName) is already \(command ?? "none")")
            }
            return Decision(entry: Entry(.hookChanged(hook: hook, command: command)))
        default:
            preconditionFailure("not a preference: \(command)")
        }
    }

    private func decideUndo() throws -> Decision {
        guard let step = undoStack.last else { throw LedgerError.nothingToUndo }
        if let blocker = step.blocker {
            let older = undoStack.dropLast().contains { $0.blocker == nil }
            throw LedgerError.cannotUndo(
                seq: step.seq, kind: step.kind,
                reason: blocker
                    + (older ? " ('undo --past' undoes the newest action that can be undone)" : ""))
        }
        try check(step)
        var d = Decision(entry: Entry(step.inverse, undoes: step.seq))
        d.target = (step.seq, step.kind)
        return d
    }

    private func decideUndoPast() throws -> Decision {
        var passed: [(seq: Int64, kind: String, reason: String)] = []
        for step in undoStack.reversed() {
            if let blocker = step.blocker {
                passed.append((step.seq, step.kind, blocker))
                continue
            }
            do {
                try check(step)
            } catch LedgerError.cannotUndo(_, _, let reason) {
                passed.append((step.seq, step.kind, reason))
                continue
            }
            var d = Decision(entry: Entry(step.inverse, undoes: step.seq))
            d.target = (step.seq, step.kind)
            d.passed = passed
            return d
        }
        guard let newest = passed.first else { throw LedgerError.nothingToUndo }
        throw LedgerError.cannotUndo(
            seq: newest.seq, kind: newest.kind, reason: newest.reason + "; no older action can be undone")
    }

    private func requireManual() throws {
        if sortMode != .manual { throw LedgerError.needsManualSort(sortMode) }
    }

    /// Ids in the order `sortSection` puts them: by `key`, ties (and unknown sizes, unfinished tasks: last) by id.
    func sorted(_ ids: [TaskID], by key: SectionSortKey, descending: Bool) -> [TaskID] {
        let known = ids.compactMap { tasks[$0] }
        let ordered: [DownloadTask]
        switch key {
        case .name:
            ordered = known.map { (Self.shownName($0).lowercased(), $0) }.sorted {
                ($0.0, $0.1.id) < ($1.0, $1.1.id)
            }.map(\.1)
        case .size:
            ordered = known.sorted { ($0.size ?? .max, $0.id) < ($1.size ?? .max, $1.id) }
        case .added:
            ordered = known.sorted { ($0.added, $0.id) < ($1.added, $1.id) }
        case .finished:
            ordered = known.sorted { ($0.finished ?? .max, $0.id) < ($1.finished ?? .max, $1.id) }
        }
        return descending ? ordered.reversed().map(\.id) : ordered.map(\.id)
    }

    private func sectionIndex(_ index: Int) throws -> Int {
        guard sections.indices.contains(index) else {
            throw LedgerError.noSuchSection(index, count: sections.count)
        }
        return index
    }

    private func unique(_ ids: [TaskID]) -> [TaskID] {
        var seen: Set<TaskID> = []
        return ids.filter { seen.insert($0).inserted }
    }

    /// The ids, each a task in the list (not the to-delete list).
    private func liveTasks(_ ids: [TaskID]) throws -> [TaskID] {
        guard !ids.isEmpty else { throw LedgerError.nothingToDo("no task given") }
        for id in ids {
            guard tasks.contains(id) else { throw LedgerError.noSuchTask(id) }
            if isTrashed(id) { throw LedgerError.taskInTrash(id) }
        }
        return ids
    }

    private func trashed(_ ids: [TaskID]?) throws -> [TaskID] {
        guard let ids else {
            guard !trash.isEmpty else { throw LedgerError.nothingToDo("the to-delete list is empty") }
            return trash.map(\.id)
        }
        guard !ids.isEmpty else { throw LedgerError.nothingToDo("no task given") }
        for id in ids {
            guard tasks.contains(id) else { throw LedgerError.noSuchTask(id) }
            guard isTrashed(id) else { throw LedgerError.taskNotInTrash(id) }
        }
        return unique(ids)
    }

    private func select(_ selection: Selection) throws -> [TaskID] {
        switch selection {
        case .tasks(let ids): return unique(try liveTasks(ids))
        case .section(let s):
            try requireManual()
            return Array(sections[try sectionIndex(s)].tasks)
        case .all: return sections.flatMap(\.tasks)
        }
    }

    private func decideState(
        _ selection: Selection, verb: String, from states: Set<TaskState>, _ make: ([TaskID]) -> Event
    ) throws -> Decision {
        let ids = try select(selection).filter { states.contains(tasks[$0]!.state) }
        guard !ids.isEmpty else {
            if case .tasks(let given) = selection, given.count == 1, let t = tasks[given[0]] {
                throw LedgerError.nothingToDo("task #\(t.id) is \(t.state.rawValue): nothing to \(verb)")
            }
            throw LedgerError.nothingToDo("nothing to \(verb)")
        }
        return Decision(entry: Entry(make(ids)))
    }

    /// A task's mirrors must not name its own URL.
    private func checkMirrors(_ options: TaskOptions, url: String) throws {
        let own = Validation.identity(url)
        if let m = options.mirrors.first(where: { Validation.identity($0) == own }) {
            throw LedgerError.invalidValue("a mirror is the task's own URL: \(m)")
        }
    }

    private func decideAdd(
        _ urls: [String], _ placement: AddPlacement, name: String?, sha256: String?, directory: String?,
        options: TaskOptions
    ) throws -> Decision {
        guard !urls.isEmpty else { throw LedgerError.nothingToDo("no URL given") }
        let name = try name.map(Validation.name)
        let sha = try sha256.map(Validation.sha256)
        if let directory, !directory.hasPrefix("/") {
            throw LedgerError.invalidValue("download directory must be an absolute path: \(directory)")
        }
        if urls.count > 1, name != nil || sha != nil {
            throw LedgerError.invalidValue("--name and --sha256 apply to a single URL")
        }
        if urls.count > 1, !options.mirrors.isEmpty {
            throw LedgerError.invalidValue("mirrors apply to a single URL")
        }
        let (section, index, title) = try resolve(placement)
        var seen: Set<String> = []
        seen.reserveCapacity(urls.count)
        var next = nextID
        var new: [NewTask] = []
        new.reserveCapacity(urls.count)
        var skipped: [(url: String, reason: String)] = []
        for raw in urls {
            let url: String
            // A login in the URL (`user:password@`) is a credential: it leaves the URL for the task's options,
            // where the ledger seals it before the event is appended.
            var login: String?
            do { (url, login) = try Validation.splitUserinfo(try Validation.url(raw)) } catch let e
                as LedgerError
            {
                if case .invalidURL(_, let reason) = e {
                    skipped.append((Validation.redactingUserinfo(raw), "not a URL (\(reason))"))
                }
                continue
            }
            var taskOptions = options
            if let login {
                guard options.userinfo == nil else {
                    throw LedgerError.invalidValue("the URL's user information is given twice")
                }
                taskOptions.userinfo = .plain(login)
            }
            if let existing = task(withURL: url) {
                skipped.append(
                    (
                        url,
                        "duplicate of task #\(existing)\(isTrashed(existing) ? " (in the to-delete list)" : "")"
                    ))
                continue
            }
            guard seen.insert(Validation.identity(url)).inserted else {
                skipped.append((url, "given twice"))
                continue
            }
            if !options.mirrors.isEmpty { try checkMirrors(options, url: url) }
            new.append(
                NewTask(
                    id: next, url: url, name: name, sha256: sha, directory: directory ?? self.directory,
                    options: taskOptions))
            next += 1
        }
        guard !new.isEmpty else { throw NothingAdded(skipped: skipped) }
        var d = Decision(
            entry: Entry(.tasksAdded(tasks: new, section: section, index: index, newSectionTitle: title)))
        d.added = new.map(\.id)
        d.skipped = skipped
        return d
    }

    /// Each group decided against the list the groups before it leave; groups whose URLs are all skipped add no
    /// section. One event for all.
    private func decideGroups(_ groups: [AddGroup], directory: String?, options: TaskOptions) throws
        -> Decision
    {
        if !options.mirrors.isEmpty { throw LedgerError.invalidValue("mirrors apply to a single URL") }
        guard groups.count > 1 else {
            guard let g = groups.first else { throw LedgerError.nothingToDo("no URL given") }
            return try decideAdd(
                g.urls, g.placement, name: nil, sha256: nil, directory: directory, options: options)
        }
        var trial = self
        var added: [TaskGroup] = []
        var skipped: [(url: String, reason: String)] = []
        for g in groups where !g.urls.isEmpty {
            do {
                let d = try trial.decideAdd(
                    g.urls, g.placement, name: nil, sha256: nil, directory: directory, options: options)
                guard case .tasksAdded(let tasks, let section, let index, let title) = d.entry.event else {
                    continue
                }
                added.append(TaskGroup(tasks: tasks, section: section, index: index, newSectionTitle: title))
                skipped += d.skipped
                trial.reduce(d.entry.event, time: 0)
            } catch let e as NothingAdded {
                skipped += e.skipped
            }
        }
        guard !added.isEmpty else { throw NothingAdded(skipped: skipped) }
        var d = Decision(entry: Entry(.groupsAdded(added)))
        d.added = added.flatMap { $0.tasks.map(\.id) }
        d.skipped = skipped
        return d
    }

    /// Section, index and new-section title for an add.
    private func resolve(_ placement: AddPlacement) throws -> (Int, Int, String?) {
        switch placement {
        case .end:
            return sections.isEmpty ? (0, 0, "Downloads") : (0, sections[0].tasks.count, nil)
        case .section(let s, let index):
            try requireManual()
            let s = try sectionIndex(s)
            let count = sections[s].tasks.count
            let i = index ?? count
            guard (0...count).contains(i) else {
                throw LedgerError.indexOutOfRange(i, section: s, count: count)
            }
            return (s, i, nil)
        case .titled(let raw):
            let title = try Validation.title(raw)
            if let s = sections.firstIndex(where: { $0.title == title }) {
                return (s, sections[s].tasks.count, nil)
            }
            return (sections.count, 0, title)
        case .newSection(let raw, let at):
            try requireManual()
            let title = try Validation.title(raw)
            let s = at ?? sections.count
            guard (0...sections.count).contains(s) else {
                throw LedgerError.noSuchSection(s, count: sections.count + 1)
            }
            return (s, 0, title)
        }
    }

    /// An undo or redo step is still possible: everything it names is where it must be.
    private func check(_ step: UndoStep) throws {
        let fail = { (reason: String) in
            LedgerError.cannotUndo(seq: step.seq, kind: step.kind, reason: reason)
        }
        if let problem = step.problem { throw fail(problem) }
        switch step.inverse {
        case .tasksDeleted(let ids, _), .tasksRemoved(let ids, _):
            for id in ids where !tasks.contains(id) || isTrashed(id) {
                throw fail(
                    !tasks.contains(id)
                        ? "task #\(id) was purged" : "task #\(id) is already in the to-delete list")
            }
            // Forgetting an added task must not throw away what it downloaded.
            if case .tasksRemoved = step.inverse,
                let t = ids.compactMap({ tasks[$0] }).first(where: { $0.state == .finished || $0.bytes > 0 })
            {
                throw fail("task #\(t.id) already downloaded data: delete it instead ('rm \(t.id)')")
            }
        case .tasksRestored(let ids, _, _):
            for id in ids where !isTrashed(id) {
                throw fail(
                    !tasks.contains(id)
                        ? "task #\(id) was purged" : "task #\(id) is no longer in the to-delete list")
            }
        case .tasksTrashed(let entries, _, _):
            for e in entries where !tasks.contains(e.id) || isTrashed(e.id) {
                throw fail("task #\(e.id) is no longer in the list")
            }
        case .tasksPlaced(let ps, _):
            for p in ps where !tasks.contains(p.id) || isTrashed(p.id) {
                throw fail("task #\(p.id) is no longer in the list")
            }
        case .sectionRemoved(let i):
            guard sections.indices.contains(i) else { throw fail("section \(i) is gone") }
            guard sections[i].tasks.isEmpty else { throw fail("section \(i) is no longer empty") }
        case .sectionRenamed(let i, _), .sectionSorted(let i, _):
            guard sections.indices.contains(i) else { throw fail("section \(i) is gone") }
        case .sectionMoved(let from, let to):
            guard sections.indices.contains(from), sections.indices.contains(to) else {
                throw fail("the sections changed")
            }
        case .taskRenamed(let id, _, _, _), .taskOptionsChanged(let id, _):
            guard tasks.contains(id) else { throw fail("task #\(id) was purged") }
        case .statesRestored(let ids, _):
            for id in ids where !tasks.contains(id) { throw fail("task #\(id) was purged") }
        default:
            break
        }
    }
}
