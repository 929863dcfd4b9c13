import Glibc

extension Ledger {
    /// One task, its place in the list and what is on disk for it (SDEDownloadManager's `info(ofTask:)`).
    ///
    /// ```swift
    /// let info = try ledger.info(ofTask: 7)
    /// if case .onDisk(let path) = info.file { print("#7 is at", path) }
    /// ```
    /// Folders are opened without following links in the ledger's hidden folder; a finished file is checked as
    /// ``verify(checkFiles:checksums:)`` checks it (by identity, else by its SHA-256).
    /// - Throws: `LedgerError.noSuchTask` for an id the list does not have (purged, or never added).
    public func info(ofTask id: TaskID) throws -> TaskInfo {
        let list = self.list
        guard var task = list.tasks[id] else { throw LedgerError.noSuchTask(id) }
        let trash = list.trash.first { $0.id == id }
        let location = list.location(of: id).map { Location(section: $0.section, index: $0.index) }
        let title = location.map { list.sections[$0.section].title } ?? trash?.sectionTitle ?? ""
        let file: TaskInfo.File
        if let path = task.filePath, task.state == .finished {
            let placed = try core.withLock { try $0.placedIdentity(of: id) }
            switch FileOwnership.check(task, placed: placed) {
            case .ours: file = .onDisk(path: path)
            case .missing: file = .missing(path: path)
            case .notOurs(let reason): file = .replaced(path: path, reason: reason)
            }
        } else {
            let folder = try? DownloadFolder(directory: task.directory)
            // A split file's bytes are its written pieces, not its length (which counts the holes).
            let written = folder?.partialPieces(id: id).map {
                $0.written.reduce(Int64(0)) { $0 + ($1.upperBound - $1.lowerBound) }
            }
            let partial = written ?? folder?.partialStatus(id: id).map { Int64($0.st_size) }
            if task.state == .downloading, let live = liveActivity()[id] {
                task.bytes = live.bytes
            } else if let partial, task.state == .downloading {
                task.bytes = partial
            }
            file = .partial(path: task.partialPath, bytes: partial)
        }
        return TaskInfo(
            task: task, location: location, sectionTitle: title, trash: trash, file: file,
            downloaderRunning: isDownloaderRunning)
    }
}
