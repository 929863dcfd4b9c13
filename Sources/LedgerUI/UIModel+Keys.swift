import LedgerCore

extension UIModel {
    /// Handles one key: moves the cursor, opens or closes an overlay, or returns the effects to perform (at most
    /// one command: one key, one event).
    public mutating func handle(_ key: Key) -> [Effect] {
        if key == .ctrl("c") { return [.quit] }
        message = nil
        switch overlay {
        case .none: break
        case .prompt(var prompt):
            if key == .escape {
                overlay = .none
                return []
            }
            if key == .enter { return submit(prompt) }
            if prompt.edit(key) { overlay = .prompt(prompt) }
            return []
        case .deleteMenu(let ids):
            overlay = .none
            let modes: [Character: DeleteMode] = [
                "1": .all, "m": .all, "2": .record, "k": .record, "3": .file, "f": .file,
            ]
            if case .char(let c) = key, let mode = modes[c] {
                return [.execute(.delete(.tasks(ids), mode: mode))]
            }
            return []
        case .confirm(_, let command):
            overlay = .none
            return key == .char("y") || key == .char("Y") ? [.execute(command)] : []
        case .sectionPicker(let ids, let at):
            return pickSection(key, ids: ids, at: at)
        case .help(let scroll):
            switch key {
            case .escape, .char("?"), .char("q"), .enter: overlay = .none
            default:
                overlay = .help(
                    scroll: scrolled(
                        scroll, key, total: KeyHelp.lines(width: size.columns).count, page: listHeight - 2))
            }
            return []
        case .audit(let id, let lines, let scroll):
            switch key {
            case .escape, .char("i"), .char("q"), .enter: overlay = .none
            default:
                let total = paneText(size.columns).count
                overlay = .audit(
                    id, lines: lines, scroll: scrolled(scroll, key, total: total, page: paneRows - 1))
            }
            return []
        case .details(let id, let scroll, let file):
            switch key {
            case .escape, .char("I"), .char("q"), .enter: overlay = .none
            default:
                let total = paneText(size.columns).count
                overlay = .details(
                    id, scroll: scrolled(scroll, key, total: total, page: paneRows - 1), file: file)
            }
            return []
        }
        if moveCursor(key) { return [] }
        if pendingAll {
            pendingAll = false
            return allKey(key)
        }
        if let effects = searchKey(key) { return effects }
        if history != nil { return historyKey(key) }
        return listKey(key)
    }

    /// A pane's scroll after `key`, for `total` lines of which `page` are shown.
    private func scrolled(_ scroll: Int, _ key: Key, total: Int, page: Int) -> Int {
        let page = max(1, page)
        var s = scroll
        switch key {
        case .up, .char("k"): s -= 1
        case .down, .char("j"): s += 1
        case .pageUp: s -= page
        case .pageDown, .char(" "): s += page
        case .home, .char("g"): s = 0
        case .end, .char("G"): s = total
        default: break
        }
        return max(0, min(s, max(0, total - page)))
    }

    /// Cursor keys. Returns false for any other key.
    private mutating func moveCursor(_ key: Key) -> Bool {
        let page = max(1, listHeight - 1)
        switch key {
        case .up, .char("k"): cursor -= 1
        case .down, .char("j"): cursor += 1
        case .pageUp: cursor -= page
        case .pageDown: cursor += page
        case .home, .char("g"): cursor = 0
        case .end, .char("G"): cursor = rows.count - 1
        default: return false
        }
        clampCursor()
        return true
    }

    private mutating func historyKey(_ key: Key) -> [Effect] {
        switch key {
        case .left, .char(","): return [.historyStep(events: -1)]
        case .right, .char("."): return [.historyStep(events: 1)]
        case .char("["): return [.historyMinutes(-1)]
        case .char("]"): return [.historyMinutes(1)]
        case .char(":"):
            overlay = .prompt(Prompt(.historyJump, label: "Show the list after seq, or at time:"))
            return []
        case .escape, .char("h"), .char("n"):
            showHistory(nil)
            return []
        case .char("i"): return auditEffect()
        case .char("I"): return detailsEffect()
        case .char("?"):
            overlay = .help(scroll: 0)
            return []
        case .char("q"): return [.quit]
        default:
            report("the history is read-only: Esc goes back to now", isError: true)
            return []
        }
    }

    private mutating func listKey(_ key: Key) -> [Effect] {
        let trashView = filter == .trash
        switch key {
        case .char(" "), .char("v"):
            if case .task(let id, _)? = rows.row(cursor, in: list) {
                if selection.contains(id) { selection.remove(id) } else { selection.insert(id) }
                cursor += 1
                clampCursor()
            }
            return []
        case .char("*"):
            let all = allShownTasks()
            selection = selection.count == all.count && !all.isEmpty ? [] : Set(all)
            return []
        case .escape:
            selection = []
            return []
        case .char("A"):
            pendingAll = true
            report(
                trashView
                    ? "all: r restores, d purges the to-delete list"
                    : "all: p pause, r resume, x stop, d delete")
            return []
        case .char("q"): return [.quit]
        case .char("?"):
            overlay = .help(scroll: 0)
            return []
        case .char("h"): return [.historyAt(nil)]
        case .char("i"): return auditEffect()
        case .char("I"): return detailsEffect()
        case .char("u"): return [.execute(.undo)]
        case .ctrl("r"): return [.execute(.redo)]
        case .char("U"):
            showsURLs.toggle()
            report(showsURLs ? "the rows show the URLs (U: the names again)" : "the rows show the names")
        case .char("S"):
            return [.execute(.setAutoRemoveEmptySections(!list.autoRemoveEmptySections))]
        case .char("t"): setFilter(trashView ? .all : .trash)
        case .char("f"): setFilter(nextFilter())
        case .char("s"): toggleSubsection()
        case .char("o"):
            let modes = SortMode.allCases
            let next = modes[((modes.firstIndex(of: list.sortMode) ?? 0) + 1) % modes.count]
            return [.execute(.sort(next, descending: next == .manual ? false : list.sortDescending))]
        case .char("O"):
            guard list.sortMode != .manual else {
                report("the manual order has no direction: press o to sort", isError: true)
                return []
            }
            return [.execute(.sort(list.sortMode, descending: !list.sortDescending))]
        case .char("l"):
            overlay = .prompt(
                Prompt(.maxDownloads, label: "Download at most (0 = no limit):", text: "\(list.maxDownloads)")
            )
        case .char("L"):
            overlay = .prompt(Prompt(.speedLimit, label: "Speed limit (e.g. 500K, 2M; 0 = none):"))
        default:
            return trashView ? trashKey(key) : taskKey(key)
        }
        return []
    }

    private mutating func trashKey(_ key: Key) -> [Effect] {
        switch key {
        case .char("r"), .enter:
            let ids = targets()
            return ids.isEmpty ? noTarget() : [.execute(.restore(ids, to: nil))]
        case .char("d"):
            let ids = targets()
            guard !ids.isEmpty else { return noTarget() }
            let what = ids.count == 1 ? "#\(ids[0])" : "\(ids.count) tasks"
            overlay = .confirm("Purge \(what) for good (files too)? y/n", .purge(ids))
            return []
        default:
            report("not in the to-delete list: t goes back to the list (? shows every key)", isError: true)
            return []
        }
    }

    private mutating func allKey(_ key: Key) -> [Effect] {
        message = nil
        if filter == .trash {
            switch key {
            case .char("r"): return [.execute(.restore(nil, to: nil))]
            case .char("d"):
                overlay = .confirm("Purge the whole to-delete list for good (files too)? y/n", .purge(nil))
                return []
            default: return []
            }
        }
        if history != nil { return historyKey(key) }
        switch key {
        case .char("p"): return [.execute(.pause(.all))]
        case .char("r"): return [.execute(.resume(.all))]
        case .char("x"): return [.execute(.stop(.all))]
        case .char("d"):
            let ids = list.orderedTasks.map(\.id)
            guard !ids.isEmpty else { return noTarget() }
            overlay = .deleteMenu(ids)
            return []
        default: return []
        }
    }

    /// SDE's `.subsection`: the cursor's group of the view alone, or the whole view again.
    private mutating func toggleSubsection() {
        if subsection != nil {
            subsection = nil
        } else {
            guard filter != .trash else {
                report("the to-delete list is one list: s shows one section of the list", isError: true)
                return
            }
            guard rows.count > 0 else { return }
            subsection = rows.group(containing: cursor)
        }
        selection = []
        cursor = 0
        reindex()
    }

    private mutating func setFilter(_ new: TaskFilter) {
        filter = new
        subsection = nil
        selection = []
        cursor = 0
        reindex()
    }

    private func nextFilter() -> TaskFilter {
        switch filter {
        case .all: return .unfinished
        case .unfinished: return .finished
        case .finished: return .finishedWithin(days: 7)
        case .finishedWithin, .trash: return .all
        }
    }

    /// Every task the view shows, in view order.
    func allShownTasks() -> [TaskID] {
        (0..<rows.groupCount).flatMap { rows.tasks(ofGroup: $0, in: shownList) }
    }

    /// The task under the cursor.
    var cursorTaskID: TaskID? {
        if case .task(let id, _)? = rows.row(cursor, in: shownList) { return id }
        return nil
    }

    /// What a command acts on: the selection in list order, else the task under the cursor.
    func targets() -> [TaskID] {
        guard !selection.isEmpty else { return cursorTaskID.map { [$0] } ?? [] }
        if filter == .trash { return list.trash.map(\.id).filter(selection.contains) }
        let places = list.locations(of: selection)
        return places.keys.sorted {
            let a = places[$0]!
            let b = places[$1]!
            return (a.section, a.index) < (b.section, b.index)
        }
    }

    /// Says there is nothing to act on.
    mutating func noTarget() -> [Effect] {
        report("no task here: move the cursor to a task, or select some with space", isError: true)
        return []
    }

    /// The manual section under the cursor (its header or one of its tasks).
    var cursorSection: Int? {
        guard rows.count > 0 else { return nil }
        return rows.section(ofGroup: rows.group(containing: cursor))
    }

    private mutating func detailsEffect() -> [Effect] {
        guard let id = cursorTaskID else {
            report("no task here: the details are a task's", isError: true)
            return []
        }
        return [.details(id)]
    }

    private mutating func auditEffect() -> [Effect] {
        guard let id = cursorTaskID else {
            report("no task here: the audit trail is a task's", isError: true)
            return []
        }
        return [.audit(id)]
    }
}
