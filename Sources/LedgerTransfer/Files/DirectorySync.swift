import Foundation

/// Makes new directory entries durable with as few directory fsyncs as possible: each caller waits for a sync
/// that started after its own change, but everyone who arrives while one runs shares the next (group commit).
/// Eight files finishing together cost one or two fsyncs of their directory, not eight.
///
/// A directory is named by the descriptor its caller placed through (``DownloadFolder``'s), and callers share syncs
/// of the same directory (device and inode): a path looked up again could name another folder by then (the
/// download folder moved away, a link put in its place), and opening it cost an `openat` and a `close` per sync.
final class DirectorySync: @unchecked Sendable {
    // @unchecked: `progress` is guarded by `condition`, an NSCondition because callers wait on it (a Mutex cannot).
    static let shared = DirectorySync()

    init() {}

    private struct Progress {
        var started = 0
        var done = 0
        var running = false
    }

    /// A directory: its device and inode.
    private struct Key: Hashable {
        let device: UInt64
        let inode: UInt64
    }

    private let condition = NSCondition()
    private var progress: [Key: Progress] = [:]

    /// How many directory fsyncs were run, for tests.
    var performed: Int {
        condition.lock()
        defer { condition.unlock() }
        return progress.values.reduce(0) { $0 + $1.done }
    }

    /// Returns once an fsync of the directory open as `descriptor` that began after this call has finished; best
    /// effort (an error is ignored, as a failed directory sync leaves the file complete under its name). The
    /// descriptor stays the caller's; the sync that runs is through the descriptor of the caller that runs it.
    func sync(descriptor: Int32) {
        var info = stat()
        guard fstat(descriptor, &info) == 0 else {
            fsync(descriptor)
            return
        }
        let key = Key(device: UInt64(info.st_dev), inode: UInt64(info.st_ino))
        condition.lock()
        defer { condition.unlock() }
        let needed = progress[key, default: Progress()].started + 1
        while progress[key, default: Progress()].done < needed {
            if progress[key, default: Progress()].running {
                condition.wait()
                continue
            }
            progress[key, default: Progress()].running = true
            progress[key, default: Progress()].started += 1
            let number = progress[key, default: Progress()].started
            condition.unlock()
            fsync(descriptor)
            condition.lock()
            progress[key, default: Progress()].done = number
            progress[key, default: Progress()].running = false
            condition.broadcast()
        }
    }
}
