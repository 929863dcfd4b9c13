import CCurl
import Glibc

/// Moves a finished partial file to its final name inside the download directory, never replacing a file.
enum FilePlacement {
    /// Candidates tried before giving up.
    static let maxCandidates = 10_000

    /// Links `partial` to the first free name among ``FileNaming/candidates(base:)`` of `base` inside
    /// `directory`, removes the partial and returns the chosen name. Falls back to renameat2(RENAME_NOREPLACE)
    /// on file systems without hard links.
    static func place(partial: String, directory: String, base: String) throws(TransferError) -> String {
        for name in FileNaming.candidates(base: base).prefix(maxCandidates) {
            let target = directory + "/" + name
            if link(partial, target) == 0 {
                unlink(partial)
                syncDirectory(directory)
                return name
            }
            if errno == EEXIST { continue }
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

    /// Makes the new directory entry durable, sharing the directory fsync with placements finishing at the
    /// same time; best effort.
    private static func syncDirectory(_ directory: String) {
        DirectorySync.shared.sync(directory)
    }
}
