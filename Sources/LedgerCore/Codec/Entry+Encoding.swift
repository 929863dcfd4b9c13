extension Entry {
    /// The fields of an add (or of one group of an add): its tasks and where they go.
    private static func write(
        _ tasks: [NewTask], section: Int, index: Int, title: String?, _ w: inout JSONWriter
    ) {
        w.beginArray("tasks")
        for t in tasks {
            w.beginObject()
            w.field("id", t.id)
            w.field("url", t.url)
            w.field("name", t.name)
            w.field("sha256", t.sha256)
            w.field("dir", t.directory)
            if !t.options.isEmpty {
                w.key("options")
                t.options.write(to: &w)
            }
            w.endObject()
        }
        w.endArray()
        w.field("section", section)
        w.field("index", index)
        w.field("newSection", title)
    }

    /// The canonical payload: compact JSON, fields in a fixed order, absent optionals omitted.
    /// - Complexity: O(size of the event).
    public func encodedPayload() -> [UInt8] {
        var w = JSONWriter()
        w.beginObject()
        if event.isTransferFact {
            Self.writeFact(event, &w)
        } else if case .settingChanged(let setting, let value) = event {
            if value.isText {
                w.field(setting.spec.key, value.text)
            } else {
                w.field(setting.spec.key, value.number)
            }
        } else if !Self.writeListEvent(event, &w) {
            Self.writeTaskEvent(event, &w)
        }
        w.field("undoes", undoes)
        w.field("redoes", redoes)
        w.field("origin", origin)
        w.endObject()
        return w.bytes
    }
}

extension Entry {
    /// The fields of an event that adds, removes or places tasks or sections; false for any other event.
    private static func writeListEvent(_ event: Event, _ w: inout JSONWriter) -> Bool {
        switch event {
        case .ledgerCreated(let directory, let maxDownloads, let autoRemove):
            w.field("dir", directory)
            w.field("max", maxDownloads)
            if autoRemove { w.field("autoRemove", true) }
        case .tasksAdded(let tasks, let section, let index, let title):
            Self.write(tasks, section: section, index: index, title: title, &w)
        case .groupsAdded(let groups):
            w.beginArray("groups")
            for g in groups {
                w.beginObject()
                Self.write(g.tasks, section: g.section, index: g.index, title: g.newSectionTitle, &w)
                w.endObject()
            }
            w.endArray()
        case .tasksRemoved(let ids, let sections):
            w.field("ids", ids: ids)
            // One section as `section` (how every add's undo was logged before groups), several as `sections`.
            if sections.count == 1 {
                w.field("section", sections[0])
            } else if !sections.isEmpty {
                w.field("sections", ids: sections.map(Int64.init))
            }
        case .tasksMoved(let ids, let section, let index):
            w.field("ids", ids: ids)
            w.field("section", section)
            w.field("index", index)
        case .tasksPlaced(let placements, let recreating):
            w.beginArray("placements")
            for p in placements {
                w.beginObject()
                w.field("id", p.id)
                w.field("title", p.sectionTitle)
                w.field("section", p.section)
                w.field("index", p.index)
                w.endObject()
            }
            w.endArray()
            if !recreating.isEmpty { w.field("recreate", ids: recreating.map(Int64.init)) }
        case .sectionInserted(let index, let title), .sectionRenamed(let index, let title):
            w.field("index", index)
            w.field("title", title)
        case .sectionMoved(let from, let to):
            w.field("from", from)
            w.field("toIndex", to)
        case .sectionRemoved(let index):
            w.field("index", index)
        case .sectionSorted(let index, let order):
            w.field("index", index)
            w.field("ids", ids: order)
        default:
            return false
        }
        return true
    }

    /// The fields of the other user actions: deletes, restores, renames, states, preferences.
    private static func writeTaskEvent(_ event: Event, _ w: inout JSONWriter) {
        switch event {
        case .tasksDeleted(let ids, let modes), .tasksErased(let ids, let modes, _):
            w.field("ids", ids: ids)
            if modes.count == 1 {
                w.field("mode", modes[0].rawValue)
            } else {
                w.field("modes", strings: modes.map(\.rawValue))
            }
            if case .tasksErased(_, _, let kept) = event, !kept.isEmpty { w.field("kept", ids: kept) }
        case .filesDeleted(let ids, let kept), .trashPurged(let ids, let kept),
            .tasksRedownloaded(let ids, let kept):
            w.field("ids", ids: ids)
            if !kept.isEmpty { w.field("kept", ids: kept) }
        case .tasksPaused(let ids), .tasksResumed(let ids), .tasksStopped(let ids):
            w.field("ids", ids: ids)
        case .tasksRestored(let ids, let to, let recreating):
            w.field("ids", ids: ids)
            if !recreating.isEmpty { w.field("recreate", ids: recreating.map(Int64.init)) }
            if let to {
                w.key("to")
                w.beginObject()
                w.field("section", to.section)
                w.field("index", to.index.map(Int64.init))
                w.endObject()
            }
        case .tasksTrashed(let entries, let positions, let sections):
            w.beginArray("entries")
            for e in entries {
                w.beginObject()
                w.field("id", e.id)
                w.field("mode", e.mode.rawValue)
                w.field("title", e.sectionTitle)
                w.field("section", e.section)
                w.field("index", e.index)
                w.field("deleted", e.deleted)
                w.field("state", e.state?.rawValue)
                w.endObject()
            }
            w.endArray()
            w.field("positions", ids: positions.map(Int64.init))
            w.field("sections", ids: sections.map(Int64.init))
        case .taskRenamed(let id, let name, let fileName, let userChosen):
            w.field("id", id)
            w.field("name", name)
            w.field("file", fileName)
            if !userChosen { w.field("chosen", false) }
        case .statesRestored(let ids, let states):
            w.field("ids", ids: ids)
            w.field("states", strings: states.map(\.rawValue))
        case .directoryChanged(let path):
            w.field("dir", path)
        case .hostSettingChanged(let host, let setting, let value):
            w.field("host", host)
            w.field("setting", setting.rawValue)
            if let value { w.field("value", value) }
        case .taskOptionsChanged(let id, let options):
            w.field("id", id)
            w.key("options")
            options.write(to: &w)
        case .sortChanged(let mode, let descending):
            w.field("mode", mode.rawValue)
            w.field("descending", descending)
        case .emptySectionsPolicyChanged(let autoRemove):
            w.field("autoRemove", autoRemove)
        case .trashPolicyChanged(let enabled):
            w.field("enabled", enabled)
        case .hookChanged(let hook, let command):
            w.field("hook", hook.rawValue)
            w.field("command", command)
        default:
            break
        }
    }

    /// The fields of a downloader's fact.
    private static func writeFact(_ event: Event, _ w: inout JSONWriter) {
        switch event {
        case .transferStarted(let id, let attempt, let offset):
            w.field("id", id)
            w.field("attempt", attempt)
            w.field("offset", offset)
        case .transferResolved(
            let id, let size, let serverName, let validator, let acceptsRanges, let restarted):
            w.field("id", id)
            w.field("size", size)
            w.field("serverName", serverName)
            w.field("validator", validator)
            w.field("acceptsRanges", acceptsRanges)
            w.field("restarted", restarted)
        case .transferPaused(let id, let bytes), .transferHeld(let id, let bytes):
            w.field("id", id)
            w.field("bytes", bytes)
        case .transferContinued(let id):
            w.field("id", id)
        case .transferCompleted(
            let id, let bytes, let sha256, let fileName, let placed, let host, let directory):
            w.field("id", id)
            w.field("bytes", bytes)
            w.field("sha256", sha256)
            w.field("file", fileName)
            if let placed {
                w.field("dev", Int64(bitPattern: placed.device))
                w.field("ino", Int64(bitPattern: placed.inode))
                w.field("mtime", placed.modified)
            }
            if let host { w.field("host", host) }
            if let directory { w.field("dir", directory) }
        case .transferClaimed(let id, let host, let leaseMs, let expired):
            w.field("id", id)
            w.field("host", host)
            w.field("leaseMs", leaseMs)
            if let expired { w.field("expired", expired) }
        case .transferFailed(let id, let failure, let bytes):
            w.field("id", id)
            w.field("code", failure.code)
            w.field("detail", failure.detail)
            w.field("retryable", failure.retryable)
            w.field("bytes", bytes)
        case .transferRetrying(let id, let failure, let bytes, let delayMs):
            w.field("id", id)
            w.field("code", failure.code)
            w.field("detail", failure.detail)
            w.field("bytes", bytes)
            w.field("delayMs", delayMs)
        case .transferConnections(let id, let connections, let detail):
            w.field("id", id)
            w.field("connections", Int64(connections))
            w.field("detail", detail)
        case .hookFinished(let id, let hook, let command, let result, let line):
            w.field("id", id)
            w.field("hook", hook.rawValue)
            w.field("command", command)
            switch result {
            case .exited(let status): w.field("exit", Int64(status))
            case .signalled(let signal): w.field("signal", Int64(signal))
            case .timedOut(let limitMs): w.field("timeoutMs", limitMs)
            case .notStarted(let reason): w.field("spawnError", reason)
            }
            w.field("line", line)
        default:
            break
        }
    }
}
