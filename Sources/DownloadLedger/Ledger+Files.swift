import Foundation

extension DownloadTask {
    /// Where the downloader keeps the bytes until the file is complete (a hidden folder in the download directory).
    public var partialPath: String { directory + "/.dledger/partial/\(id).part" }

    /// The finished file, once there is one.
    public var filePath: String? { fileName.map { directory + "/" + $0 } }
}

extension Ledger.State {
    /// Disk work that must happen before the event is appended: renaming a finished file (returning how to take
    /// it back if the append does not happen), and deciding which finished files a purge, redownload or file
    /// delete must leave because they are no longer the files the downloader placed (`entry` then says so).
    func prepareFiles(for entry: inout Entry, in list: DownloadList) throws -> (() -> Void)? {
        switch entry.event {
        case .taskRenamed(let id, _, let fileName?, _):
            guard let task = list.tasks[id], let oldName = task.fileName, oldName != fileName else {
                return nil
            }
            // Under the folder's lock (see execute): no other process renames in this directory meanwhile.
            let folder: DownloadFolder
            do throws(FolderError) {
                folder = try DownloadFolder(directory: task.directory)
                guard !folder.isLedgerName(fileName, ledgerPath: path) else {
                    throw FolderError(
                        "'\(fileName)' is a name of the ledger's own files in \(task.directory)")
                }
                try folder.rename(oldName, to: fileName)
            } catch {
                throw FileOwnership.ledgerError(error, directory: task.directory, name: fileName)
            }
            return { try? folder.rename(fileName, to: oldName) }
        case .filesDeleted(let ids, _):
            entry.event = .filesDeleted(ids: ids, kept: try filesToKeep(ids, in: list))
        case .tasksRedownloaded(let ids, _):
            entry.event = .tasksRedownloaded(ids: ids, kept: try filesToKeep(ids, in: list))
        case .trashPurged(let ids, _):
            let withFiles = ids.filter { id in list.trash.first { $0.id == id }?.mode ?? .all == .all }
            entry.event = .trashPurged(ids: ids, kept: try filesToKeep(withFiles, in: list))
        case .tasksErased(let ids, let modes, _):
            let withFiles = ids.enumerated().filter { n, _ in (modes.count == 1 ? modes[0] : modes[n]) == .all
            }
            entry.event = .tasksErased(
                ids: ids, modes: modes, kept: try filesToKeep(withFiles.map(\.1), in: list))
        default:
            break
        }
        return nil
    }

    /// The tasks among `ids` whose finished file exists but must stay: not the file the downloader placed.
    private func filesToKeep(_ ids: [TaskID], in list: DownloadList) throws -> [TaskID] {
        var kept: [TaskID] = []
        for id in ids {
            guard let t = list.tasks[id], t.fileName != nil else { continue }
            if case .notOurs = FileOwnership.check(t, placed: try placedIdentity(of: id)) { kept.append(id) }
        }
        return kept
    }

    /// The device and inode the last `transferCompleted` of `id` recorded, if any.
    func placedIdentity(of id: TaskID) throws -> FileIdentity? {
        for stored in try store.events(touching: id).reversed() where stored.kind == "transferCompleted" {
            guard
                case .transferCompleted(_, _, _, _, let placed, _, _) = try Entry.decode(
                    kind: stored.kind, payload: stored.payload
                ).event
            else { return nil }
            return placed
        }
        return nil
    }

    /// Disk work after the event is logged: the partial files of undone adds, purged, redownloaded and
    /// file-deleted tasks go, and their finished files unless kept (checked once more just before).
    /// Everything happens inside the tasks' real hidden folders and directories (``DownloadFolder``).
    func cleanUpFiles(after event: Event, before list: DownloadList) {
        switch event {
        case .tasksRemoved(let ids, _):
            // An undone add: only partial data can exist (undo refuses once a task has downloaded bytes).
            for id in ids { list.tasks[id].map { FileOwnership.removePartial(of: $0) } }
        case .filesDeleted(let ids, let kept), .tasksRedownloaded(let ids, let kept):
            for id in ids {
                guard let t = list.tasks[id] else { continue }
                if !kept.contains(id) { removeFinishedFile(of: t) }
                FileOwnership.removePartial(of: t)
            }
        case .tasksErased(let ids, let modes, let kept):
            for (n, id) in ids.enumerated() {
                guard let t = list.tasks[id] else { continue }
                let mode = modes.count == 1 ? modes[0] : modes[n]
                if mode == .all && !kept.contains(id) { removeFinishedFile(of: t) }
                FileOwnership.removePartial(of: t)
            }
        case .trashPurged(let ids, let kept):
            for id in ids {
                guard let t = list.tasks[id] else { continue }
                let mode = list.trash.first { $0.id == id }?.mode ?? .all
                if mode == .all && !kept.contains(id) { removeFinishedFile(of: t) }
                FileOwnership.removePartial(of: t)
            }
        default:
            break
        }
    }

    /// Removes the finished file of `t` if it is still the file the downloader placed.
    private func removeFinishedFile(of t: DownloadTask) {
        guard let name = t.fileName, let folder = try? DownloadFolder(directory: t.directory),
            case .ours = FileOwnership.check(t, placed: try? placedIdentity(of: t.id), in: folder)
        else { return }
        folder.removeFile(name)
    }
}

extension Ledger {
    /// Whether `cleanUpFiles` has anything to do after `event` (it needs the list before the event).
    static func cleansFiles(_ event: Event) -> Bool {
        switch event {
        case .tasksRemoved, .filesDeleted, .tasksRedownloaded, .tasksErased, .trashPurged: true
        default: false
        }
    }

    /// An add's download directory must be one the downloader will use (``FileNaming/isSafeDirectory(_:)``:
    /// absolute, no `.` or `..` part, no control character): refused now, not failed at download time. It is kept in
    /// its normal form (``FileNaming/normalizedDirectory(_:)``: `/tmp/x//y/` is `/tmp/x/y`).
    static func acceptingDirectory(of command: Command) throws -> Command {
        switch command {
        case .add(let urls, let placement, let name, let sha256, let directory?, let options):
            return .add(
                urls: urls, placement: placement, name: name, sha256: sha256,
                directory: try acceptedDirectory(directory), options: options)
        case .addGroups(let groups, let directory?, let options):
            return .addGroups(groups, directory: try acceptedDirectory(directory), options: options)
        default: return command
        }
    }

    /// `directory` in its normal form, or an error when the downloader would refuse it.
    static func acceptedDirectory(_ directory: String) throws -> String {
        guard let normal = FileNaming.normalizedDirectory(directory) else {
            throw LedgerError.invalidValue(
                "download directory must be an absolute path without '..' parts or control characters: \(directory)"
            )
        }
        return normal
    }
}
