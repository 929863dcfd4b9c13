import CCurl
import Glibc

/// A download directory and its hidden folders `.dledger` and `.dledger/partial`, opened so that no file operation
/// leaves them: the directory itself is opened following links (the user may have chosen a link), the hidden
/// folders with `O_NOFOLLOW | O_DIRECTORY` (a link there is refused, never followed), and every operation works
/// relative to these descriptors (`openat`, `unlinkat`, `linkat`, `renameat2`, `fstatat` without following
/// links). Names are checked with ``FileNaming/isSafeName(_:)`` before any operation.
///
/// ```swift
/// let folder = try DownloadFolder(directory: "/home/me/Downloads", creating: true)
/// let fd = try folder.openPartial(id: 7)           // .dledger/partial/7.part
/// folder.removePartial(id: 7)
/// ```
/// Short-lived: open one for a piece of work and let it go (it holds up to three descriptors).
public final class DownloadFolder {
    /// The download directory as given.
    public let path: String
    let directory: Int32
    /// `.dledger`, or -1 when it does not exist (opened without `creating`).
    let hidden: Int32
    /// `.dledger/partial`, or -1 when it does not exist.
    let partials: Int32

    /// Opens `directory` and its hidden folders. With `creating`, the directory's last component and the hidden
    /// folders (mode 0700) are created when missing, and a hidden folder that is a link (or no folder) is an
    /// error; without, such a hidden folder, or a missing one, is left alone and ``hasPartials`` is false.
    /// - Throws: ``FolderError`` when the directory cannot be opened, or (`creating`) a hidden folder is refused.
    public init(directory: String, creating: Bool = false) throws(FolderError) {
        path = directory
        guard FileNaming.isSafeDirectory(directory) else {
            throw FolderError("not a safe absolute path for a download directory: \(directory)")
        }
        // Opened first, created only when missing: mkdir of an existing name still takes the parent's lock, which
        // placements into the same folder want too (every start opens its folder).
        var dir = open(directory, O_RDONLY | O_DIRECTORY | O_CLOEXEC)
        if dir < 0 && errno == ENOENT && creating {
            if mkdir(directory, 0o755) != 0 && errno != EEXIST {
                throw FolderError.system("cannot create \(directory)")
            }
            dir = open(directory, O_RDONLY | O_DIRECTORY | O_CLOEXEC)
        }
        guard dir >= 0 else { throw FolderError.system("cannot open \(directory)") }
        let hidden: Int32
        do {
            hidden = try Self.openHidden(dir, ".dledger", shown: directory + "/.dledger", creating: creating)
        } catch {
            close(dir)
            throw error
        }
        let partials: Int32
        do {
            partials =
                hidden < 0
                ? -1
                : try Self.openHidden(
                    hidden, "partial", shown: directory + "/.dledger/partial", creating: creating)
        } catch {
            close(dir)
            close(hidden)
            throw error
        }
        self.directory = dir
        self.hidden = hidden
        self.partials = partials
    }

    deinit {
        close(directory)
        if hidden >= 0 { close(hidden) }
        if partials >= 0 { close(partials) }
    }

    /// Takes an exclusive `flock` on `.dledger`, held until ``unlock()`` or until the folder goes: how processes
    /// renaming files of one directory take turns.
    public func lock() throws(FolderError) {
        guard hidden >= 0 else { throw FolderError("no hidden folder in \(path) to lock") }
        while flock(hidden, LOCK_EX) != 0 {
            guard errno == EINTR else { throw FolderError.system("cannot lock \(path)/.dledger") }
        }
    }

    /// Releases ``lock()``.
    public func unlock() {
        if hidden >= 0 { flock(hidden, LOCK_UN) }
    }

    /// Whether `.dledger/partial` exists (as a real folder).
    public var hasPartials: Bool { partials >= 0 }

    /// The name of task `id`'s partial file inside `.dledger/partial`.
    public static func partialName(id: Int64) -> String { "\(id).part" }

    /// `<directory>/.dledger/partial/<id>.part`, for messages.
    public func partialPath(id: Int64) -> String { path + "/.dledger/partial/" + Self.partialName(id: id) }

    /// Opens (creating if needed) the partial file of `id` for appending; the caller owns the descriptor.
    func openPartial(id: Int64) throws(FolderError) -> Int32 {
        guard partials >= 0 else { throw FolderError("no partial folder in \(path)") }
        let fd = openat(
            partials, Self.partialName(id: id), O_RDWR | O_CREAT | O_APPEND | O_NOFOLLOW | O_CLOEXEC, 0o666)
        guard fd >= 0 else { throw FolderError.system("cannot open \(partialPath(id: id))") }
        return fd
    }

    /// Removes the partial file of `id`, if there is one. Returns whether a file was removed.
    @discardableResult
    public func removePartial(id: Int64) -> Bool {
        guard partials >= 0 else { return false }
        return unlinkat(partials, Self.partialName(id: id), 0) == 0
    }

    /// Facts about the partial file of `id` (not following a link), nil when there is none.
    public func partialStatus(id: Int64) -> stat? {
        guard partials >= 0 else { return nil }
        var info = stat()
        guard fstatat(partials, Self.partialName(id: id), &info, AT_SYMLINK_NOFOLLOW) == 0 else { return nil }
        return info
    }

    /// The mark on the partial file of `id` (``PartialMark``), if it is a regular file with one.
    public func partialMark(id: Int64) -> PartialMark? {
        guard partials >= 0 else { return nil }
        let fd = openat(partials, Self.partialName(id: id), O_RDONLY | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC)
        guard fd >= 0 else { return nil }
        defer { close(fd) }
        return PartialMark.read(fd: fd)
    }

    /// The piece map of task `id`'s partial file (``PartialPieces``), read without following a link; nil when it
    /// is not a regular file or has no map (a transfer on one connection appends: its size is its bytes).
    public func partialPieces(id: Int64) -> PartialPieces? {
        guard partials >= 0 else { return nil }
        let fd = openat(partials, Self.partialName(id: id), O_RDONLY | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC)
        guard fd >= 0 else { return nil }
        defer { close(fd) }
        var info = stat()
        guard fstat(fd, &info) == 0, info.st_mode & S_IFMT == S_IFREG else { return nil }
        return PartialPieces.read(fd: fd)
    }

    /// The ids of the `<id>.part` files in `.dledger/partial`.
    public func partialIDs() -> [Int64] {
        guard partials >= 0 else { return [] }
        let copy = openat(partials, ".", O_RDONLY | O_DIRECTORY | O_CLOEXEC)
        guard copy >= 0, let stream = fdopendir(copy) else { return [] }
        defer { closedir(stream) }
        var ids: [Int64] = []
        while let entry = readdir(stream) {
            let name = withUnsafeBytes(of: entry.pointee.d_name) { raw in
                String(decoding: raw.prefix { $0 != 0 }, as: UTF8.self)
            }
            if name.hasSuffix(".part"), let id = Int64(name.dropLast(5)), "\(id).part" == name {
                ids.append(id)
            }
        }
        return ids
    }

    /// Facts about the entry `name` in the download directory, not following a link; nil when there is none or
    /// the name is not safe.
    public func status(of name: String) -> stat? {
        guard FileNaming.isSafeName(name) else { return nil }
        var info = stat()
        return fstatat(directory, name, &info, AT_SYMLINK_NOFOLLOW) == 0 ? info : nil
    }

    /// Opens the regular file `name` of the download directory for reading (no link followed); the caller owns
    /// the descriptor. Nil when it cannot.
    public func openForReading(_ name: String) -> Int32? {
        guard FileNaming.isSafeName(name) else { return nil }
        let fd = openat(directory, name, O_RDONLY | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC)
        return fd >= 0 ? fd : nil
    }

    /// Removes `name` from the download directory. The caller has checked it is the file to remove.
    @discardableResult
    public func removeFile(_ name: String) -> Bool {
        guard FileNaming.isSafeName(name) else { return false }
        return unlinkat(directory, name, 0) == 0
    }

    /// Whether `name` in this folder is one of the ledger at `ledgerPath`: its own name, or one that starts with it
    /// and `-` or `.` (SQLite's `-wal`, `-shm`, `-journal`; our `.lock` and `.new-…`), when this folder is the
    /// ledger's (the same device and inode, however either path is spelled). Such a name is never a download's:
    /// SQLite would read a file named `ledger.sqlite-journal` as its own, and a clean-up would remove one named
    /// like a leftover temporary. The folder is compared only for a name that matches.
    public func isLedgerName(_ name: String, ledgerPath: String?) -> Bool {
        guard let ledgerPath, let slash = ledgerPath.lastIndex(of: "/") else { return false }
        let base = ledgerPath[ledgerPath.index(after: slash)...]
        guard !base.isEmpty, name.hasPrefix(base) else { return false }
        let rest = name.dropFirst(base.count)
        guard rest.isEmpty || rest.hasPrefix("-") || rest.hasPrefix(".") else { return false }
        let folder = slash == ledgerPath.startIndex ? "/" : String(ledgerPath[..<slash])
        var here = stat()
        var there = stat()
        // A folder that cannot be compared is taken to be the ledger's: the name is passed over.
        guard fstat(directory, &here) == 0, stat(folder, &there) == 0 else { return true }
        return here.st_dev == there.st_dev && here.st_ino == there.st_ino
    }

    /// Gives the file `from` the name `to` in the download directory, never replacing an existing `to` (link then
    /// unlink; renameat2 with RENAME_NOREPLACE where hard links are not supported).
    /// - Throws: ``FolderError`` with code EEXIST when `to` exists, ENOENT when `from` does not.
    public func rename(_ from: String, to: String) throws(FolderError) {
        guard FileNaming.isSafeName(from), FileNaming.isSafeName(to) else {
            throw FolderError("not a plain file name: '\(FileNaming.isSafeName(from) ? to : from)'")
        }
        if linkat(directory, from, directory, to, 0) == 0 {
            unlinkat(directory, from, 0)
            return
        }
        guard errno == EPERM || errno == EOPNOTSUPP || errno == EMLINK || errno == ENOSYS else {
            throw FolderError.system("cannot rename \(path)/\(from) to \(to)")
        }
        guard ccurl_renameat_noreplace(directory, from, directory, to) == 0 else {
            throw FolderError.system("cannot rename \(path)/\(from) to \(to)")
        }
    }

    /// Opens (creating with mode 0700 if asked and missing) the folder `name` inside `parent`, refusing a link or
    /// anything that is not a folder. -1 when it is missing and not to be created.
    private static func openHidden(_ parent: Int32, _ name: String, shown: String, creating: Bool)
        throws(FolderError) -> Int32
    {
        var fd = openat(parent, name, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC)
        if fd >= 0 { return fd }
        // Created only when missing (see init).
        if creating && errno == ENOENT {
            if mkdirat(parent, name, 0o700) != 0 && errno != EEXIST {
                throw FolderError.system("cannot create \(shown)")
            }
            fd = openat(parent, name, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC)
            if fd >= 0 { return fd }
        }
        let code = errno
        // Without `creating` (clean-up work), a missing folder, or one that is a link, holds nothing of ours.
        if (code == ENOENT || code == ELOOP || code == ENOTDIR) && !creating { return -1 }
        if code == ELOOP || code == ENOTDIR {
            throw FolderError("\(shown) is a symbolic link or not a folder: refusing to use it", code: code)
        }
        throw FolderError.system("cannot open \(shown)", code: code)
    }
}

/// Why a ``DownloadFolder`` operation was refused or failed.
public struct FolderError: Error, CustomStringConvertible, Sendable {
    public var message: String
    /// The errno behind it; 0 when a check refused the operation.
    public var code: Int32

    public init(_ message: String, code: Int32 = 0) {
        self.message = message
        self.code = code
    }

    /// An error for `errno` (or `code`), with its text appended.
    static func system(_ what: String, code: Int32 = errno) -> FolderError {
        FolderError("\(what): \(String(cString: strerror(code)))", code: code)
    }

    public var description: String { message }
}
