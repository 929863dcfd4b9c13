import CCurl
import Glibc

/// What a partial file was written under, kept on the file itself (an extended attribute): the task's generation
/// (how many times its data was reset) and the validator (ETag or Last-Modified) of the response it holds.
///
/// It is written when a response's headers are accepted, before the first body byte, so a downloader killed
/// before it could log the transfer's facts still finds out, at the next start, whether the bytes it left belong
/// to the task as it is now (then they resume with `Range` and `If-Range`) or to an older generation (then they
/// go). On a file system without user extended attributes nothing is written and the mark is nil.
public struct PartialMark: Sendable, Equatable {
    public var generation: Int
    public var validator: String?

    public init(generation: Int, validator: String?) {
        self.generation = generation
        self.validator = validator
    }

    static let attribute = "user.dledger.partial"

    /// The mark of the file at `path` (no symbolic link followed), if it has a readable one.
    public static func read(path: String) -> PartialMark? {
        let fd = open(path, O_RDONLY | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC)
        guard fd >= 0 else { return nil }
        defer { close(fd) }
        return read(fd: fd)
    }

    /// The mark of an open file, if it has a readable one.
    static func read(fd: Int32) -> PartialMark? {
        var buffer = [UInt8](repeating: 0, count: 4096)
        let n = buffer.withUnsafeMutableBytes { ccurl_fgetxattr(fd, attribute, $0.baseAddress, $0.count) }
        guard n > 0 else { return nil }
        let text = String(decoding: buffer[..<n], as: UTF8.self)
        guard let newline = text.firstIndex(of: "\n"), let generation = Int(text[..<newline]) else {
            return nil
        }
        let validator = String(text[text.index(after: newline)...])
        return PartialMark(generation: generation, validator: validator.isEmpty ? nil : validator)
    }

    /// Writes the mark on the file at `path` (no symlink followed); false when it cannot.
    @discardableResult
    public func write(to path: String) -> Bool {
        let fd = open(path, O_RDWR | O_NOFOLLOW | O_CLOEXEC)
        guard fd >= 0 else { return false }
        defer { close(fd) }
        return write(fd: fd)
    }

    /// Writes the mark on an open file; best effort (false when the file system refuses it).
    @discardableResult
    func write(fd: Int32) -> Bool {
        let bytes = Array("\(generation)\n\(validator ?? "")".utf8)
        return bytes.withUnsafeBytes { ccurl_fsetxattr(fd, Self.attribute, $0.baseAddress, $0.count) } == 0
    }
}
