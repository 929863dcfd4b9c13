import CCurl
import Glibc

/// Moves a finished partial file to its final name inside the download directory, never replacing a file.
enum FilePlacement {
    /// Candidates tried before giving up.
    static let maxCandidates = 10_000

    /// Links `partial` to the first free name among ``FileNaming/candidates(base:)`` of `base` inside
    /// `directory`, removes the partial (unless `keepPartial`) and returns the chosen name. A name that is already
    /// this very file (a link made by a run killed before it recorded the placement) is that name. Falls back to
    /// renameat2(RENAME_NOREPLACE) on file systems without hard links.
    static func place(partial: String, directory: String, base: String, keepPartial: Bool = false)
        throws(TransferError) -> String
    {
        for name in FileNaming.candidates(base: base).prefix(maxCandidates) {
            let target = directory + "/" + name
            if link(partial, target) == 0 {
                if !keepPartial { unlink(partial) }
                syncDirectory(directory)
                return name
            }
            if errno == EEXIST {
                if isSameFile(partial, target) {
                    if !keepPartial { unlink(partial) }
                    return name
                }
                continue
            }
            guard errno == EPERM || errno == EOPNOTSUPP || errno == EMLINK || errno == ENOSYS else {
                throw PartialFile.error("cannot create \(target)")
            }
            if ccurl_rename_noreplace(partial, target) == 0 {
                syncDirectory(directory)
                return name
            }
            if errno == EEXIST { continue }
            throw PartialFile.error("cannot rename to \(target)")
        }
        throw .fileSystem("no free name for \(base) in \(directory)")
    }

    /// Whether two paths name one file (same device and inode; the target not followed if a symlink).
    private static func isSameFile(_ a: String, _ b: String) -> Bool {
        var sa = stat()
        var sb = stat()
        guard stat(a, &sa) == 0, lstat(b, &sb) == 0 else { return false }
        return sa.st_dev == sb.st_dev && sa.st_ino == sb.st_ino
    }

    /// Makes the new directory entry durable, sharing the directory fsync with placements finishing at the
    /// same time; best effort.
    private static func syncDirectory(_ directory: String) {
        DirectorySync.shared.sync(directory)
    }
}
