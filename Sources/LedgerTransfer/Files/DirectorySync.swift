import Foundation

/// Makes new directory entries durable with as few directory fsyncs as possible: each caller waits for a sync
/// that started after its own change, but everyone who arrives while one runs shares the next (group commit).
/// Eight files finishing together cost one or two fsyncs of their directory, not eight.
final class DirectorySync: @unchecked Sendable {
    // @unchecked: `progress` is guarded by `condition`, an NSCondition because callers wait on it (a Mutex cannot).
    static let shared = DirectorySync()

    init() {}

    private struct Progress {
        var started = 0
        var done = 0
        var running = false
    }

    private let condition = NSCondition()
    private var progress: [String: Progress] = [:]

    /// How many directory fsyncs were run, for tests.
    var performed: Int {
        condition.lock()
        defer { condition.unlock() }
        return progress.values.reduce(0) { $0 + $1.done }
    }

    /// Returns once a directory fsync that began after this call has finished; best effort (an error is ignored,
    /// as a failed directory sync leaves the file complete under its name).
    func sync(_ directory: String) {
        condition.lock()
        defer { condition.unlock() }
        let needed = progress[directory, default: Progress()].started + 1
        while progress[directory, default: Progress()].done < needed {
            if progress[directory, default: Progress()].running {
                condition.wait()
                continue
            }
            progress[directory, default: Progress()].running = true
            progress[directory, default: Progress()].started += 1
            let number = progress[directory, default: Progress()].started
            condition.unlock()
            Self.fsyncDirectory(directory)
            condition.lock()
            progress[directory, default: Progress()].done = number
            progress[directory, default: Progress()].running = false
            condition.broadcast()
        }
    }

    private static func fsyncDirectory(_ directory: String) {
        let fd = open(directory, O_RDONLY | O_DIRECTORY | O_CLOEXEC)
        guard fd >= 0 else { return }
        fsync(fd)
        close(fd)
    }
}
