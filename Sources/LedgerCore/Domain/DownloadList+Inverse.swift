extension DownloadList {
    /// The event that undoes `event` if it were applied to this state now, or nil when it cannot be undone
    /// (purges, redownloads and file deletions destroy data; downloader facts are never undone). An add is not
    /// here: `apply` inverts it from the tasks the add actually took (``tasksRemoved``).
    func inverseOf(_ event: Event) -> Event? {
        switch event {
        case .tasksMoved(let ids, let section, _):
            let live = Set(ids.filter { tasks.contains($0) && !isTrashed($0) })
            let removed =
                sections.isEmpty
                ? []
                : sectionsEmptied(by: live, keeping: Swift.max(0, Swift.min(section, sections.count - 1)))
            return .tasksPlaced(placements(of: ids), recreating: removed)
        case .tasksPlaced(let ps, _):
            return .tasksPlaced(placements(of: ps.map(\.id)))
        case .sectionInserted(let index, _):
            return .sectionRemoved(index: Swift.max(0, Swift.min(index, sections.count)))
        case .sectionRenamed(let index, _):
            guard sections.indices.contains(index) else { return nil }
            return .sectionRenamed(index: index, title: sections[index].title)
        case .sectionMoved(let from, let to):
            return .sectionMoved(from: Swift.max(0, Swift.min(to, sections.count - 1)), to: from)
        case .sectionRemoved(let index):
            guard sections.indices.contains(index) else { return nil }
            return .sectionInserted(index: index, title: sections[index].title)
        case .sectionSorted(let index, _):
            guard sections.indices.contains(index) else { return nil }
            return .sectionSorted(index: index, order: Array(sections[index].tasks))
        case .tasksDeleted(let ids, _):
            let live = ids.filter { tasks.contains($0) && !isTrashed($0) }
            let removed = sectionsEmptied(by: Set(live), keeping: nil)
            return live.isEmpty ? nil : .tasksRestored(ids: live, to: nil, recreating: removed)
        case .tasksRestored(let ids, _, _):
            // The exact entries and their places in the to-delete list, plus the sections the restore will recreate.
            let wanted = Set(ids)
            let found = trash.enumerated().filter { wanted.contains($0.element.id) }
            guard !found.isEmpty else { return nil }
            var after = self
            after.reduce(event, time: 0)
            return .tasksTrashed(
                found.map(\.element), positions: found.map(\.offset),
                removingSections: after.sectionsAdded(since: self))
        case .taskRenamed(let id, _, let fileName, _):
            guard let t = tasks[id] else { return nil }
            return .taskRenamed(
                id: id, name: t.displayName, fileName: fileName == nil ? nil : t.fileName,
                userChosen: t.nameIsUserChosen)
        case .tasksPaused(let ids), .tasksResumed(let ids), .tasksStopped(let ids),
            .statesRestored(let ids, _):
            let known = ids.filter { tasks.contains($0) }
            let states = known.map { tasks[$0]!.state == .downloading ? TaskState.waiting : tasks[$0]!.state }
            return .statesRestored(ids: known, states: states)
        case .settingChanged(let setting, _):
            return .settingChanged(setting, self[setting])
        case .directoryChanged:
            return .directoryChanged(directory)
        case .taskOptionsChanged(let id, _):
            guard let t = tasks[id] else { return nil }
            return .taskOptionsChanged(id: id, options: t.options)
        case .sortChanged:
            return .sortChanged(sortMode, descending: sortDescending)
        case .emptySectionsPolicyChanged:
            return .emptySectionsPolicyChanged(autoRemove: autoRemoveEmptySections)
        case .trashPolicyChanged:
            return .trashPolicyChanged(enabled: trashEnabled)
        case .hookChanged(let hook, _):
            return .hookChanged(hook: hook, command: hooks[hook])
        case .hostSettingChanged(let host, let setting, _):
            return .hostSettingChanged(host: host, setting: setting, value: hostSettings[host]?[setting])
        case .tasksAdded, .groupsAdded, .ledgerCreated, .tasksRemoved, .tasksTrashed, .filesDeleted,
            .trashPurged,
            .tasksErased,
            .tasksRedownloaded,
            .transferStarted, .transferResolved,
            .transferPaused, .transferCompleted, .transferFailed, .transferRetrying, .transferHeld,
            .transferContinued, .transferConnections, .hookFinished, .transferClaimed:
            return nil
        }
    }

    /// Indexes of the sections that taking `ids` out of them would leave empty and so remove (only with automatic
    /// removal on), except `kept` (a move's destination). Sections empty already are not counted: they stay.
    private func sectionsEmptied(by ids: Set<TaskID>, keeping kept: Int?) -> [Int] {
        guard autoRemoveEmptySections, !ids.isEmpty else { return [] }
        return sections.indices.filter { s in
            s != kept && !sections[s].tasks.isEmpty && sections[s].tasks.allSatisfy { ids.contains($0) }
        }
    }

    /// Indexes of the sections a restore inserted into `before`'s sections (a restore only inserts sections, and only
    /// with titles no other section has).
    private func sectionsAdded(since before: DownloadList) -> [Int] {
        var added: [Int] = []
        var old = 0
        for (i, s) in sections.enumerated() {
            if old < before.sections.count, before.sections[old].title == s.title {
                old += 1
            } else {
                added.append(i)
            }
        }
        return added
    }

    /// Where the given live tasks are now, in list order.
    func placements(of ids: [TaskID]) -> [Placement] {
        let found = locations(of: Set(ids))
        return found.map { id, loc in
            Placement(
                id: id, sectionTitle: sections[loc.section].title, section: loc.section, index: loc.index)
        }.sorted { ($0.section, $0.index) < ($1.section, $1.index) }
    }
}
