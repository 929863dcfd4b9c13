import CCurl
import Glibc

/// Moves a finished partial file to its final name inside the download directory, never replacing a file.
enum FilePlacement {
    /// Candidates tried before giving up.
    static let maxCandidates = 10_000

    /// Links the partial file of `id` (in the real `.dledger/partial` of `directory`) to the first free name among
    /// ``FileNaming/candidates(base:)`` of `base` inside `directory`, makes the file and its new name durable,
    /// removes the partial (unless `keepPartial`) and returns the chosen name. A name that is already this very file
    /// (a link made by a run killed before it recorded the placement) is that name. Falls back to
    /// renameat2(RENAME_NOREPLACE) on file systems without hard links. Every step is relative to the folders'
    /// descriptors (``DownloadFolder``). A name of the ledger at `ledgerPath`
    /// (``DownloadFolder/isLedgerName(_:ledgerPath:)``) is passed over.
    ///
    /// `sync` makes the file's bytes durable (its fsync). With a hard link it runs after the link and before the
    /// directory's fsync: on a journaling file system (ext4, XFS) the file's fsync commits the new name with the
    /// bytes, so the directory's fsync finds nothing left to commit, and a file costs one journal commit instead of
    /// two (the 200-file benchmark's completions were the run's last 40–100 ms, waiting on those commits). The partial
    /// keeps the file until both syncs are done, so a crash in between leaves it where a resume finds it, whatever
    /// the final name holds then; nothing is reported placed before both syncs. Without hard links the file is
    /// synced before it is renamed (the rename takes the partial's name away). A failed `sync` takes the new name
    /// back and throws.
    static func place(
        id: Int64, directory: String, base: String, keepPartial: Bool = false, ledgerPath: String? = nil,
        sync: () throws(TransferError) -> Void
    )
        throws(TransferError) -> String
    {
        let folder: DownloadFolder
        do {
            folder = try DownloadFolder(directory: directory)
        } catch {
            throw TransferError(error)
        }
        return try place(
            id: id, folder: folder, base: base, keepPartial: keepPartial, ledgerPath: ledgerPath, sync: sync)
    }

    /// ``place(id:directory:base:keepPartial:ledgerPath:sync:)`` through `folder`, already open (the one the
    /// partial file was opened in: ``PartialFile/folder``).
    static func place(
        id: Int64, folder: DownloadFolder, base: String, keepPartial: Bool = false, ledgerPath: String? = nil,
        sync: () throws(TransferError) -> Void
    )
        throws(TransferError) -> String
    {
        let directory = folder.path
        guard folder.hasPartials else { throw .fileSystem("no partial folder in \(directory)") }
        let partial = DownloadFolder.partialName(id: id)
        var synced = false
        for name in FileNaming.candidates(base: base).prefix(maxCandidates)
        where FileNaming.isSafeName(name) && !folder.isLedgerName(name, ledgerPath: ledgerPath) {
            if linkat(folder.partials, partial, folder.directory, name, 0) == 0 {
                do {
                    try sync()
                } catch {
                    unlinkat(folder.directory, name, 0)
                    throw error
                }
                syncDirectory(folder)
                if !keepPartial { folder.removePartial(id: id) }
                return name
            }
            if errno == EEXIST {
                if isSameFile(folder, partial, name) {
                    try sync()
                    syncDirectory(folder)
                    if !keepPartial { folder.removePartial(id: id) }
                    return name
                }
                continue
            }
            guard errno == EPERM || errno == EOPNOTSUPP || errno == EMLINK || errno == ENOSYS else {
                throw PartialFile.error("cannot create \(directory)/\(name)")
            }
            if !synced {
                try sync()
                synced = true
            }
            if ccurl_renameat_noreplace(folder.partials, partial, folder.directory, name) == 0 {
                syncDirectory(folder)
                return name
            }
            if errno == EEXIST { continue }
            throw PartialFile.error("cannot rename to \(directory)/\(name)")
        }
        throw .fileSystem("no free name for \(base) in \(directory)")
    }

    /// Whether the partial and the entry `name` are one file (same device and inode; neither followed if a link).
    private static func isSameFile(_ folder: DownloadFolder, _ partial: String, _ name: String) -> Bool {
        var sa = stat()
        var sb = stat()
        guard fstatat(folder.partials, partial, &sa, AT_SYMLINK_NOFOLLOW) == 0,
            fstatat(folder.directory, name, &sb, AT_SYMLINK_NOFOLLOW) == 0
        else { return false }
        return sa.st_dev == sb.st_dev && sa.st_ino == sb.st_ino
    }

    /// Makes the new directory entry durable, sharing the directory fsync with placements finishing at the
    /// same time; best effort.
    private static func syncDirectory(_ folder: DownloadFolder) {
        DirectorySync.shared.sync(descriptor: folder.directory)
    }
}
