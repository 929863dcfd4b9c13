import Foundation
import LedgerCore
import LedgerTransfer

/// The partial files a run finds: what each is worth, and those a finished task left behind.
extension Scheduler {
    /// What the partial file left for `request` is worth, and the validator to resume it with. Always a validator
    /// when one is known: after a crash the log may hold no byte count while the file has bytes, and a Range
    /// without If-Range would splice changed content onto them (the engine sends it only when it resumes).
    ///
    /// The file's own mark (``PartialMark``) says which generation of the task wrote it: the current one's bytes
    /// resume even when the run that wrote them was killed before logging the transfer's start or the server's
    /// validator; an older generation's (a redownload's predecessor) are removed. Without a mark (a file system
    /// without extended attributes), a task the log never saw start has no partial worth keeping.
    /// `folders` opens the download folder (once for the scheduler's turn).
    static func resumeValidator(
        for request: TransferRequest, logged t: DownloadTask?, folders: FolderMemo = FolderMemo()
    ) -> String? {
        // Only the real hidden folder is looked at: a link there is refused (the engine then fails the task).
        guard let folder = folders.folder(request.directory), folder.hasPartials else {
            return t?.validator
        }
        if let mark = folder.partialMark(id: request.id) {
            guard mark.generation == request.generation else {
                folder.removePartial(id: request.id)
                return t?.validator
            }
            return t?.validator ?? mark.validator
        }
        // fstatat first: unlink of a missing name takes the folder's lock, which the engine wants too.
        if let t, t.attempts == 0, t.bytes == 0, folder.partialStatus(id: request.id) != nil {
            folder.removePartial(id: request.id)
        }
        return t?.validator
    }

    /// Whether `path` is a directory (or a symbolic link to one).
    static func isDirectory(_ path: String) -> Bool {
        var info = stat()
        return stat(path, &info) == 0 && (info.st_mode & S_IFMT) == S_IFDIR
    }

    /// Partial files of finished tasks: second links to their placed files, left by a run stopped between a
    /// placement and the removal that follows its record.
    func removeRecordedPartials() {
        let list = ledger.list
        var seen: Set<String> = []
        for t in list.tasks.values where seen.insert(t.directory).inserted {
            // The real `.dledger/partial` only: a link there (or at `.dledger`) is never followed.
            guard let folder = try? DownloadFolder(directory: t.directory), folder.hasPartials else {
                continue
            }
            for id in folder.partialIDs() {
                guard let task = list.tasks[id], task.state == .finished, task.directory == t.directory
                else { continue }
                folder.removePartial(id: id)
            }
        }
    }
}
