import CCurl
import CWriteback
import Glibc

/// Writing at offsets, and the piece map kept on the file: what a segmented transfer needs of its partial file.
///
/// A sequential transfer appends (the file's size is then its progress). A segmented one writes several pieces at
/// once, so its file has holes; the written ranges are kept on the file as the extended attribute
/// `user.dledger.pieces` (``PieceMap``), updated after each write. The map is written before the first write at an
/// offset and removed only once the file has no hole left (or it is emptied), so a file with holes never lacks one.
extension PartialFile {
    static let piecesAttribute = "user.dledger.pieces"

    /// Writes all of `bytes` at `offset` (``maxWrite`` per pwrite(2)); the file grows to cover them.
    func store(_ bytes: UnsafeRawBufferPointer, at offset: Int64) throws(TransferError) {
        guard var base = bytes.baseAddress else { return }
        var left = bytes.count
        var at = offset
        while left > 0 {
            let written = pwrite(fd, base, min(left, Self.maxWrite), off_t(at))
            if written < 0 {
                if errno == EINTR { continue }
                throw Self.error("cannot write \(path)")
            }
            left -= written
            base += written
            at += Int64(written)
        }
        size = max(size, at)
    }

    /// Asks the kernel to start writing every dirty byte of the file out, without waiting (a segmented transfer
    /// calls it every ``writebackStep`` bytes, as appending does), so the final fsync finds little to write.
    func startWriteback() {
        _ = cwriteback_start(fd, 0, 0)
    }

    /// Turns appending on or off (`O_APPEND`, under which pwrite(2) would append too).
    func setAppending(_ on: Bool) throws(TransferError) {
        let flags = fcntl(fd, F_GETFL)
        guard flags >= 0, fcntl(fd, F_SETFL, on ? flags | O_APPEND : flags & ~O_APPEND) == 0 else {
            throw Self.error("cannot change the mode of \(path)")
        }
    }

    /// Reserves blocks for the whole rest of a file of `size` bytes at once (a segmented transfer writes all over
    /// it); best effort, like ``expect(end:)``.
    func reserve(upTo end: Int64) {
        guard end > size else { return }
        _ = ccurl_reserve(fd, size, end - size)
    }

    /// The piece map kept on the file: nil when there is none; `.failure` when there is one we cannot trust.
    func readPieces() -> Result<PieceMap, TransferError>? {
        var buffer = [UInt8](repeating: 0, count: 16 * 1024)
        let count = buffer.withUnsafeMutableBytes {
            ccurl_fgetxattr(fd, Self.piecesAttribute, $0.baseAddress, $0.count)
        }
        if count < 0 {
            return errno == ENODATA || errno == ENOTSUP
                ? nil : .failure(Self.error("cannot read the piece map"))
        }
        guard let map = PieceMap.decode(Array(buffer[..<count]), fileSize: size) else {
            return .failure(.fileSystem("the piece map of \(path) is not valid"))
        }
        return .success(map)
    }

    /// Records `map` on the file; throws when the file system refuses (the map is then the last one written).
    func writePieces(_ map: PieceMap) throws(TransferError) {
        try writePieces(bytes: map.encoded())
    }

    /// Records `bytes` as the piece map (tests write tampered ones through it).
    func writePieces(bytes: [UInt8]) throws(TransferError) {
        let result = bytes.withUnsafeBytes {
            ccurl_fsetxattr(fd, Self.piecesAttribute, $0.baseAddress, $0.count)
        }
        guard result == 0 else { throw Self.error("cannot record the piece map of \(path)") }
    }

    /// Removes the piece map (the file has no hole left, or it was emptied).
    func removePieces() {
        _ = ccurl_fremovexattr(fd, Self.piecesAttribute)
    }
}

/// What the piece map of a partial file says: the file's size and its written and missing byte ranges. For
/// inspection (a test, a report); the engine reads the map itself through the open file.
public struct PartialPieces: Sendable, Equatable {
    /// Size of the whole file.
    public let size: Int64
    /// The written ranges, in order.
    public let written: [Range<Int64>]
    /// The holes, in order.
    public let missing: [Range<Int64>]

    /// The piece map of the file at `path` (no symbolic link followed); nil when it has none or an unusable one.
    public static func read(path: String) -> PartialPieces? {
        let fd = open(path, O_RDONLY | O_NOFOLLOW | O_CLOEXEC)
        guard fd >= 0 else { return nil }
        defer { close(fd) }
        return read(fd: fd)
    }

    /// The piece map of the open file `fd`; nil when it has none or an unusable one.
    static func read(fd: Int32) -> PartialPieces? {
        var info = stat()
        guard fstat(fd, &info) == 0 else { return nil }
        var buffer = [UInt8](repeating: 0, count: 16 * 1024)
        let count = buffer.withUnsafeMutableBytes {
            ccurl_fgetxattr(fd, PartialFile.piecesAttribute, $0.baseAddress, $0.count)
        }
        guard count > 0, let map = PieceMap.decode(Array(buffer[..<count]), fileSize: Int64(info.st_size))
        else { return nil }
        return PartialPieces(size: map.size, written: map.done, missing: map.missing)
    }
}
