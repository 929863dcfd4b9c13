import Foundation

/// Whether a finished file is still the one the downloader placed, and the folder work the ledger does on tasks'
/// files. Every name read back from the log is checked (``FileNaming/isSafeName(_:)``,
/// ``FileNaming/isSafeDirectory(_:)``) before it is used, and every operation goes through a ``DownloadFolder``.
enum FileOwnership {
    enum Verdict: Equatable {
        /// The file at the recorded name is the one placed: same device, inode, modification time and size, or
        /// same size and SHA-256.
        case ours
        /// Nothing is there (or the directory is gone).
        case missing
        /// Something else is there, or the recorded name is not safe to use.
        case notOurs(String)
    }

    /// What sits at `t`'s recorded file name. `placed`: the identity recorded when it was placed, if any.
    static func check(_ t: DownloadTask, placed: FileIdentity?, in given: DownloadFolder? = nil) -> Verdict {
        guard let name = t.fileName else { return .missing }
        guard FileNaming.isSafeName(name), FileNaming.isSafeDirectory(t.directory) else {
            return .notOurs("the name recorded in the ledger is not a plain file name")
        }
        guard let folder = given ?? (try? DownloadFolder(directory: t.directory)) else { return .missing }
        guard let info = folder.status(of: name) else { return .missing }
        guard info.st_mode & S_IFMT == S_IFREG else { return .notOurs("it is no longer a regular file") }
        let size = Int64(info.st_size)
        guard size == t.bytes else { return .notOurs("its size changed") }
        if let placed, placed == identity(info) { return .ours }
        // Another file (replaced, perhaps under the inode number just freed; copied back; or a ledger from before
        // identities were recorded): ours only with the very content downloaded.
        guard let expected = t.sha256, let fd = folder.openForReading(name) else {
            return .notOurs("it was replaced")
        }
        defer { close(fd) }
        return FileDigest.sha256(fd: fd) == expected ? .ours : .notOurs("it was replaced")
    }

    /// The identity of the file `info` describes.
    static func identity(_ info: stat) -> FileIdentity {
        FileIdentity(
            device: UInt64(info.st_dev), inode: UInt64(info.st_ino),
            modified: Int64(info.st_mtim.tv_sec) * 1_000_000_000 + Int64(info.st_mtim.tv_nsec))
    }

    /// Removes `t`'s partial file from its directory's real `.dledger/partial` (nothing when that is a link).
    static func removePartial(of t: DownloadTask) {
        (try? DownloadFolder(directory: t.directory))?.removePartial(id: t.id)
    }

    /// `directory` opened with its hidden folders (created if missing) and locked: renames of files in one
    /// directory, from any process, run one at a time.
    static func lockedFolder(_ directory: String) throws -> DownloadFolder {
        do {
            let folder = try DownloadFolder(directory: directory, creating: true)
            try folder.lock()
            return folder
        } catch {
            throw LedgerError.fileSystem(error.message)
        }
    }

    /// A folder error of a rename of a file to `name` as the ledger reports it.
    static func ledgerError(_ error: FolderError, directory: String, name: String) -> LedgerError {
        switch error.code {
        case EEXIST: .fileExists(directory + "/" + name)
        default: .fileSystem(error.message)
        }
    }
}
