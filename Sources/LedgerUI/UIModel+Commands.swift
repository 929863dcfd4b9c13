import LedgerCore

/// The keys that act on tasks and sections of the live list, and what prompts become.
extension UIModel {
    mutating func taskKey(_ key: Key) -> [Effect] {
        switch key {
        case .enter: return accessory()
        case .char("p"), .char("r"), .char("x"):
            let ids = targets()
            guard !ids.isEmpty else { return noTarget() }
            return [.execute(stateCommand(key, .tasks(ids)))]
        case .char("P"), .char("R"), .char("X"):
            guard let s = requireSection() else { return [] }
            return [.execute(stateCommand(key, .section(s)))]
        case .char("d"):
            let ids = targets()
            guard !ids.isEmpty else { return noTarget() }
            overlay = .deleteMenu(ids)
        case .char("w"):
            let ids = targets()
            guard !ids.isEmpty else { return noTarget() }
            let what = ids.count == 1 ? "#\(ids[0])" : "\(ids.count) tasks"
            overlay = .confirm(
                "Download \(what) again from zero (the file and partial data go)? y/n",
                .redownload(.tasks(ids)))
        case .char("e"):
            guard let id = cursorTaskID, let t = list.tasks[id] else { return noTarget() }
            overlay = .prompt(
                Prompt(.renameTask(id), label: "Rename #\(id):", text: DownloadList.shownName(t)))
        case .char("a"):
            let s = list.sortMode == .manual ? cursorSection : nil
            let placement = s.map { AddPlacement.section($0, index: nil) } ?? .end
            let label = s.map { "Add URLs to '\(list.sections[$0].title)':" } ?? "Add URLs:"
            overlay = .prompt(Prompt(.addURLs(placement, label: label), label: label))
        case .char("N"):
            let at = cursorSection.map { $0 + 1 }
            overlay = .prompt(Prompt(.newSectionForURLs(at: at), label: "Title of the new section:"))
        case .char("n"):
            guard list.sortMode == .manual else { return manualOnly() }
            overlay = .prompt(Prompt(.insertSection(at: cursorSection.map { $0 + 1 }), label: "New section:"))
        case .char("E"):
            guard let s = requireSection() else { return [] }
            overlay = .prompt(
                Prompt(.renameSection(s), label: "Rename section \(s):", text: list.sections[s].title))
        case .char("D"):
            guard let s = requireSection() else { return [] }
            return [.execute(.removeSection(s))]
        case .char("{"), .char("}"):
            guard let s = requireSection() else { return [] }
            let to = key == .char("{") ? s - 1 : s + 1
            guard list.sections.indices.contains(to) else {
                report("section \(s) is already the \(to < 0 ? "first" : "last")", isError: true)
                return []
            }
            return [.execute(.moveSection(s, to: to))]
        case .char("K"), .char("J"):
            return moveByOne(up: key == .char("K"))
        case .char("T"):
            guard let s = requireSection() else { return [] }
            let ids = targets()
            guard !ids.isEmpty else { return noTarget() }
            return [.execute(.move(ids, to: Location(section: s, index: 0)))]
        case .char("m"):
            guard list.sortMode == .manual else { return manualOnly() }
            let ids = targets()
            guard !ids.isEmpty else { return noTarget() }
            overlay = .sectionPicker(ids, cursor: cursorSection ?? 0)
        default:
            report("no such key here (? shows every key)", isError: true)
        }
        return []
    }

    private func stateCommand(_ key: Key, _ selection: Selection) -> Command {
        switch key {
        case .char("p"), .char("P"): return .pause(selection)
        case .char("r"), .char("R"): return .resume(selection)
        default: return .stop(selection)
        }
    }

    /// SDE's accessory button: pause a running or waiting task, resume a paused, stopped or failed one.
    private mutating func accessory() -> [Effect] {
        guard let id = cursorTaskID, let t = list.tasks[id] else { return noTarget() }
        switch t.state {
        case .waiting, .downloading: return [.execute(.pause(.tasks([id])))]
        case .paused, .stopped, .failed: return [.execute(.resume(.tasks([id])))]
        case .finished:
            report("#\(id) is finished: nothing to pause or resume (w downloads it again)", isError: true)
            return []
        }
    }

    private mutating func manualOnly() -> [Effect] {
        report("sections change in the manual order only: o sorts back to it", isError: true)
        return []
    }

    /// The manual section under the cursor, or nil after saying why there is none.
    private mutating func requireSection() -> Int? {
        guard list.sortMode == .manual else {
            _ = manualOnly()
            return nil
        }
        guard let s = cursorSection else {
            report("no section here: n inserts one", isError: true)
            return nil
        }
        return s
    }

    /// Moves the targets one place up or down in their section (the first one's), or across to the
    /// neighbouring section at either end; their relative order is kept.
    private mutating func moveByOne(up: Bool) -> [Effect] {
        guard list.sortMode == .manual else { return manualOnly() }
        let ids = targets()
        guard !ids.isEmpty else { return noTarget() }
        let places = list.locations(of: Set(ids))
        guard let first = places[ids[0]], let last = places[ids[ids.count - 1]] else { return noTarget() }
        if up {
            if first.index > 0 {
                return [.execute(.move(ids, to: Location(section: first.section, index: first.index - 1)))]
            }
            guard first.section > 0 else {
                report("already at the top of the list", isError: true)
                return []
            }
            return [.execute(.move(ids, to: Location(section: first.section - 1)))]
        }
        let s = last.section
        let moving = Set(ids)
        let others = list.sections[s].tasks.filter { !moving.contains($0) }
        let before = list.sections[s].tasks[...last.index].filter { !moving.contains($0) }.count
        if before < others.count {
            return [.execute(.move(ids, to: Location(section: s, index: before + 1)))]
        }
        guard s + 1 < list.sections.count else {
            report("already at the bottom of the list", isError: true)
            return []
        }
        return [.execute(.move(ids, to: Location(section: s + 1, index: 0)))]
    }

    mutating func pickSection(_ key: Key, ids: [TaskID], at: Int) -> [Effect] {
        let count = list.sections.count
        var at = at
        switch key {
        case .escape:
            overlay = .none
            return []
        case .enter:
            overlay = .none
            return [.execute(.move(ids, to: Location(section: at)))]
        case .up, .char("k"): at -= 1
        case .down, .char("j"): at += 1
        case .char(let c) where c.isWholeNumber:
            let n = c.wholeNumberValue ?? 0
            guard n < count else { return [] }
            overlay = .none
            return [.execute(.move(ids, to: Location(section: n)))]
        default: break
        }
        overlay = .sectionPicker(ids, cursor: max(0, min(at, count - 1)))
        return []
    }

    /// What a prompt's text becomes on Enter.
    mutating func submit(_ prompt: Prompt) -> [Effect] {
        overlay = .none
        let text = prompt.value
        let trimmed = text.split(whereSeparator: { $0 == " " || $0 == "\n" || $0 == "\t" }).joined(
            separator: " ")
        switch prompt.purpose {
        case .addURLs(let placement, _):
            let urls = text.split(whereSeparator: { $0 == " " || $0 == "\n" || $0 == "\t" || $0 == "\r" })
                .map(String.init)
            guard !urls.isEmpty else {
                report("no URL given: nothing added", isError: true)
                return []
            }
            return [.execute(.add(urls: urls, placement: placement, name: nil, sha256: nil, directory: nil))]
        case .newSectionForURLs(let at):
            guard !trimmed.isEmpty else {
                report("a section needs a title: nothing added", isError: true)
                return []
            }
            let label = "Add URLs to the new section '\(trimmed)':"
            overlay = .prompt(
                Prompt(.addURLs(.newSection(title: trimmed, at: at), label: label), label: label))
            return []
        case .insertSection(let at): return [.execute(.insertSection(title: text, at: at))]
        case .renameSection(let s): return [.execute(.renameSection(s, title: text))]
        case .renameTask(let id): return [.execute(.rename(id, name: text))]
        case .maxDownloads: return [.setMaxDownloads(trimmed)]
        case .speedLimit: return [.setSpeedLimit(trimmed)]
        case .historyJump:
            guard !trimmed.isEmpty else { return [] }
            return [.historyJump(trimmed)]
        case .search:
            find(text)
            return []
        }
    }
}
