import Foundation
import LedgerTransfer

/// The activity board of the processes of one machine: a small file beside the ledger, `<ledger>-activity`
/// (``ActivityRecord``), replaced whole by a rename a few times a second while transfers run, removed when the
/// downloader exits cleanly.
///
/// The file is created `0600` under a temporary name (opened with `O_EXCL | O_NOFOLLOW`) and renamed over the
/// board, so a reader sees one whole snapshot and a link planted at either name is never followed. A reader
/// trusts it only while the run lock is held by the pid the snapshot names: after a `kill -9` the kernel has
/// dropped the lock and the file left behind is ignored (and replaced by the next downloader). A snapshot of running
/// transfers older than ``ActivityRecord/maxAgeMs`` is not believed either (its writer stopped publishing).
public struct FileActivityBoard: ActivityBoard {
    /// The ledger's path; the board is `ledgerPath + "-activity"`.
    public let ledgerPath: String

    public init(ledgerPath: String) {
        self.ledgerPath = ledgerPath
    }

    /// The board's path.
    public var path: String { ledgerPath + "-activity" }
    private var temporaryPath: String { ledgerPath + "-activity.new" }

    public func publish(_ activity: [TransferActivity]) throws {
        let record = ActivityRecord(
            pid: getpid(), writtenMs: ActivityRecord.nowMs(), activity: activity)
        let bytes = record.encoded()
        // A name left by a writer killed between its open and its rename is ours to replace.
        unlink(temporaryPath)
        let fd = open(temporaryPath, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0o600)
        guard fd >= 0 else { throw Self.failure("create", temporaryPath) }
        var written = 0
        while written < bytes.count {
            let n = bytes.withUnsafeBytes { write(fd, $0.baseAddress! + written, bytes.count - written) }
            if n < 0 && errno == EINTR { continue }
            guard n > 0 else {
                let error = Self.failure("write", temporaryPath)
                close(fd)
                unlink(temporaryPath)
                throw error
            }
            written += n
        }
        close(fd)
        guard rename(temporaryPath, path) == 0 else {
            let error = Self.failure("rename", path)
            unlink(temporaryPath)
            throw error
        }
    }

    public func read() -> [TransferActivity]? {
        guard let holder = RunLock.holder(ledgerPath: ledgerPath), let record = record(),
            record.pid == holder,
            !ActivityRecord.isStale(
                writtenMs: record.writtenMs, activity: record.activity,
                nowMs: ActivityRecord.nowMs())
        else { return nil }
        return record.activity
    }

    /// The record in the board's file, whoever wrote it; nil when there is none or it is not well formed (a
    /// link, not a regular file, too large, or text ``ActivityRecord/decode(_:)`` refuses).
    func record() -> ActivityRecord? {
        let fd = open(path, O_RDONLY | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC)
        guard fd >= 0 else { return nil }
        defer { close(fd) }
        var info = stat()
        guard fstat(fd, &info) == 0, info.st_mode & S_IFMT == S_IFREG, info.st_size <= ActivityRecord.maxBytes
        else { return nil }
        var bytes = [UInt8](repeating: 0, count: Int(info.st_size) + 1)
        var count = 0
        while count < bytes.count {
            let n = bytes.withUnsafeMutableBytes { Glibc.read(fd, $0.baseAddress! + count, $0.count - count) }
            if n < 0 && errno == EINTR { continue }
            guard n > 0 else { break }
            count += n
        }
        // One byte more than its size: a file that grew meanwhile is not a whole snapshot.
        guard count <= Int(info.st_size) else { return nil }
        return ActivityRecord.decode(Array(bytes[..<count]))
    }

    public func withdraw() {
        unlink(path)
        unlink(temporaryPath)
    }

    private static func failure(_ what: String, _ path: String) -> LedgerError {
        .fileSystem("cannot \(what) the activity board \(path): \(String(cString: strerror(errno)))")
    }
}
