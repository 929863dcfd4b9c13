import DownloadLedger

extension EventWords {
    /// What a user action did to the list (nil for a setting or a downloader fact). `list` is the list before it.
    static func actionText(_ event: Event, before list: DownloadList?) -> String? {
        switch event {
        case .ledgerCreated(let dir, let max, let autoRemove):
            return
                "ledger created: downloads go to \(dir), \(max == 0 ? "no limit" : "at most \(max)") at a time"
                + (autoRemove ? ", emptied sections removed automatically" : "")
        case .tasksAdded, .groupsAdded:
            return AddOutline(event).map(added) ?? ""
        case .tasksRemoved(let removed, let sections):
            return "took \(ids(removed)) out of the list"
                + sections.map { ", and the empty section \($0)" + title($0, list) }.joined()
        case .tasksTrashed(let entries, _, let removing):
            return "put \(ids(entries.map(\.id))) back in the to-delete list"
                + removing.map { ", removed section \($0)" + title($0, list) + " again" }.joined()
        case .tasksMoved(let moved, let section, let index):
            return "moved \(ids(moved)) to \(section):\(index)" + title(section, list)
        case .tasksPlaced(let placements, let recreating):
            return "put back "
                + placements.map { "#\($0.id) at \($0.section):\($0.index) '\($0.sectionTitle)'" }.joined(
                    separator: ", ")
                + recreating.compactMap { s in
                    placements.first { $0.section == s }.map {
                        ", section \(s) '\($0.sectionTitle)' recreated"
                    }
                }.joined()
        case .sectionInserted(let index, let t):
            return "inserted section \(index) '\(t)'"
        case .sectionRenamed(let index, let t):
            return "renamed section \(index)"
                + title(index, list).replacingOccurrences(of: " '", with: " from '")
                + " to '\(t)'"
        case .sectionMoved(let from, let to):
            return "moved section \(from)" + title(from, list) + " to \(to)"
        case .sectionRemoved(let index):
            return "removed section \(index)" + title(index, list)
        case .sectionSorted(let index, let order):
            return "sorted section \(index)" + title(index, list) + ": " + ids(order)
        case .tasksDeleted(let deleted, let modes):
            let mode = modes.count == 1 ? (modes[0] == .all ? " (record and file)" : " (record only)") : ""
            return "moved \(ids(deleted)) to the to-delete list" + mode
        case .filesDeleted(let deleted, let kept):
            return "deleted the files of \(ids(deleted)) (the tasks wait again)" + keptNote(kept, list)
        case .tasksRestored(let restored, let to, let recreating):
            if let to { return "restored \(ids(restored)) to \(to)" + title(to.section, list) }
            let entries = list.map { l in restored.compactMap { id in l.trash.first { $0.id == id } } } ?? []
            guard entries.count == restored.count else {
                return "restored \(ids(restored)) to where \(restored.count == 1 ? "it was" : "they were")"
                    + recreating.map { ", recreating section \($0)" }.joined()
            }
            return "restored "
                + entries.map { "#\($0.id) to \($0.section):\($0.index) '\($0.sectionTitle)'" }.joined(
                    separator: ", ")
                + recreating.compactMap { s in
                    entries.first { $0.section == s }.map { ", section \(s) '\($0.sectionTitle)' recreated" }
                }.joined()
        case .trashPurged(let purged, let kept):
            return "purged \(ids(purged)) for good" + keptNote(kept, list)
        case .tasksErased(let erased, let modes, let kept):
            let mode = modes.count == 1 ? (modes[0] == .all ? " (record and file)" : " (record only)") : ""
            return "deleted \(ids(erased)) at once, without the to-delete list" + mode + keptNote(kept, list)
        case .tasksRedownloaded(let reset, let kept):
            return "reset \(ids(reset)) to download again from zero" + keptNote(kept, list)
        case .taskRenamed(let id, let name, let file, _):
            return "renamed #\(id) to '\(name)'" + (file == nil ? "" : " (file renamed on disk)")
        case .tasksPaused(let paused): return "paused \(ids(paused))"
        case .tasksResumed(let resumed): return "resumed \(ids(resumed))"
        case .tasksStopped(let stopped): return "stopped \(ids(stopped))"
        case .statesRestored(let restored, let states):
            return "put back states: "
                + zip(restored, states).map { "#\($0) \($1.rawValue)" }.joined(separator: ", ")
        default: return nil
        }
    }
}
