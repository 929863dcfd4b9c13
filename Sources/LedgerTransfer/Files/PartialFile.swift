import CCurl
import CWriteback
import Glibc

/// The partial file of one transfer, `<dir>/.dledger/partial/<id>.part`, opened for appending; owns its descriptor.
///
/// Bytes reach it with write(2) a chunk at a time (``Job`` gathers curl's 16 KiB callbacks into 256 KiB and hands
/// each chunk over in ``maxWrite`` pieces), so what was written survives the death of the process; a kill loses at
/// most the chunk being gathered, which the resume asks for again. Every ``writebackStep`` bytes the kernel is
/// asked to start writing them out, so the final fsync finds little dirty data and the disk works while the network
/// does. Once the response announced its length, blocks are reserved ahead of the writes (``reserveStep`` at a
/// time, never past the announced end, the file's size unchanged), so the appends land in allocated blocks: on ext4
/// that made writing a 1 MiB file about a fifth cheaper.
final class PartialFile {
    static let writebackStep: Int64 = 32 << 20
    /// The most one write(2) takes. The kernel caches a write of n bytes in pieces of memory up to n long (ext4's
    /// large folios): a 256 KiB write asks for 256 KiB of contiguous memory. On the benchmark's virtual machine,
    /// whose host takes back large free blocks, such memory is sometimes fresh from the host and filling it cost
    /// up to 2 µs a page: 200 files of 1 MiB took 0.35–0.96 s in 256 KiB writes against 0.36–0.49 s in 32 KiB ones
    /// (small pieces come from pages recently freed). 64 KiB writes make half the calls of 32 KiB ones and were no
    /// slower after a burst of I/O, in the 200-file case or the 1 GiB one. docs/transfer.md has the measurements.
    static let maxWrite = 64 << 10
    static let reserveStep: Int64 = 64 << 20
    /// `<directory>/.dledger/partial/<id>.part`, for messages; never opened by this path.
    let path: String
    let id: Int64
    /// The descriptor (``PartialFile+Pieces`` writes at offsets and keeps the piece map through it).
    let fd: Int32
    /// The download folder the file was opened in, kept for the transfer's life: the file is placed and removed
    /// through it, instead of opening the folder and its hidden folders again by path for each step. Its three
    /// descriptors are counted in ``DescriptorLimit/cost(connections:)``.
    let folder: DownloadFolder
    /// Bytes in the file (its length: with holes, once a segmented transfer writes at offsets).
    var size: Int64
    /// Where the next writeback starts: bytes before it were already handed to the kernel's writeback.
    private var writebackStart: Int64
    /// The announced end of the body being received (0: unknown).
    private var expectedEnd: Int64 = 0
    /// Blocks before this offset are reserved.
    private var reservedEnd: Int64 = 0

    /// Opens (creating if needed) the partial file of `request`, creating its hidden folders with mode 0700.
    /// The download directory may be a symbolic link (the user's choice); the hidden folders must be real ones,
    /// and the file is opened relative to them (``DownloadFolder``).
    init(request: TransferRequest) throws(TransferError) {
        do {
            folder = try DownloadFolder(directory: request.directory, creating: true)
            fd = try folder.openPartial(id: request.id)
        } catch {
            throw TransferError(error)
        }
        path = request.partialPath
        id = request.id
        var info = stat()
        guard fstat(fd, &info) == 0, (info.st_mode & S_IFMT) == S_IFREG else {
            close(fd)
            throw .fileSystem("\(request.partialPath) is not a regular file")
        }
        size = Int64(info.st_size)
        writebackStart = size
    }

    /// Removes the file's name from its (real) partial folder; the open descriptor stays usable. Best effort.
    func remove() {
        folder.removePartial(id: id)
    }

    /// The device and inode of the file.
    var identity: (device: UInt64, inode: UInt64)? {
        var info = stat()
        guard fstat(fd, &info) == 0 else { return nil }
        return (UInt64(info.st_dev), UInt64(info.st_ino))
    }

    deinit {
        close(fd)
    }

    /// Records on the file what it is being written under (see ``PartialMark``); best effort.
    func mark(_ mark: PartialMark) {
        mark.write(fd: fd)
    }

    /// Appends all of `bytes`, at most ``maxWrite`` per write(2).
    func append(_ bytes: UnsafeRawBufferPointer) throws(TransferError) {
        guard var base = bytes.baseAddress else { return }
        var left = bytes.count
        while left > 0 {
            let written = write(fd, base, min(left, Self.maxWrite))
            if written < 0 {
                if errno == EINTR { continue }
                throw Self.error("cannot write \(path)")
            }
            size += Int64(written)
            left -= written
            base += written
        }
        if size - writebackStart >= Self.writebackStep {
            // Best effort: an error here shows up again at the fsync.
            _ = cwriteback_start(fd, writebackStart, size - writebackStart)
            writebackStart = size
        }
        if reservedEnd < expectedEnd && size + Self.reserveStep / 4 > reservedEnd { reserveAhead() }
    }

    /// The response announced that the file will end at `end` bytes: reserve blocks for what is to come.
    func expect(end: Int64) {
        expectedEnd = end
        reserveAhead()
    }

    /// Reserves the blocks from the file's size (or the end of the last reservation) up to ``reserveStep`` more,
    /// within the announced end. Best effort: where fallocate is not supported, or the disk is full, the writes
    /// simply allocate as they go (and report a full disk themselves).
    private func reserveAhead() {
        let from = max(size, reservedEnd)
        let to = min(expectedEnd, from + Self.reserveStep)
        guard to > from else { return }
        _ = ccurl_reserve(fd, from, to - from)
        reservedEnd = to
    }

    /// Opens (creating if needed) the partial file of `request`, and a second descriptor of it for the hash worker.
    static func openWithReader(_ request: TransferRequest) throws(TransferError) -> (PartialFile, Int32) {
        let file = try PartialFile(request: request)
        guard let fd = file.readDescriptor() else { throw error("cannot reopen \(file.path)") }
        return (file, fd)
    }

    /// A new descriptor of the file for reading (the caller owns it), or nil when out of descriptors.
    func readDescriptor() -> Int32? {
        let copy = fcntl(fd, F_DUPFD_CLOEXEC, 0)
        return copy >= 0 ? copy : nil
    }

    /// Cuts the file to `length` bytes; later appends continue from there.
    func truncate(to length: Int64) throws(TransferError) {
        guard ftruncate(fd, off_t(length)) == 0 else { throw Self.error("cannot truncate \(path)") }
        size = length
        writebackStart = min(writebackStart, length)
        // The truncation freed the reserved blocks too; the next response announces its own end.
        reservedEnd = 0
        expectedEnd = 0
    }

    /// Flushes the file to stable storage.
    func sync() throws(TransferError) {
        guard fsync(fd) == 0 else { throw Self.error("cannot fsync \(path)") }
    }

    /// A ``TransferError`` for the current `errno`: ENOSPC and EDQUOT become ``TransferError/diskFull``, EMFILE
    /// and ENFILE ``TransferError/tooManyOpenFiles(_:)``.
    static func error(_ what: String) -> TransferError {
        let code = errno
        if code == ENOSPC || code == EDQUOT { return .diskFull }
        let message = "\(what): \(String(cString: strerror(code)))"
        if code == EMFILE || code == ENFILE { return .tooManyOpenFiles(message) }
        return .fileSystem(message)
    }
}
