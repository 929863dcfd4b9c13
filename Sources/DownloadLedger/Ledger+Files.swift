import Foundation

extension DownloadTask {
    /// Where the downloader keeps the bytes until the file is complete (a hidden folder in the download directory).
    public var partialPath: String { directory + "/.dledger/partial/\(id).part" }

    /// The finished file, once there is one.
    public var filePath: String? { fileName.map { directory + "/" + $0 } }
}

/// File operations that never overwrite: the ledger's side of invariant 7.
enum SafeFiles {
    /// Renames `from` to `to`, failing if `to` exists (link then unlink: atomic no-replace on one file system).
    static func renameNoReplace(_ from: String, _ to: String) throws {
        if link(from, to) == 0 {
            unlink(from)
            return
        }
        let error = errno
        if error == EEXIST { throw LedgerError.fileExists(to) }
        if error == ENOENT { throw LedgerError.fileSystem("cannot rename \(from): no such file") }
        // File systems without hard links: check, then rename (a narrow race, documented).
        guard !FileManager.default.fileExists(atPath: to) else { throw LedgerError.fileExists(to) }
        guard rename(from, to) == 0 else {
            throw LedgerError.fileSystem("cannot rename \(from): \(String(cString: strerror(errno)))")
        }
    }

    static func remove(_ path: String) {
        unlink(path)
    }
}

extension Ledger {
    /// Disk work that must happen before the event is appended (renaming a finished file); returns how to take it
    /// back if the append does not happen.
    func prepareFiles(for event: Event, in list: DownloadList) throws -> (() -> Void)? {
        guard case .taskRenamed(let id, _, let fileName?, _) = event, let task = list.tasks[id],
            let oldName = task.fileName, oldName != fileName
        else { return nil }
        let from = task.directory + "/" + oldName
        let to = task.directory + "/" + fileName
        try SafeFiles.renameNoReplace(from, to)
        return { try? SafeFiles.renameNoReplace(to, from) }
    }

    /// Disk work after the event is logged: files of purged, redownloaded and file-deleted tasks go.
    func cleanUpFiles(after event: Event, before list: DownloadList) {
        switch event {
        case .tasksRemoved(let ids, _):
            // An undone add: only partial data can exist (undo refuses once a task has downloaded bytes).
            for id in ids { list.tasks[id].map { SafeFiles.remove($0.partialPath) } }
        case .filesDeleted(let ids), .tasksRedownloaded(let ids):
            for id in ids {
                guard let t = list.tasks[id] else { continue }
                if let path = t.filePath { SafeFiles.remove(path) }
                SafeFiles.remove(t.partialPath)
            }
        case .tasksErased(let ids, let modes):
            for (n, id) in ids.enumerated() {
                guard let t = list.tasks[id] else { continue }
                let mode = modes.count == 1 ? modes[0] : modes[n]
                if mode == .all, let path = t.filePath { SafeFiles.remove(path) }
                SafeFiles.remove(t.partialPath)
            }
        case .trashPurged(let ids):
            for id in ids {
                guard let t = list.tasks[id] else { continue }
                let mode = list.trash.first { $0.id == id }?.mode ?? .all
                if mode == .all, let path = t.filePath { SafeFiles.remove(path) }
                SafeFiles.remove(t.partialPath)
            }
        default:
            break
        }
    }
}
